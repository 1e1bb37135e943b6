// coalesce_fused_matmul and its registries (coalesce_runtime.h): descriptors checked, the config
// chosen (named, the tuning table's, or the first legal built-in), its kernel found (compiled
// into the program, a registered cubin, or NVRTC through the tuner's kernel cache), and the
// launch made through the one launch contract (harness/launch.hpp) on the caller's stream with
// workspace from the stream-ordered pool. Every failure is a status and the thread's message.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <shared_mutex>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "compiler/runtime/coalesce_runtime.h"
#include "compiler/runtime/runtime_core.hpp"
#include "compiler/runtime/tuning_table.hpp"
#include "harness/cubin_kernel.hpp"
#include "harness/cuda_check.hpp"
#include "harness/device.hpp"
#include "harness/launch.hpp"
#include "kernels/core/epilogues.hpp"
#include "kernels/core/family.hpp"
#include "tuner/jit.hpp"

namespace coalesce::runtime {

namespace {

thread_local std::string t_last_error;

std::string shape(long long rows, long long cols) { return std::to_string(rows) + "x" + std::to_string(cols); }

// Where a config's kernel comes from, in order of preference.
struct KernelSlot {
  const void* compiled_in = nullptr;           // register_kernel (nvcc, in the program)
  std::vector<char> image;                     // coalesce_register_cubin, until loaded
  std::unique_ptr<CubinKernel> loaded;         // the image, or NVRTC's cubin, once loaded
  bool prepared = false;                       // prepare_kernel ran (dynamic shared memory)
  const void* handle() const { return compiled_in ? compiled_in : loaded ? loaded->function() : nullptr; }
};

struct Registry {
  std::mutex mutex;
  std::map<std::string, KernelSlot> kernels;  // by config name (the kernel's symbol)
  std::map<std::string, std::unique_ptr<tuner::Jit>> jits;  // by NVRTC architecture
};
Registry& registry() {
  static Registry r;
  return r;
}

struct Table {
  std::shared_mutex mutex;
  TuningTable table;
};
Table& tuning() {
  static Table t;
  return t;
}

// The device the calls run on: its target and its name (the tuning table's gpu_model).
struct DeviceFacts {
  Target target;
  std::string name;
};
DeviceFacts device_facts() {
  const DeviceInfo& info = current_device();
  return {info.target(), info.name};
}

Dtype dtype_of(coalesce_dtype d) {
  switch (d) {
    case COALESCE_F32: return Dtype::f32;
    case COALESCE_TF32: return Dtype::tf32;
    case COALESCE_BF16: return Dtype::bf16;
    case COALESCE_F16: return Dtype::f16;
  }
  throw Refusal(COALESCE_INVALID_ARGUMENT,
                "dtype " + std::to_string(static_cast<int>(d)) + " is not COALESCE_F32, _TF32, _BF16 or _F16");
}

Epilogue epilogue_of(const char* name) {
  if (!name) throw Refusal(COALESCE_INVALID_ARGUMENT, "the epilogue is a null string");
  const auto e = parse_epilogue(name);
  if (!e) {
    std::string known;
    for (Epilogue x : all_epilogues()) known += (known.empty() ? "" : ", ") + std::string(to_string(x));
    throw Refusal(COALESCE_INVALID_ARGUMENT, "unknown epilogue '" + std::string(name) + "' (known: " + known + ")");
  }
  return *e;
}

// A config name given by the caller, which must be for the call's dtype and epilogue.
Config named_config(const char* name, Dtype dtype, Epilogue epilogue) {
  const auto named = parse_config_name(name);
  if (!named)
    throw Refusal(COALESCE_INVALID_ARGUMENT, "config '" + std::string(name) +
                                                 "' is not the name of a config of any family (" + family_names() +
                                                 ")");
  if (named->dtype != dtype || named->epilogue != epilogue)
    throw Refusal(COALESCE_INVALID_ARGUMENT, "config '" + std::string(name) + "' is for " +
                                                 std::string(to_string(named->dtype)) + " " +
                                                 std::string(to_string(named->epilogue)) + ", the call for " +
                                                 std::string(to_string(dtype)) + " " +
                                                 std::string(to_string(epilogue)));
  return named->config;
}

// The best known config for `problem` on this device: the tuning table's fastest legal row,
// else the families' built-in configs in registration order, the first legal one (what
// coalesce-apply-tile-config's fallback picks at compile time).
Config best_known_config(const Problem& problem, const DeviceFacts& device) {
  {
    std::shared_lock lock(tuning().mutex);
    for (const TuningRow* row : tuning().table.candidates(device.name, problem)) {
      const auto named = parse_config_name(row->config_name);
      if (named && fits(named->config, problem, device.target).ok()) return named->config;
    }
  }
  for (const Family* family : families())
    for (const Config& config : family->builtin_configs(problem))
      if (fits(config, problem, device.target).ok()) return config;
  // Where families cannot run the epilogue at all (a residual, a gate), their reasons say why.
  std::string reasons;
  for (const Family* family : families())
    if (Verdict v = supports_epilogue(*family, problem); !v.ok())
      reasons += "; " + std::string(family->name()) + ": " + v.why;
  throw Refusal(COALESCE_NO_CONFIG, "no config of any family (" + family_names() + ") is legal for " +
                                        shape_string(problem) + " " + std::string(to_string(problem.dtype)) +
                                        " " + std::string(to_string(problem.epilogue)) + " on " + device.name +
                                        reasons);
}

std::filesystem::path kernel_cache_dir() {
  if (const char* dir = std::getenv("COALESCE_KERNEL_CACHE"); dir && *dir) return dir;
  if (auto dir = tuner::default_cache_dir()) return *dir;
  return std::filesystem::temp_directory_path() / "coalesce-kernels";
}

// The CUDA source of a config's kernel: its family's template and definition, in the text the
// compiler emits for it (compiler/lib/Target/CudaEmitter.cpp, --mlir-to-cuda, which the tuner
// compiles), so the kernel cache's key is the tuner's and a config it measured is a cache hit.
std::string kernel_source(const Config& config, Dtype dtype, Epilogue epilogue, const std::string& symbol) {
  const Family* family = find_family(config.family);
  return "// Generated by coalesce-translate --mlir-to-cuda from the coalesce dialect.\n#include \"" +
         std::string(family->kernel_header()) + "\"\n\n" + family->define_kernel(config, dtype, epilogue, symbol) +
         "\n";
}

// The kernel handle of `config` (whose kernel is kernel_config(config), named `symbol`),
// loading a registered image or compiling with NVRTC on first use. Called with the registry
// locked.
const void* kernel_of(Registry& r, const LaunchPlan& plan, const std::string& symbol, const Target& target) {
  KernelSlot& slot = r.kernels[symbol];
  if (!slot.handle()) {
    if (!slot.image.empty()) {
      slot.loaded = std::make_unique<CubinKernel>(slot.image.data(), slot.image.size(), symbol);
      slot.image.clear();
    } else {
      const std::string arch = plan.family->nvrtc_arch(target);
      auto& jit = r.jits[arch];
      if (!jit) jit = std::make_unique<tuner::Jit>(kernel_cache_dir(), arch);
      const Config kernel = kernel_config(plan.config);
      const tuner::CompileResult compiled =
          jit->compile(symbol, kernel_source(kernel, plan.problem.dtype, plan.problem.epilogue, symbol));
      if (!compiled.ok)
        throw Refusal(COALESCE_COMPILE_ERROR, "NVRTC could not compile " + symbol + " for " + arch + ": " +
                                                  compiled.log.substr(0, 2000));
      std::ifstream in(compiled.cubin_path, std::ios::binary);
      std::vector<char> cubin((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      if (cubin.empty())
        throw Refusal(COALESCE_COMPILE_ERROR, "the kernel cache's cubin " + compiled.cubin_path.string() +
                                                  " of " + symbol + " could not be read");
      slot.loaded = std::make_unique<CubinKernel>(cubin.data(), cubin.size(), symbol);
    }
  }
  // Once per kernel for its shared memory; once per problem (every prepared launch) for
  // stream-K's residency, which depends on the grid.
  if (!slot.prepared || plan.needs_residency) prepare_kernel(plan, slot.handle(), target);
  slot.prepared = true;
  return slot.handle();
}

// Frees the workspace on the stream however the launch ends.
struct PoolWorkspace {
  void* data = nullptr;
  cudaStream_t stream = nullptr;
  ~PoolWorkspace() {
    if (data) cudaFreeAsync(data, stream);
  }
};

// A call's config, plan and kernel, which depend only on the device, the config asked for
// (or none) and the problem: prepared once and kept, so a repeated call costs a map lookup
// instead of the choice, the plan and the registry (the runtime's host time per call).
struct PreparedLaunch {
  LaunchPlan plan;
  const void* kernel = nullptr;
};
struct PreparedKey {
  int device;
  std::string config;  // "" for the best known one
  int m, n, k;
  Dtype dtype;
  Epilogue epilogue;
  long long lda, ldb, ldc;  // RowStrides (0: contiguous)
  bool operator<(const PreparedKey& o) const {
    return std::tie(device, config, m, n, k, dtype, epilogue, lda, ldb, ldc) <
           std::tie(o.device, o.config, o.m, o.n, o.k, o.dtype, o.epilogue, o.lda, o.ldb, o.ldc);
  }
};
struct PreparedCache {
  std::shared_mutex mutex;
  std::map<PreparedKey, std::shared_ptr<const PreparedLaunch>> entries;
};
PreparedCache& prepared_cache() {
  static PreparedCache c;
  return c;
}
// What a new tuning table or cubin changes: the choice or the kernel of later calls.
void forget_prepared_launches() {
  std::unique_lock lock(prepared_cache().mutex);
  prepared_cache().entries.clear();
}

std::shared_ptr<const PreparedLaunch> prepare(const Problem& problem, const RowStrides& strides,
                                              const char* config_name_or_null) {
  std::optional<Config> named;
  if (config_name_or_null) {
    named = named_config(config_name_or_null, problem.dtype, problem.epilogue);
    // The config's rules on the problem need no device, so they are judged before one is asked for.
    const Family* family = find_family(named->family);
    for (const Verdict v :
         {family->check(*named), supports_epilogue(*family, problem), family->check_problem(*named, problem)})
      if (!v.ok())
        throw Refusal(COALESCE_INVALID_ARGUMENT, "config '" + std::string(config_name_or_null) +
                                                     "' cannot run " + shape_string(problem) + " (" +
                                                     violation_name(v.violation) + "): " + v.why);
  }
  register_builtin_kernels();
  const DeviceFacts device = device_facts();
  const Config config = named ? *named : best_known_config(problem, device);
  if (named)
    if (Verdict v = fits(config, problem, device.target); !v.ok())
      throw Refusal(COALESCE_INVALID_ARGUMENT, "config '" + std::string(config_name_or_null) +
                                                   "' cannot run " + shape_string(problem) + " on " + device.name +
                                                   " (" + violation_name(v.violation) + "): " + v.why);
  auto prepared = std::make_shared<PreparedLaunch>();
  try {
    prepared->plan = plan_launch(config, problem, device.target, strides);
  } catch (const std::invalid_argument& e) {
    throw Refusal(COALESCE_INVALID_ARGUMENT, e.what());
  }
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  // The config's own kernel where one was registered under its name, else its kernel config's
  // (split factors above 1 share one kernel; kernels/core/family.hpp kernel_config).
  std::string symbol = prepared->plan.name;
  if (auto it = r.kernels.find(symbol); it == r.kernels.end() || (!it->second.handle() && it->second.image.empty()))
    symbol = config_name(kernel_config(config), problem.dtype, problem.epilogue);
  prepared->kernel = kernel_of(r, prepared->plan, symbol, device.target);
  return prepared;
}

std::shared_ptr<const PreparedLaunch> prepared_launch(const Problem& problem, const RowStrides& strides,
                                                       const char* config_name_or_null) {
  int device = -1;
  if (cudaGetDevice(&device) != cudaSuccess) {
    cudaGetLastError();  // no device: prepare() judges the config, then says so
    return prepare(problem, strides, config_name_or_null);
  }
  PreparedKey key{device,        config_name_or_null ? config_name_or_null : "",
                  problem.m,     problem.n,
                  problem.k,     problem.dtype,
                  problem.epilogue, strides.a,
                  strides.b,     strides.c};
  PreparedCache& cache = prepared_cache();
  {
    std::shared_lock lock(cache.mutex);
    if (auto it = cache.entries.find(key); it != cache.entries.end()) return it->second;
  }
  std::shared_ptr<const PreparedLaunch> prepared = prepare(problem, strides, config_name_or_null);
  std::unique_lock lock(cache.mutex);
  cache.entries.emplace(std::move(key), prepared);
  return prepared;
}

void fused_matmul(const CoalesceMemRef2D* ad, const CoalesceMemRef2D* bd, const CoalesceMemRef1D* biasd,
                  const CoalesceMemRef2D* residuald, const CoalesceMemRef2D* cd, coalesce_dtype dtype_code,
                  const char* epilogue_name, const char* config_name_or_null, void* stream_handle) {
  // Everything about the call is checked before the device is touched.
  const Dtype dtype = dtype_of(dtype_code);
  const Epilogue epilogue = epilogue_of(epilogue_name);
  const EpilogueReads reads = epilogue_spec(epilogue).reads;
  const GemmTypes types = gemm_types(dtype);
  // A, B and C may be row slices of wider matrices (rows further apart than their width): the
  // launch copies them through contiguous rows (Staging, kernels/core/family.hpp).
  const Matrix a = matrix("A", ad, element_bytes(types.a), /*strided_rows=*/true);
  const Matrix b = matrix("B", bd, element_bytes(types.b), /*strided_rows=*/true);
  const Matrix c = matrix("C", cd, element_bytes(types.c), /*strided_rows=*/true);
  if (a.cols != b.rows)
    throw Refusal(COALESCE_INVALID_ARGUMENT, "A is " + shape(a.rows, a.cols) + " but B is " + shape(b.rows, b.cols));
  // A gated epilogue's B holds gate and up columns interleaved and its C half as many columns.
  if (reads.gated && b.cols % 2 != 0)
    throw Refusal(COALESCE_INVALID_ARGUMENT, "the " + std::string(to_string(epilogue)) + " epilogue needs B's gate and up columns interleaved, an even N, but B is " + shape(b.rows, b.cols));
  const long long c_cols = output_columns(reads, b.cols);
  if (c.rows != a.rows || c.cols != c_cols)
    throw Refusal(COALESCE_INVALID_ARGUMENT, "C is " + shape(c.rows, c.cols) + ", not " + shape(a.rows, c_cols) +
                                                 (reads.gated ? " (a gated epilogue writes N/2 columns)" : ""));
  const void* bias = nullptr;
  if (reads.column_bias != (biasd != nullptr))
    throw Refusal(COALESCE_INVALID_ARGUMENT, "the " + std::string(to_string(epilogue)) + " epilogue " +
                                                 (biasd ? "takes no bias, but one was given"
                                                        : "needs a bias, but none was given"));
  if (biasd) {
    const Vector v = vector("bias", biasd, element_bytes(types.bias));
    if (v.size != b.cols)
      throw Refusal(COALESCE_INVALID_ARGUMENT,
                    "the bias has " + std::to_string(v.size) + " entries, not N = " + std::to_string(b.cols));
    bias = v.data;
  }
  const void* residual = nullptr;
  if (reads.residual != (residuald != nullptr))
    throw Refusal(COALESCE_INVALID_ARGUMENT, "the " + std::string(to_string(epilogue)) + " epilogue " +
                                                 (residuald ? "takes no residual, but one was given"
                                                            : "needs an M x N residual (coalesce_fused_matmul_residual), "
                                                              "but none was given"));
  if (residuald) {
    // The kernels read R[m][n] through a restrict pointer while they write C[m][n].
    const Matrix r = matrix("the residual", residuald, element_bytes(types.c));
    if (r.rows != c.rows || r.cols != c.cols)
      throw Refusal(COALESCE_INVALID_ARGUMENT,
                    "the residual is " + shape(r.rows, r.cols) + ", not C's " + shape(c.rows, c.cols));
    if (r.data == c.data && c.rows > 0 && c.cols > 0)
      throw Refusal(COALESCE_INVALID_ARGUMENT, "the residual is C itself; the kernels read it while they write C");
    residual = r.data;
  }
  const Problem problem{a.rows, b.cols, a.cols, dtype, epilogue};
  if (problem.m == 0 || problem.n == 0) return;
  if (problem.k == 0)
    throw Refusal(COALESCE_INVALID_ARGUMENT, "K is 0: A is " + shape(a.rows, a.cols) + " (a product needs K >= 1)");
  // Strides only where rows are further apart than their width (0: contiguous, nothing staged).
  auto apart = [](const Matrix& x) { return x.rows > 1 && x.stride != x.cols ? x.stride : 0LL; };
  const RowStrides strides{apart(a), apart(b), apart(c)};
  const std::shared_ptr<const PreparedLaunch> prepared = prepared_launch(problem, strides, config_name_or_null);
  const LaunchPlan& plan = prepared->plan;

  const auto stream = static_cast<cudaStream_t>(stream_handle);
  PoolWorkspace workspace{nullptr, stream};
  if (plan.workspace_bytes > 0) {
    keep_pool_memory();
    const cudaError_t status = cudaMallocAsync(&workspace.data, static_cast<std::size_t>(plan.workspace_bytes), stream);
    if (status != cudaSuccess)
      throw Refusal(COALESCE_CUDA_ERROR, "cudaMallocAsync of " + plan.name + "'s workspace (" +
                                             std::to_string(plan.workspace_bytes) +
                                             " bytes) failed: " + cudaGetErrorString(status));
    zero_workspace(plan, workspace.data, stream);
  }
  const BoundLaunch launch(plan, prepared->kernel,
                           LaunchBuffers{a.data, b.data, bias, c.data, workspace.data, residual});
  launch.enqueue(stream);
}

}  // namespace

std::string best_known_config_name(const Problem& problem) {
  return config_name(best_known_config(problem, device_facts()), problem.dtype, problem.epilogue);
}

void register_kernel(const std::string& config, const void* kernel) {
  {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    KernelSlot& slot = r.kernels[config];
    slot.compiled_in = kernel;
    slot.prepared = false;
  }
  forget_prepared_launches();
}

void exit_on_failure(const char* entry, coalesce_status status) {
  if (status == COALESCE_OK) return;
  std::fprintf(stderr, "coalesce runtime: %s: %s\n", entry, coalesce_last_error());
  std::exit(1);
}

void run_emitted_entry(const char* entry, const char* config, const void* kernel, const CoalesceMemRef2D* a,
                       const CoalesceMemRef2D* b, const CoalesceMemRef1D* bias, const CoalesceMemRef2D* c) {
  const auto named = parse_config_name(config);
  if (!named) {
    t_last_error = "the kernel's symbol '" + std::string(config) + "' is not a config name";
    exit_on_failure(entry, COALESCE_INVALID_ARGUMENT);
  }
  // Once per name: the registry keeps the first handle (the emitted unit's kernel).
  static std::mutex mutex;
  static std::set<std::string> registered;
  {
    std::lock_guard lock(mutex);
    if (registered.insert(config).second) register_kernel(config, kernel);
  }
  exit_on_failure(entry, coalesce_fused_matmul(a, b, bias, c, static_cast<coalesce_dtype>(named->dtype),
                                               std::string(to_string(named->epilogue)).c_str(), config, nullptr));
}

}  // namespace coalesce::runtime

namespace {

// Runs `body`, turning what it throws into a status and the thread's message.
template <class F>
coalesce_status guarded(F&& body) {
  using coalesce::runtime::t_last_error;
  try {
    body();
    t_last_error.clear();
    return COALESCE_OK;
  } catch (const coalesce::runtime::Refusal& e) {
    t_last_error = e.what();
    return e.status();
  } catch (const coalesce::NoDeviceError& e) {
    t_last_error = e.what();
    return COALESCE_CUDA_ERROR;
  } catch (const coalesce::CudaError& e) {
    t_last_error = e.what();
    return COALESCE_CUDA_ERROR;
  } catch (const std::invalid_argument& e) {  // the launch contract refused the operands (a tensor map)
    t_last_error = e.what();
    return COALESCE_INVALID_ARGUMENT;
  } catch (const std::exception& e) {
    t_last_error = std::string("internal error: ") + e.what();
    return COALESCE_CUDA_ERROR;
  }
}

}  // namespace

// Dtype's and coalesce_dtype's values are one numbering (the conversion above relies on it).
static_assert(static_cast<int>(coalesce::Dtype::f32) == COALESCE_F32 &&
              static_cast<int>(coalesce::Dtype::tf32) == COALESCE_TF32 &&
              static_cast<int>(coalesce::Dtype::bf16) == COALESCE_BF16 &&
              static_cast<int>(coalesce::Dtype::f16) == COALESCE_F16);

extern "C" {

coalesce_status coalesce_fused_matmul(const CoalesceMemRef2D* a, const CoalesceMemRef2D* b,
                                      const CoalesceMemRef1D* bias, const CoalesceMemRef2D* c, coalesce_dtype dtype,
                                      const char* epilogue, const char* config, void* stream) {
  return guarded([&] { coalesce::runtime::fused_matmul(a, b, bias, nullptr, c, dtype, epilogue, config, stream); });
}

coalesce_status coalesce_fused_matmul_residual(const CoalesceMemRef2D* a, const CoalesceMemRef2D* b,
                                               const CoalesceMemRef1D* bias, const CoalesceMemRef2D* residual,
                                               const CoalesceMemRef2D* c, coalesce_dtype dtype, const char* epilogue,
                                               const char* config, void* stream) {
  return guarded([&] { coalesce::runtime::fused_matmul(a, b, bias, residual, c, dtype, epilogue, config, stream); });
}

coalesce_status coalesce_register_cubin(const char* config, coalesce_dtype dtype, const char* epilogue,
                                        const void* image, size_t bytes) {
  using namespace coalesce::runtime;
  return guarded([&] {
    if (!config) throw Refusal(COALESCE_INVALID_ARGUMENT, "the config name is a null string");
    named_config(config, dtype_of(dtype), epilogue_of(epilogue));
    if (!image || bytes == 0) throw Refusal(COALESCE_INVALID_ARGUMENT, "the cubin of " + std::string(config) + " is empty");
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    KernelSlot& slot = r.kernels[config];
    if (slot.loaded)
      throw Refusal(COALESCE_INVALID_ARGUMENT,
                    "config " + std::string(config) + "'s kernel is already loaded; its cubin cannot be replaced");
    slot.image.assign(static_cast<const char*>(image), static_cast<const char*>(image) + bytes);
    forget_prepared_launches();
  });
}

coalesce_status coalesce_load_tuning_table(const char* path) {
  using namespace coalesce::runtime;
  return guarded([&] {
    if (!path) throw Refusal(COALESCE_INVALID_ARGUMENT, "the tuning table's path is a null string");
    std::ifstream in(path, std::ios::binary);
    if (!in || std::filesystem::is_directory(path))
      throw Refusal(COALESCE_INVALID_ARGUMENT, "cannot read the tuning table " + std::string(path));
    std::ostringstream text;
    text << in.rdbuf();
    TuningTable table;
    try {
      table = parse_tuning_table(text.str(), path);
    } catch (const std::invalid_argument& e) {
      throw Refusal(COALESCE_INVALID_ARGUMENT, e.what());
    }
    {
      std::unique_lock lock(tuning().mutex);
      tuning().table = std::move(table);
    }
    forget_prepared_launches();
  });
}

const char* coalesce_last_error(void) { return coalesce::runtime::t_last_error.c_str(); }

}  // extern "C"
