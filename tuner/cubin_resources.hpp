// A kernel's resource figures read from its cubin: the ELF that ptxas writes records registers,
// stack frame and shared memory per kernel in `.nv.info` attributes and section sizes, which is
// what `cuobjdump --dump-resource-usage` prints. Unlike ptxas' -v log, the figures cannot go
// missing while the cubin is there (docs/tuner.md, "Resource figures").
#pragma once

#include <stdexcept>
#include <string_view>

namespace coalesce::tuner {

/// What one kernel of a cubin uses, as ptxas recorded it.
struct KernelResources {
  int registers = 0;        ///< per thread (EIATTR_REGCOUNT)
  int frame_bytes = 0;      ///< per-thread stack frame: spilled registers and local arrays (EIATTR_FRAME_SIZE)
  int min_stack_bytes = 0;  ///< stack with the frames of the functions it calls (EIATTR_MIN_STACK_SIZE)
  int local_bytes = 0;      ///< local memory outside the stack (`.nv.local.<kernel>`; none under the ABI)
  int shared_section_bytes = 0;  ///< `.nv.shared.<kernel>`: static shared memory, plus the reserved block
  int reserved_smem_bytes = 0;   ///< the driver's reserved block that opens the section (sm_90: 1 KB)

  /// Shared memory the kernel declares statically (what ptxas -v calls "bytes smem").
  int static_smem_bytes() const { return shared_section_bytes - reserved_smem_bytes; }
  /// Whether the kernel reads or writes local memory at all. A kernel that declares no local
  /// arrays (the simt template holds every per-thread array in registers) does so only to spill.
  bool uses_local_memory() const { return frame_bytes > 0 || min_stack_bytes > 0 || local_bytes > 0; }
};

/// A cubin that cannot give a kernel's figures; the message is one sentence.
class CubinError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Reads the figures of the entry `kernel` from `cubin` (a little-endian ELF64 CUDA cubin, as
/// nvrtcGetCUBIN returns it). Throws CubinError when the bytes are not such an ELF, are cut
/// short, or hold no entry `kernel` with its register count and frame size.
KernelResources read_kernel_resources(std::string_view cubin, std::string_view kernel);

}  // namespace coalesce::tuner
