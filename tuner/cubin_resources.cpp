// The cubin reader: ELF64 section headers, the symbol table and the `.nv.info` attribute records.
//
// `.nv.info` (and `.nv.info.<kernel>`) is a sequence of records, each opened by a format byte and
// an attribute byte. EIFMT_SVAL records then carry a 16-bit length and that many bytes; every
// other format (EIFMT_NVAL, EIFMT_BVAL, EIFMT_HVAL) carries its value in the next two bytes. The
// per-kernel figures are SVAL records of two 32-bit words: the kernel's symbol index, then the
// value. Attribute numbers are the ones cuobjdump --dump-elf names (checked against it on NVRTC
// 13.0 cubins for sm_90: tests/unit/tuner/cubin_resources_test.cpp).
#include "cubin_resources.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace coalesce::tuner {

namespace {

constexpr std::uint16_t kEmCuda = 190;  // e_machine of NVIDIA CUDA objects
constexpr std::uint32_t kShtSymtab = 2;
constexpr std::uint32_t kShtNobits = 8;
constexpr std::uint32_t kShtCudaInfo = 0x70000000;  // SHT_LOPROC: `.nv.info` sections
constexpr unsigned kSttFunc = 2;

constexpr std::uint8_t kEifmtSval = 0x04;
constexpr std::uint8_t kEiattrFrameSize = 0x11;
constexpr std::uint8_t kEiattrMinStackSize = 0x12;
constexpr std::uint8_t kEiattrRegcount = 0x2f;

// The shared memory the driver reserves per block (cudaDevAttrReservedSharedMemoryPerBlock, 1 KB
// on sm_80 and later). ptxas for sm_90 lays it at the start of every non-empty
// `.nv.shared.<kernel>` and marks the layout with a `.nv.shared.reserved.N` section; sm_100 cubins
// also give its size as the symbol `.nv.reservedSmem.cap`, which wins where present.
constexpr int kReservedSmemBytes = 1024;

struct Section {
  std::string name;
  std::uint32_t type = 0;
  std::uint64_t offset = 0, size = 0;
  std::uint32_t link = 0;
};

struct Symbol {
  std::string name;
  unsigned type = 0;
  std::uint16_t section = 0;
  std::uint64_t value = 0;
};

// Bounds-checked little-endian reads over the cubin's bytes; anything past the end is a cut-off
// file, never undefined behaviour.
class Bytes {
 public:
  Bytes(std::string_view data, std::string_view kernel) : data_(data), kernel_(kernel) {}

  std::uint64_t le(std::uint64_t at, int width) const {
    need(at, static_cast<std::uint64_t>(width));
    std::uint64_t v = 0;
    for (int i = width - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(data_[at + static_cast<unsigned>(i)]);
    return v;
  }
  std::uint8_t u8(std::uint64_t at) const { return static_cast<std::uint8_t>(le(at, 1)); }
  std::uint16_t u16(std::uint64_t at) const { return static_cast<std::uint16_t>(le(at, 2)); }
  std::uint32_t u32(std::uint64_t at) const { return static_cast<std::uint32_t>(le(at, 4)); }
  std::uint64_t u64(std::uint64_t at) const { return le(at, 8); }

  // The NUL-terminated string at `at` inside `table`.
  std::string string_in(const Section& table, std::uint64_t at) const {
    need(table.offset, table.size);
    if (at >= table.size) fail("a name lies outside its string table");
    std::string_view rest = data_.substr(table.offset + at, table.size - at);
    std::size_t end = rest.find('\0');
    if (end == std::string_view::npos) fail("a name in a string table is not terminated");
    return std::string(rest.substr(0, end));
  }

  void need(std::uint64_t at, std::uint64_t count) const {
    if (at > data_.size() || count > data_.size() - at) fail("the file is cut short");
  }
  [[noreturn]] void fail(const std::string& why) const {
    throw CubinError("cannot read the resources of '" + std::string(kernel_) + "' from the cubin: " + why);
  }

 private:
  std::string_view data_;
  std::string_view kernel_;
};

std::vector<Section> read_sections(const Bytes& b) {
  const std::uint64_t shoff = b.u64(0x28);
  const std::uint16_t shentsize = b.u16(0x3a);
  const std::uint16_t shnum = b.u16(0x3c);
  const std::uint16_t shstrndx = b.u16(0x3e);
  if (shentsize < 64) b.fail("its section headers are too small for ELF64");
  if (shstrndx >= shnum) b.fail("it has no section name table");
  std::vector<Section> sections(shnum);
  std::vector<std::uint32_t> names(shnum);
  for (std::uint16_t i = 0; i < shnum; ++i) {
    const std::uint64_t at = shoff + static_cast<std::uint64_t>(i) * shentsize;
    names[i] = b.u32(at);
    sections[i].type = b.u32(at + 4);
    sections[i].offset = b.u64(at + 0x18);
    sections[i].size = b.u64(at + 0x20);
    sections[i].link = b.u32(at + 0x28);
    if (sections[i].type != kShtNobits) b.need(sections[i].offset, sections[i].size);
  }
  for (std::uint16_t i = 0; i < shnum; ++i) sections[i].name = b.string_in(sections[shstrndx], names[i]);
  return sections;
}

std::vector<Symbol> read_symbols(const Bytes& b, const std::vector<Section>& sections) {
  for (const Section& s : sections) {
    if (s.type != kShtSymtab) continue;
    if (s.link >= sections.size()) b.fail("its symbol table names no string table");
    const Section& strings = sections[s.link];
    constexpr std::uint64_t kEntry = 24;  // sizeof(Elf64_Sym)
    std::vector<Symbol> symbols(s.size / kEntry);
    for (std::size_t i = 0; i < symbols.size(); ++i) {
      const std::uint64_t at = s.offset + i * kEntry;
      symbols[i].name = b.string_in(strings, b.u32(at));
      symbols[i].type = b.u8(at + 4) & 0xfu;
      symbols[i].section = b.u16(at + 6);
      symbols[i].value = b.u64(at + 8);
    }
    return symbols;
  }
  b.fail("it has no symbol table");
}

// The per-kernel figures of one `.nv.info` section: records of `kernel_index` only.
struct InfoFigures {
  std::optional<std::uint32_t> registers, frame, min_stack;
};

void read_info(const Bytes& b, const Section& info, std::uint32_t kernel_index, InfoFigures& out) {
  std::uint64_t at = info.offset;
  const std::uint64_t end = info.offset + info.size;
  while (at < end) {
    if (end - at < 4) b.fail("a `" + info.name + "` record is cut short");
    const std::uint8_t format = b.u8(at);
    const std::uint8_t attribute = b.u8(at + 1);
    if (format != kEifmtSval) {
      if (format < 0x01 || format > 0x03) b.fail("`" + info.name + "` holds a record of unknown format");
      at += 4;
      continue;
    }
    const std::uint16_t length = b.u16(at + 2);
    if (length > end - at - 4) b.fail("a `" + info.name + "` record runs past its section");
    const bool per_kernel =
        attribute == kEiattrRegcount || attribute == kEiattrFrameSize || attribute == kEiattrMinStackSize;
    if (per_kernel && length >= 8 && b.u32(at + 4) == kernel_index) {
      const std::uint32_t value = b.u32(at + 8);
      if (attribute == kEiattrRegcount) out.registers = value;
      if (attribute == kEiattrFrameSize) out.frame = value;
      if (attribute == kEiattrMinStackSize) out.min_stack = value;
    }
    at += 4 + length;
  }
}

int as_int(const Bytes& b, std::uint64_t v, const char* what) {
  if (v > 0x7fffffffu) b.fail(std::string("its ") + what + " is out of range");
  return static_cast<int>(v);
}

}  // namespace

KernelResources read_kernel_resources(std::string_view cubin, std::string_view kernel) {
  const Bytes b(cubin, kernel);
  if (cubin.size() < 0x40 || cubin.substr(0, 4) != "\x7f" "ELF") b.fail("it is not an ELF file");
  if (cubin[4] != 2 || cubin[5] != 1) b.fail("it is not a little-endian ELF64 file");
  if (b.u16(0x12) != kEmCuda) b.fail("it is an ELF file for another machine than CUDA");

  // The program headers end the file ptxas writes: a cubin cut anywhere is refused here, even
  // where the figures themselves would still be readable.
  const std::uint64_t phoff = b.u64(0x20);
  b.need(phoff, static_cast<std::uint64_t>(b.u16(0x36)) * b.u16(0x38));
  const std::vector<Section> sections = read_sections(b);
  const std::vector<Symbol> symbols = read_symbols(b, sections);
  std::optional<std::uint32_t> index;
  for (std::size_t i = 0; i < symbols.size() && !index; ++i)
    if (symbols[i].type == kSttFunc && symbols[i].name == kernel && symbols[i].section != 0 &&
        symbols[i].section < sections.size())
      index = static_cast<std::uint32_t>(i);
  if (!index) b.fail("it defines no such entry function");

  KernelResources r;
  InfoFigures figures;
  const std::string own_info = ".nv.info." + std::string(kernel);
  const std::string own_shared = ".nv.shared." + std::string(kernel);
  const std::string own_local = ".nv.local." + std::string(kernel);
  bool reserved_layout = false;
  std::optional<std::uint64_t> reserved_cap;
  for (const Section& s : sections) {
    if (s.type == kShtCudaInfo && (s.name == ".nv.info" || s.name == own_info)) read_info(b, s, *index, figures);
    if (s.name == own_shared) r.shared_section_bytes = as_int(b, s.size, "shared memory");
    if (s.name == own_local) r.local_bytes = as_int(b, s.size, "local memory");
    if (s.name.starts_with(".nv.shared.reserved.")) reserved_layout = true;
  }
  for (const Symbol& s : symbols)
    if (s.name == ".nv.reservedSmem.cap") reserved_cap = s.value;
  if (!figures.registers) b.fail("it records no register count (EIATTR_REGCOUNT) for it");
  if (!figures.frame) b.fail("it records no stack frame (EIATTR_FRAME_SIZE) for it");
  r.registers = as_int(b, *figures.registers, "register count");
  r.frame_bytes = as_int(b, *figures.frame, "stack frame");
  r.min_stack_bytes = as_int(b, figures.min_stack.value_or(0), "stack size");
  if (reserved_layout || reserved_cap) {
    const int reserved = as_int(b, reserved_cap.value_or(kReservedSmemBytes), "reserved shared memory");
    // An empty section holds no reserved block; the smaller of the two keeps a layout this
    // reader does not know from reporting negative shared memory.
    r.reserved_smem_bytes = std::min(reserved, r.shared_section_bytes);
  }
  return r;
}

}  // namespace coalesce::tuner
