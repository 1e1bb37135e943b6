// A kernel family is a plug-in: one kernel design with its own tile parameters behind one
// host-side interface (CUTLASS enumerates every opcode class through one tile description and one
// procedural name the same way). The tuner, the measuring worker, the database rows, the harness
// and the compiler ask this interface and never name a family. docs/families.md says how to add
// one: its own folder under kernels/ plus one line in kernels/families.cpp. C++17, so .cu files
// (the harness, the runtime) include it too.
#pragma once

#include <climits>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/core/limits.hpp"
#include "kernels/core/problem.hpp"

namespace coalesce {

/// ParamSpec::unnamed of a parameter every config name spells out.
inline constexpr int kAlwaysNamed = INT_MIN;

/// One tunable parameter: its name (in params_json, the compiler's tile attribute and the
/// docs) and the abbreviation its value carries in a config name ("stages" → "s3").
struct ParamSpec {
  std::string_view name;
  std::string_view abbrev;
  /// The value that config names and params_json leave out (kAlwaysNamed: none). A parameter
  /// added after configs were stored (split-K's `split`, unnamed at 1) so keeps their names and
  /// database rows valid: the name without it means the old kernel.
  int unnamed = kAlwaysNamed;
};

/// A config of some family: the family's name and one value per parameter, in the family's
/// order (Family::params()).
struct Config {
  std::string family;
  std::vector<int> values;
  bool operator==(const Config& o) const { return family == o.family && values == o.values; }
};

/// The GPU a config is built for and must fit.
struct Target {
  int cc_major = 9, cc_minor = 0;
  /// Whether code may use the architecture-specific instructions of exactly this compute
  /// capability (sm_90a: wgmma, setmaxnreg), which run on no other GPU.
  bool arch_specific = false;
  DeviceLimits limits;
  int sm_count = 132;  ///< for persistent grids (the H200's without a device)
  /// The most workspace (split-K partials) one kernel may ask for; configs above it are pruned.
  long long max_workspace_bytes = 1LL << 30;
  /// "sm_90": the compute capability's portable target.
  std::string base_arch() const { return "sm_" + std::to_string(cc_major * 10 + cc_minor); }
  /// "sm_90a" when arch_specific, else base_arch().
  std::string arch() const { return base_arch() + (arch_specific ? "a" : ""); }
};

/// What a config asks of an SM: threads per block, registers per thread (the family's model
/// before compiling, ptxas' figure after), dynamic shared memory per block, and the resulting
/// resident blocks per SM.
struct Resources {
  int threads = 0;
  int registers = 0;
  int register_cap = 255;  ///< registers per thread the kernel's launch bounds allow ptxas
  int smem_bytes = 0;
  int blocks_per_sm = 0;
};

/// How a config's kernel is launched on a problem.
struct Geometry {
  unsigned grid_x = 1, grid_y = 1, grid_z = 1;
  unsigned block_x = 1;
  unsigned cluster_x = 1, cluster_y = 1, cluster_z = 1;  ///< thread block clusters (sm_90); 1 x 1 x 1 is none
  int smem_bytes = 0;  ///< dynamic shared memory per block
  long long blocks() const { return static_cast<long long>(grid_x) * grid_y * grid_z; }
};

/// A kernel parameter the harness binds, in the kernel's order: the buffers (A, B, bias, C), the
/// sizes (M, N, K), or a TMA tensor map over A, B or C, passed by value (kernels/core/
/// tensor_map.hpp) and described by the family (Family::tensor_map). A family with other inputs
/// (a workspace) adds its kind here and the harness learns to bind it once. `residual` is the
/// M×N matrix an epilogue that reads one adds (kernels/core/epilogues.hpp, EpilogueReads): a
/// family whose kernel_args() lack it runs no such epilogue (supports_epilogue()).
enum class KernelArg { a, b, bias, c, m, n, k, a_tensor_map, b_tensor_map, c_tensor_map, workspace, residual };

/// The name of the parameter through which a family splits K across blocks (split-K,
/// docs/families.md "Split-K"). A family that has it runs a config with split = S > 1 as S
/// slices of K in the grid's z dimension: slice z sums its share of the K tiles and stores the
/// raw f32 sums (no bias, no activation) into the partials workspace at z·M·N, row-major M×N,
/// passed as the kernel's C argument; the harness (and the runtime library) then runs one
/// reduce kernel that adds the S partials in slice order, applies the epilogue and stores C once.
/// Deterministic: every output element is the same sum in the same order on every run.
inline constexpr std::string_view kSplitParam = "split";
/// The split factors the tuner's space tries beside every legal unsplit config of a family with
/// a `split` parameter (tuner/space.cpp); the family's own lists hold split = 1 only.
inline constexpr int kSplitFactors[] = {2, 3, 4, 6, 8, 12, 16};
/// The name of the parameter that says where a split config's partial sums are added, in a
/// family that offers both ways: 0 (the default) by the separate reduce kernel above; 1 in the
/// GEMM kernel itself: every block of a tile stores its partial sums, then counts itself on the
/// tile's counter (after the partial sums), and the block that arrives last adds the tile's S
/// partials in slice order, applies the epilogue, stores C and resets the counter to zero. Such
/// a family takes the workspace as a kernel argument of its own (KernelArg::workspace) and C as
/// C. Deterministic as the reduce kernel is: the sum is the same whichever block comes last.
/// 2 in a thread block cluster: the S blocks of a tile (grid z) run as one cluster (Geometry's
/// cluster_z = S, at most 8); each sends the other blocks' shares of its f32 sums into their
/// shared memory and adds the S sums of its own share of the tile in slice order, applies the
/// epilogue and stores C. No workspace, no counters, no second kernel.
inline constexpr std::string_view kReduceParam = "reduce";
/// The name of a family's stream-K parameter (docs/families.md "Stream-K"): 0 (the default) takes
/// every tile whole; S > 0 makes the persistent grid share the K steps of the tiles past its
/// last whole wave evenly among its blocks, each such tile between at most S blocks, before the
/// other tiles. A block whose share ends inside a tile stores its f32 sums in a slot of the
/// workspace (one slot per block, then one flag per block, zeroed once by the harness and left
/// zero by the kernel) and raises its flag; the block holding the tile's first K steps waits for
/// the flags, adds the sums in block order and applies the epilogue. Deterministic for a given
/// grid; the grid is one wave of the GPU, every block resident, so the wait cannot deadlock.
inline constexpr std::string_view kStreamKParam = "stream_k";

/// What a TMA tensor map over one row-major matrix of the problem must say: the matrix
/// (rows × cols elements of `element`, cols contiguous, rows `row_stride` elements apart, or
/// `cols` when row_stride is 0), the box one copy moves (box_rows × box_cols) and the
/// shared-memory swizzle (0, 32, 64 or 128 bytes). harness/tma.hpp encodes it with
/// cuTensorMapEncodeTiled; elements outside the matrix read as zeros and are not written.
struct TensorMapSpec {
  KernelArg matrix = KernelArg::a;  ///< the buffer mapped: a, b or c
  Element element = Element::bf16;
  long long rows = 0, cols = 0;
  int box_rows = 0, box_cols = 0;
  int swizzle_bytes = 0;
  long long row_stride = 0;  ///< elements from one row to the next; 0: cols
  long long stride() const { return row_stride > 0 ? row_stride : cols; }
  bool operator==(const TensorMapSpec& o) const {
    return matrix == o.matrix && element == o.element && rows == o.rows && cols == o.cols &&
           box_rows == o.box_rows && box_cols == o.box_cols && swizzle_bytes == o.swizzle_bytes &&
           stride() == o.stride();
  }
};

class Family {
 public:
  virtual ~Family() = default;

  /// The family's name: the first word of its config names, `--family`, `configs.family`.
  virtual std::string_view name() const = 0;
  /// One line for help texts and the space listing.
  virtual std::string_view summary() const = 0;
  /// Its parameters, in the order of Config::values and of the config name.
  virtual const std::vector<ParamSpec>& params() const = 0;

  /// Whether the family computes this dtype at all (Violation::dtype with the reason if not).
  virtual Verdict supports(Dtype dtype) const = 0;
  /// Whether the family runs on this GPU (Violation::arch with the reason if not).
  virtual Verdict supports(const Target& target) const = 0;
  /// The architecture NVRTC compiles for on `target`, e.g. "sm_90" or "sm_90a".
  virtual std::string nvrtc_arch(const Target& target) const = 0;

  /// The configs a sweep considers for `problem`, in a fixed order: every combination of the
  /// family's lists, including those check() refuses (they are counted, not stored).
  virtual std::vector<Config> sweep_configs(const Problem& problem) const = 0;
  /// The configs that must work without tuning, most preferred first (the compiler's fallback).
  virtual std::vector<Config> builtin_configs(const Problem& problem) const = 0;

  /// The config's own rules, independent of device and problem: the one rule that the tuner
  /// prunes with, the kernel's static_asserts state and the compiler's verifier calls.
  virtual Verdict check(const Config& config) const = 0;
  /// check() plus the device's limits, with `registers` per thread (the model's before
  /// compiling, ptxas' after).
  virtual Verdict check(const Config& config, const DeviceLimits& limits, int registers) const = 0;
  /// The problem-dependent rules (alignment, sizes the kernel can index, its dtype).
  virtual Verdict check_problem(const Config& config, const Problem& problem) const = 0;

  /// The resources the config asks for, with the family's register model.
  virtual Resources predict(const Config& config, const DeviceLimits& limits) const = 0;
  /// The same on `problem`, for a family whose model depends on the dtype (gemv's accumulators);
  /// the default is predict(config, limits).
  virtual Resources predict(const Config& config, const DeviceLimits& limits, const Problem& problem) const;
  /// Grid, block, cluster and dynamic shared memory of a launch on `target` (a persistent
  /// grid sizes itself by target.sm_count).
  virtual Geometry geometry(const Config& config, const Problem& problem, const Target& target) const = 0;
  /// The bytes of workspace a launch on `target` needs (the harness and the runtime allocate
  /// it). The default is split-K's (workspace_bytes() below); a family with a schedule of its
  /// own that needs one (stream-K) adds it.
  virtual long long workspace_bytes(const Config& config, const Problem& problem, const Target& target) const;
  /// Schedule rules of the family's own on `problem` and `target`, beyond the common ones of
  /// check_schedule() below (e.g. stream-K where the tiles fill whole waves). Default: none.
  virtual Verdict check_schedule(const Config& config, const Problem& problem, const Target& target) const;
  /// The kernel's parameters, in order.
  virtual const std::vector<KernelArg>& kernel_args() const;
  /// Whether the family's kernels store a gated epilogue (kernels/core/epilogues.hpp,
  /// EpilogueReads::gated): act(acc[m][2j]) · acc[m][2j+1] at column j of a C of N/2 columns.
  /// Its check_problem() refuses the configs whose store paths do not (with the reason).
  /// Default: no (supports_epilogue() refuses every gated epilogue).
  virtual bool stores_gated() const { return false; }
  /// The tensor map the kernel takes as parameter `map` (a_tensor_map, b_tensor_map or
  /// c_tensor_map) for `config` on `problem`. Only families whose kernel_args() name tensor maps
  /// override it; the default throws std::logic_error.
  virtual TensorMapSpec tensor_map(const Config& config, const Problem& problem, KernelArg map) const;
  /// The multiple of elements that the rows of A (K), B and C (N) must have for the config's
  /// kernel to read and write them in place (TMA's 16-byte row strides: 8 for wgmma's 16-bit
  /// tiles). A problem whose rows are not runs on a padded copy that the launch makes (staging,
  /// below), and the family's check_problem() judges the padded problem. Default 1: the family
  /// reads any row in place, or refuses the problem itself.
  virtual int row_multiple(const Config& config, const Problem& problem) const;

  /// The header an emitted translation unit includes (e.g. "kernels/simt/gemm.cuh").
  virtual std::string_view kernel_header() const = 0;
  /// The C++ type naming the config in the kernel template.
  virtual std::string tile_type(const Config& config) const = 0;
  /// The statement defining `extern "C" __global__ void SYMBOL(...)` for the config, dtype and
  /// epilogue (one line of the emitted translation unit).
  virtual std::string define_kernel(const Config& config, Dtype dtype, Epilogue epilogue,
                                    std::string_view symbol) const = 0;

  /// A parameter's value by name; throws std::invalid_argument for a name the family lacks.
  int value(const Config& config, std::string_view param) const;
  /// The config with parameter `param` set to `v`.
  Config with(Config config, std::string_view param, int v) const;
  /// Resources after compiling, with ptxas' registers: blocks per SM from the generic occupancy
  /// rule (resident_blocks).
  Resources resources(const Config& config, const DeviceLimits& limits, int registers) const;
};

/// Every combination of one value from each list, the last list varying fastest: the cartesian
/// product a family's sweep_configs() enumerates its parameter lists by. Each combination holds
/// one value per list, in the lists' order.
inline std::vector<std::vector<int>> combinations(const std::vector<const std::vector<int>*>& lists) {
  std::size_t total = 1;
  for (const std::vector<int>* list : lists) total *= list->size();
  std::vector<std::vector<int>> out(total, std::vector<int>(lists.size()));
  for (std::size_t index = 0; index < total; ++index) {
    std::size_t rest = index;
    for (std::size_t i = lists.size(); i-- > 0;) {
      out[index][i] = (*lists[i])[rest % lists[i]->size()];
      rest /= lists[i]->size();
    }
  }
  return out;
}

/// The number of K slices a config runs as: its `split` value, 1 for a family without one.
int split_slices(const Config& config);
/// Whether a split config adds its partial sums in its own kernel (kReduceParam = 1 or 2).
bool reduces_in_kernel(const Config& config);
/// Whether they are added through the workspace behind per-tile counters (kReduceParam = 1).
bool reduces_through_counters(const Config& config);
/// Whether they are added in the tile's thread block cluster (kReduceParam = 2): no workspace,
/// and a kernel specialized on the split (kernel_config keeps it).
bool reduces_in_cluster(const Config& config);
/// A config's stream-K value (kStreamKParam): 0 for a family without one.
int stream_k_segments(const Config& config);
/// Whether the config's workspace holds counters or flags that the kernel expects at zero on
/// its first launch (the in-kernel reduction's, stream-K's): the harness zeroes it once.
bool workspace_needs_zeros(const Config& config);
/// The bytes of workspace a config needs on a problem on `target` (Family::workspace_bytes):
/// split-K's f32 partials (S·M·N·4) when split > 1, else 0; with the reduction in the kernel,
/// one 4-byte counter per block of the grid's x dimension after them; with stream-K, a tile's
/// f32 sums and a flag per block of the grid; all of these on the kernel's problem, then the
/// padded copies of a staged problem (Staging). The harness and the runtime library allocate it
/// (counters and flags zeroed once; the kernel leaves them zero).
long long workspace_bytes(const Config& config, const Problem& problem, const Target& target = Target{});
/// Elements from one row of an operand to the next where they are not its width (a user's
/// sliced tensor: lda > K, ldb > N, ldc > C's columns); 0: the width, rows contiguous.
struct RowStrides {
  long long a = 0, b = 0, c = 0;
  bool operator==(const RowStrides& o) const { return a == o.a && b == o.b && c == o.c; }
};

/// How a problem runs whose rows the kernel cannot read in place: rows the family cannot read
/// (Family::row_multiple) or rows apart by more than their width (RowStrides), which no
/// family's kernel takes. The kernel computes `kernel`, the problem with N and K rounded up to
/// the family's multiple, on copies in the workspace after the family's own part: A copied into
/// rows of kernel.k elements (K padded, or A strided); B into rows of kernel.n (N padded, or B
/// strided); with N padded, the bias and the residual into rows of kernel.n; and the kernel's C
/// a buffer of rows of kernel.n (C's columns under a gated epilogue) that is copied into C after
/// the kernel and split-K's reduce (N padded, or C strided). The kernel's tensor maps keep the
/// logical sides (K columns of A, K rows and N columns of B) over the padded rows, so the
/// padding is read as TMA's zeros and never needs clearing; the padded columns of C are computed
/// and dropped. The copies are part of the launch, and of its measured time (docs/kernels.md,
/// "Unaligned shapes").
struct Staging {
  Problem kernel;          ///< the problem the kernel computes; the problem itself when nothing is staged
  RowStrides strides;      ///< the operands' row strides as given (0: the width)
  bool a = false;          ///< A is copied into rows of kernel.k elements
  bool b = false;          ///< B is copied into rows of kernel.n elements
  bool c = false;          ///< the kernel stores a buffer of rows of kernel.c_cols(), then copied into C
  bool n = false;          ///< N is padded: the bias and the residual are copied into rows of kernel.n too
  long long family_bytes = 0;  ///< the family's own workspace (Family::workspace_bytes on `kernel`), first
  /// Byte offsets of the copies in the workspace (-1: not staged), each 256-byte aligned.
  long long a_offset = -1, b_offset = -1, bias_offset = -1, residual_offset = -1, c_offset = -1;
  long long bytes = 0;     ///< the whole workspace: family_bytes and the copies
  bool any() const { return a || b || c; }
};
/// The staging of `config` on `problem` with operands `strides` apart (nothing staged when every
/// row is contiguous and a multiple of the family's row_multiple(), or it is 1). Throws
/// std::invalid_argument when a stride is smaller than its row.
Staging staging_of(const Config& config, const Problem& problem, const Target& target = Target{},
                   const RowStrides& strides = {});
/// The problem the config's kernel computes: N and K rounded up to the family's row_multiple().
Problem kernel_problem(const Family& family, const Config& config, const Problem& problem);

/// The config whose kernel runs `config`: split factors above 1 share one kernel (the factor is
/// the grid's z extent, read by the kernel at run time), so every split > 1 maps to split = 2
/// and the tuner compiles it once; except a reduction in the cluster (reduces_in_cluster), whose
/// kernel is specialized on its factor. Configs without a split > 1 map to themselves.
Config kernel_config(const Config& config);
/// Whether the family's kernels read every operand of the epilogue (kernels/core/epilogues.hpp):
/// an M×N residual needs KernelArg::residual among its kernel_args(), a gated epilogue
/// Family::stores_gated() (Violation::epilogue, with the reason, if not). The tuner prunes and
/// the harness refuses by it.
Verdict supports_epilogue(const Family& family, Epilogue epilogue);
/// supports_epilogue() of the problem's epilogue, then the epilogue's own problem rule: a gated
/// epilogue's N (gate and up interleaved) must be even (Violation::divisibility).
Verdict supports_epilogue(const Family& family, const Problem& problem);

/// The schedule's rules for `config` on `problem` and `target`, common to every family: a
/// split > 1 must have work for every slice of the GPU it adds (not when the unsplit grid already
/// fills a wave of the device's SMs: Violation::schedule), and its workspace must fit
/// target.max_workspace_bytes (Violation::workspace); then the family's own rules
/// (Family::check_schedule).
Verdict check_schedule(const Family& family, const Config& config, const Problem& problem, const Target& target);

/// Every registered family, built-in ones first in kernels/families.cpp's order.
const std::vector<const Family*>& families();
/// The family named `name`, or nullptr.
const Family* find_family(std::string_view name);
/// Adds a family (tests register stand-ins); its name must be new. Not thread-safe: call before
/// any thread uses the registry.
void register_family(const Family& family);
/// The family names, comma-separated ("simt, mma"), for help texts and refusals.
std::string family_names();

/// A config of any family, with the dtype and epilogue it was named for.
struct NamedConfig {
  Config config;
  Dtype dtype;
  Epilogue epilogue;
};

/// The derived name of a config for a dtype and epilogue (as CUTLASS derives its kernels' names): the family, the dtype, each
/// parameter as abbreviation+value in the family's order, then the epilogue, e.g.
/// `simt_f32_bm128_bn128_bk16_wm64_wn32_tm8_tn8_s3_v4_g8_o2_bias_gelu`. It is the kernel symbol,
/// the test name and the database key; never typed by hand.
std::string config_name(const Config& config, Dtype dtype, Epilogue epilogue);
/// The inverse of config_name() over the registered families; nullopt for anything else.
std::optional<NamedConfig> parse_config_name(std::string_view name);

/// The config's parameters as a JSON object in the family's order ({"bm":128,...}), as stored in
/// `configs.params_json`.
std::string params_json(const Config& config);

}  // namespace coalesce
