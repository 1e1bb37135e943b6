// coalesce::linear on CUDA: one coalesce_fused_matmul call of the runtime (compiler/runtime/
// coalesce_runtime.h) on the current stream, with the tuning table's config for the shape
// (ops.hpp). Nothing here allocates but the output (PyTorch's caching allocator) or synchronizes,
// so a call can be captured in a CUDA graph; the runtime's workspace is stream-ordered. The host
// time per call is the point of this file: descriptors are made from the tensors' sizes and
// strides with no view tensor, and the config lookup builds no string (docs/pytorch.md, "Host
// time per call").
#include <ATen/ATen.h>
#include <ATen/Context.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/library.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "compiler/runtime/coalesce_runtime.h"
#include "ops.hpp"

namespace coalesce::torch_ops {
namespace {

/// The runtime's dtype for a tensor's, with the tuning table's name for it (a literal): f32
/// storage computes as TF32 when PyTorch allows it for matmuls
/// (torch.backends.cuda.matmul.allow_tf32), as torch.mm would.
coalesce_dtype runtime_dtype(at::ScalarType t, const char** name) {
  switch (t) {
    case at::kBFloat16: *name = "bf16"; return COALESCE_BF16;
    case at::kHalf: *name = "f16"; return COALESCE_F16;
    case at::kFloat:
      if (at::globalContext().allowTF32CuBLAS()) {
        *name = "tf32";
        return COALESCE_TF32;
      }
      *name = "f32";
      return COALESCE_F32;
    default:
      TORCH_CHECK(false, "coalesce.linear on CUDA computes bf16, f16 and f32 (tf32 where allowed), not ", t);
  }
}

/// The device as the tuning table names GPU models, per device index (properties never change).
const tuning::Device& device_of(c10::DeviceIndex index) {
  static std::mutex mutex;
  static std::vector<std::unique_ptr<tuning::Device>> devices;
  std::lock_guard<std::mutex> lock(mutex);
  if (devices.size() <= static_cast<std::size_t>(index)) devices.resize(index + 1);
  if (!devices[index]) {
    const cudaDeviceProp* p = at::cuda::getDeviceProperties(index);
    devices[index] = std::make_unique<tuning::Device>(tuning::Device{p->name, p->multiProcessorCount});
  }
  return *devices[index];
}

/// A problem as the per-call lookup keys it: the epilogue by its name's address (the specs'
/// names are literals), so a repeated call's lookup builds no string.
struct ProblemKey {
  c10::DeviceIndex device;
  coalesce_dtype dtype;
  const char* epilogue;
  std::int64_t m, n, k;
  bool operator==(const ProblemKey&) const = default;
};
struct ProblemKeyHash {
  std::size_t operator()(const ProblemKey& p) const {
    std::size_t h = std::hash<const void*>()(p.epilogue);
    for (std::int64_t v : {std::int64_t{p.device}, std::int64_t{p.dtype}, p.m, p.n, p.k})
      h ^= std::hash<std::int64_t>()(v) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h;
  }
};

/// choose_config's answers by ProblemKey, dropped whenever the table's generation moves (a new
/// table, a refused config). The config name is shared, not copied, per call.
std::shared_ptr<const std::string> config_for(const ProblemKey& key, const char* dtype_name) {
  static std::mutex mutex;
  static std::uint64_t generation = ~std::uint64_t{0};
  static std::unordered_map<ProblemKey, std::shared_ptr<const std::string>, ProblemKeyHash> choices;
  std::lock_guard<std::mutex> lock(mutex);
  if (const std::uint64_t now = table_generation(); now != generation) {
    choices.clear();
    generation = now;
  }
  if (auto it = choices.find(key); it != choices.end()) return it->second;
  const ConfigChoice c = choose_config(device_of(key.device), dtype_name, key.epilogue, key.m, key.n, key.k);
  auto config = c.config.empty() ? nullptr : std::make_shared<const std::string>(c.config);
  choices.emplace(key, config);
  return config;
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

/// A matrix as the runtime reads it: row-major contiguous (compiler/runtime/runtime.cu, matrix())
/// and 16-byte aligned. The descriptor of `t`'s data viewed as rows × cols with these strides
/// when it is so, with no tensor made; else of a contiguous copy kept in `*copy` (a transposed,
/// sliced or misaligned view pays one copy per call; the caching allocator's blocks are aligned).
CoalesceMemRef2D runtime_matrix(const at::Tensor& t, int64_t rows, int64_t cols, int64_t row_stride,
                                int64_t col_stride, at::Tensor* copy) {
  CoalesceMemRef2D d{};
  void* data = t.data_ptr();
  const bool row_major = (cols <= 1 || col_stride == 1) && (rows <= 1 || row_stride == cols);
  if (row_major) {  // a size-1 dimension's stride is free in PyTorch; the runtime checks the canonical one
    row_stride = cols;
    col_stride = 1;
  }
  if (!(row_major && aligned16(data))) {
    *copy = t.as_strided({rows, cols}, {row_stride, col_stride}).clone(at::MemoryFormat::Contiguous);
    data = copy->data_ptr();
    row_stride = cols;
    col_stride = 1;
  }
  d.allocated = d.aligned = data;
  d.offset = 0;
  d.sizes[0] = rows;
  d.sizes[1] = cols;
  d.strides[0] = row_stride;
  d.strides[1] = col_stride;
  return d;
}

/// A[M, K]: x's leading dims flattened. With no copy when x is contiguous (the common case);
/// else through reshape (a view where one exists), then as runtime_matrix.
CoalesceMemRef2D operand_a(const at::Tensor& x, int64_t k, at::Tensor* copy) {
  if (x.is_contiguous()) return runtime_matrix(x, x.numel() / k, k, k, 1, copy);
  const at::Tensor rows = x.reshape({-1, k});
  return runtime_matrix(rows, rows.size(0), k, rows.stride(0), rows.stride(1), copy);
}

/// B[K, N] = weight^T of weight [N, K]: no copy when weight is stored transposed (coalesce.fuse
/// keeps it so), else one copy per call.
CoalesceMemRef2D operand_b(const at::Tensor& weight, at::Tensor* copy) {
  return runtime_matrix(weight, weight.size(1), weight.size(0), weight.stride(1), weight.stride(0), copy);
}

/// The bias as the runtime reads it: its own data when contiguous and 16-byte aligned, else a
/// contiguous copy kept in `*copy`.
CoalesceMemRef1D bias_vector(const at::Tensor& b, at::Tensor* copy) {
  void* data = b.data_ptr();
  if (!(b.stride(0) == 1 && aligned16(data))) {
    *copy = b.clone(at::MemoryFormat::Contiguous);
    data = copy->data_ptr();
  }
  CoalesceMemRef1D d{};
  d.allocated = d.aligned = data;
  d.sizes[0] = b.size(0);
  d.strides[0] = 1;
  return d;
}

/// The output [..., N] (x's leading dims) and its descriptor as C[M, N], row-major.
at::Tensor output(const at::Tensor& x, int64_t m, int64_t n, CoalesceMemRef2D* cd) {
  at::DimVector shape(x.sizes());
  shape.back() = n;
  at::Tensor c = at::empty(shape, x.options());
  *cd = CoalesceMemRef2D{};
  cd->allocated = cd->aligned = c.data_ptr();
  cd->sizes[0] = m;
  cd->sizes[1] = n;
  cd->strides[0] = n;
  cd->strides[1] = 1;
  return c;
}

/// One coalesce_fused_matmul of the problem with the tuning table's config for it; when the runtime
/// refuses that config for this shape (a nearest shape's config that does not fit: docs/pytorch.md)
/// the built-in default, and that problem gets the default from then on if it runs. `op` names
/// the op in messages; `epilogue` is an EpilogueSpec's or GatedSpec's name (a literal). Throws
/// c10::Error with the runtime's message on failure.
void run_fused(const char* op, const CoalesceMemRef2D& ad, const CoalesceMemRef2D& bd, const CoalesceMemRef1D* biasd,
               const CoalesceMemRef2D& cd, coalesce_dtype dtype, const char* dtype_name, const char* epilogue,
               int64_t m, int64_t n, int64_t k, c10::DeviceIndex device) {
  const std::shared_ptr<const std::string> config = config_for({device, dtype, epilogue, m, n, k}, dtype_name);
  void* stream = at::cuda::getCurrentCUDAStream(device).stream();
  coalesce_status status =
      coalesce_fused_matmul(&ad, &bd, biasd, &cd, dtype, epilogue, config ? config->c_str() : nullptr, stream);
  if (config && (status == COALESCE_INVALID_ARGUMENT || status == COALESCE_NO_CONFIG)) {
    debug_log(std::string(op) + " " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) +
              ": config " + *config + " refused (" + coalesce_last_error() + "); the built-in default");
    status = coalesce_fused_matmul(&ad, &bd, biasd, &cd, dtype, epilogue, nullptr, stream);
    if (status == COALESCE_OK) mark_refused(device_of(device), dtype_name, epilogue, m, n, k);
  }
  TORCH_CHECK(status == COALESCE_OK, "coalesce.", op, ": ", m, "x", n, "x", k, " ", dtype_name, " ", epilogue,
              ": the runtime failed (status ", static_cast<int>(status), "): ", coalesce_last_error());
}

/// One coalesce::linear call made ready for the runtime: its descriptors, the copies they may
/// point into, and the output they write. What linear_cuda and the host probe share.
struct LinearCall {
  const EpilogueSpec* spec;
  coalesce_dtype dtype;
  const char* dtype_name;
  int64_t m, n, k;
  at::Tensor a_copy, b_copy, bias_copy, c;
  CoalesceMemRef2D ad, bd, cd;
  CoalesceMemRef1D biasd;
  const CoalesceMemRef1D* bias() const { return spec->bias ? &biasd : nullptr; }
};

/// Checks the arguments and prepares the call; false (and nothing prepared but spec) when there is
/// nothing to multiply (a zero extent), which eager answers.
bool prepare_linear(const at::Tensor& x, const at::Tensor& weight, const std::optional<at::Tensor>& bias,
                    std::string_view epilogue, LinearCall* call) {
  call->spec = &check_linear(x, weight, bias, epilogue);
  call->dtype = runtime_dtype(x.scalar_type(), &call->dtype_name);
  call->k = weight.size(1);
  call->n = weight.size(0);
  if (call->k == 0 || x.numel() == 0 || call->n == 0) return false;
  call->ad = operand_a(x, call->k, &call->a_copy);
  call->bd = operand_b(weight, &call->b_copy);
  call->m = call->ad.sizes[0];
  call->c = output(x, call->m, call->n, &call->cd);
  call->biasd = call->spec->bias ? bias_vector(*bias, &call->bias_copy) : CoalesceMemRef1D{};
  return true;
}

at::Tensor linear_cuda(const at::Tensor& x, const at::Tensor& weight, const std::optional<at::Tensor>& bias,
                       std::string_view epilogue) {
  const c10::cuda::CUDAGuard guard(x.device());
  LinearCall call;
  if (!prepare_linear(x, weight, bias, epilogue, &call)) return linear_eager(x, weight, bias, *call.spec);
  run_fused("linear", call.ad, call.bd, call.bias(), call.cd, call.dtype, call.dtype_name, call.spec->name.data(),
            call.m, call.n, call.k, x.get_device());
  return call.c;
}

/// coalesce::gated_linear on CUDA: one GEMM over the interleaved gate/up weight whose gated
/// epilogue writes act(gate) * up, [M, I] (the runtime's `swiglu` / `geglu`, C of N/2 columns).
at::Tensor gated_linear_cuda(const at::Tensor& x, const at::Tensor& weight, std::string_view epilogue) {
  const GatedSpec& spec = check_gated_linear(x, weight, epilogue);
  const c10::cuda::CUDAGuard guard(x.device());
  const char* dtype_name = nullptr;
  const coalesce_dtype dtype = runtime_dtype(x.scalar_type(), &dtype_name);
  const int64_t k = weight.size(1), n = weight.size(0);
  if (k == 0 || x.numel() == 0 || n == 0) return gated_linear_eager(x, weight, spec);  // nothing to multiply
  at::Tensor a_copy, b_copy;
  // B [in, 2·I]: each gate column beside its up column.
  const CoalesceMemRef2D ad = operand_a(x, k, &a_copy), bd = operand_b(weight, &b_copy);
  const int64_t m = ad.sizes[0];
  CoalesceMemRef2D cd;
  at::Tensor c = output(x, m, n / 2, &cd);
  run_fused("gated_linear", ad, bd, nullptr, cd, dtype, dtype_name, spec.name.data(), m, n, k, x.get_device());
  return c;
}

/// coalesce::_host_us: the host time of one call, in µs, of the CUDA kernel of coalesce::linear
/// called from C++ (no Python, no dispatcher) and of its runtime call alone on the same
/// descriptors, each the mean of `calls` calls (python/bench/bench_mlp.py keeps the GPU busy
/// meanwhile, so no call waits for it). With the full call's time from Python it splits the op's
/// host time into the dispatcher's, the op's own work and the runtime's (docs/pytorch.md).
std::vector<double> host_us(const at::Tensor& x, const at::Tensor& weight, const std::optional<at::Tensor>& bias,
                            std::string_view epilogue, int64_t calls) {
  TORCH_CHECK(calls >= 1, "coalesce._host_us: calls must be at least 1, got ", calls);
  using clock = std::chrono::steady_clock;
  const auto us_per_call = [calls](clock::time_point t0) {
    return std::chrono::duration<double, std::micro>(clock::now() - t0).count() / static_cast<double>(calls);
  };
  at::Tensor y = linear_cuda(x, weight, bias, epilogue);  // the first call prepares the kernel
  auto t0 = clock::now();
  for (int64_t i = 0; i < calls; ++i) y = linear_cuda(x, weight, bias, epilogue);
  const double op_us = us_per_call(t0);

  const c10::cuda::CUDAGuard guard(x.device());
  LinearCall call;
  TORCH_CHECK(prepare_linear(x, weight, bias, epilogue, &call), "coalesce._host_us: a zero extent runs no kernel");
  const std::shared_ptr<const std::string> config =
      config_for({x.get_device(), call.dtype, call.spec->name.data(), call.m, call.n, call.k}, call.dtype_name);
  void* stream = at::cuda::getCurrentCUDAStream(x.get_device()).stream();
  const char* name = config ? config->c_str() : nullptr;
  t0 = clock::now();
  for (int64_t i = 0; i < calls; ++i)
    TORCH_CHECK(coalesce_fused_matmul(&call.ad, &call.bd, call.bias(), &call.cd, call.dtype, call.spec->name.data(),
                                      name, stream) == COALESCE_OK,
                "coalesce._host_us: ", coalesce_last_error());
  return {op_us, us_per_call(t0)};
}

}  // namespace
}  // namespace coalesce::torch_ops

TORCH_LIBRARY_IMPL(coalesce, CUDA, m) {
  m.impl("linear", &coalesce::torch_ops::linear_cuda);
  m.impl("gated_linear", &coalesce::torch_ops::gated_linear_cuda);
  m.impl("_host_us", &coalesce::torch_ops::host_us);
}
