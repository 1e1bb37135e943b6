// coalesce::linear on CUDA: one coalesce_fused_matmul call of the runtime (compiler/runtime/
// coalesce_runtime.h) on the current stream, with the tuning table's config for the shape
// (ops.hpp). Nothing here allocates but the output (PyTorch's caching allocator) or synchronizes,
// so a call can be captured in a CUDA graph; the runtime's workspace is stream-ordered.
#include <ATen/ATen.h>
#include <ATen/Context.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/library.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "compiler/runtime/coalesce_runtime.h"
#include "ops.hpp"

namespace coalesce::torch_ops {
namespace {

/// The runtime's dtype for a tensor's: f32 storage computes as TF32 when PyTorch allows it for
/// matmuls (torch.backends.cuda.matmul.allow_tf32), as torch.mm would.
coalesce_dtype runtime_dtype(at::ScalarType t, std::string* name) {
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

CoalesceMemRef2D memref(const at::Tensor& t) {
  CoalesceMemRef2D d{};
  d.allocated = d.aligned = t.data_ptr();
  d.offset = 0;
  d.sizes[0] = t.size(0);
  d.sizes[1] = t.size(1);
  d.strides[0] = t.stride(0);
  d.strides[1] = t.stride(1);
  return d;
}

bool aligned16(const at::Tensor& t) { return reinterpret_cast<std::uintptr_t>(t.data_ptr()) % 16 == 0; }

/// A matrix as the runtime takes it, rows contiguous and the first 16-byte aligned: `t` itself
/// when it is so, else a contiguous copy (a transposed or sliced view pays one copy per call;
/// the caching allocator's blocks are aligned).
at::Tensor runtime_matrix(const at::Tensor& t) {
  const bool rows_contiguous = t.stride(1) == 1 && t.stride(0) >= t.size(1);
  return rows_contiguous && aligned16(t) ? t : t.clone(at::MemoryFormat::Contiguous);
}

at::Tensor runtime_vector(const at::Tensor& t) {
  return t.is_contiguous() && aligned16(t) ? t : t.clone(at::MemoryFormat::Contiguous);
}

/// One coalesce_fused_matmul of the problem with the tuning table's config for it; when the runtime
/// refuses that config for this shape (a nearest shape's config that does not fit: docs/pytorch.md)
/// the built-in default, and that problem gets the default from then on if it runs. `op` names
/// the op in messages. Throws c10::Error with the runtime's message on failure.
void run_fused(const char* op, const CoalesceMemRef2D& ad, const CoalesceMemRef2D& bd, const CoalesceMemRef1D* biasd,
               const CoalesceMemRef2D& cd, coalesce_dtype dtype, const std::string& dtype_name,
               const std::string& epilogue_name, int64_t m, int64_t n, int64_t k, const at::Tensor& x) {
  const tuning::Device& device = device_of(x.get_device());
  const ConfigChoice choice = choose_config(device, dtype_name, epilogue_name, m, n, k);
  void* stream = at::cuda::getCurrentCUDAStream(x.get_device()).stream();
  coalesce_status status = coalesce_fused_matmul(&ad, &bd, biasd, &cd, dtype, epilogue_name.c_str(),
                                                 choice.config.empty() ? nullptr : choice.config.c_str(), stream);
  if (!choice.config.empty() && (status == COALESCE_INVALID_ARGUMENT || status == COALESCE_NO_CONFIG)) {
    debug_log(std::string(op) + " " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) +
              ": config " + choice.config + " refused (" + coalesce_last_error() + "); the built-in default");
    status = coalesce_fused_matmul(&ad, &bd, biasd, &cd, dtype, epilogue_name.c_str(), nullptr, stream);
    if (status == COALESCE_OK) mark_refused(device, dtype_name, epilogue_name, m, n, k);
  }
  TORCH_CHECK(status == COALESCE_OK, "coalesce.", op, ": ", m, "x", n, "x", k, " ", dtype_name, " ", epilogue_name,
              ": the runtime failed (status ", static_cast<int>(status), "): ", coalesce_last_error());
}

at::Tensor linear_cuda(const at::Tensor& x, const at::Tensor& weight, const std::optional<at::Tensor>& bias,
                       std::string_view epilogue) {
  const EpilogueSpec& spec = check_linear(x, weight, bias, epilogue);
  const c10::cuda::CUDAGuard guard(x.device());
  std::string dtype_name;
  const coalesce_dtype dtype = runtime_dtype(x.scalar_type(), &dtype_name);

  const int64_t k = weight.size(1), n = weight.size(0);
  if (k == 0 || x.numel() == 0 || n == 0) return linear_eager(x, weight, bias, spec);  // nothing to multiply
  // A[M, K]: x's leading dims flattened (a view of a contiguous x).
  const at::Tensor a = runtime_matrix(x.reshape({-1, k}));
  const int64_t m = a.size(0);
  // B[K, N] = weight^T: a view with no copy when weight is stored transposed (coalesce.fuse keeps
  // it so), else one copy per call.
  const at::Tensor b = runtime_matrix(weight.t());
  std::vector<int64_t> out_shape(x.sizes().begin(), x.sizes().end());
  out_shape.back() = n;
  at::Tensor c = at::empty({m, n}, x.options());

  const CoalesceMemRef2D ad = memref(a), bd = memref(b), cd = memref(c);
  CoalesceMemRef1D biasd{};
  at::Tensor bias_c;
  if (spec.bias) {
    bias_c = runtime_vector(*bias);
    biasd.allocated = biasd.aligned = bias_c.data_ptr();
    biasd.sizes[0] = bias_c.size(0);
    biasd.strides[0] = 1;
  }
  run_fused("linear", ad, bd, spec.bias ? &biasd : nullptr, cd, dtype, dtype_name, std::string(epilogue), m, n, k,
            x);
  return c.view(out_shape);
}

/// coalesce::gated_linear on CUDA: one GEMM over the interleaved gate/up weight whose gated
/// epilogue writes act(gate) * up, [M, I] (the runtime's `swiglu` / `geglu`, C of N/2 columns).
at::Tensor gated_linear_cuda(const at::Tensor& x, const at::Tensor& weight, std::string_view epilogue) {
  const GatedSpec& spec = check_gated_linear(x, weight, epilogue);
  const c10::cuda::CUDAGuard guard(x.device());
  std::string dtype_name;
  const coalesce_dtype dtype = runtime_dtype(x.scalar_type(), &dtype_name);
  const int64_t k = weight.size(1), n = weight.size(0);
  if (k == 0 || x.numel() == 0 || n == 0) return gated_linear_eager(x, weight, spec);  // nothing to multiply
  const at::Tensor a = runtime_matrix(x.reshape({-1, k}));
  const int64_t m = a.size(0);
  const at::Tensor b = runtime_matrix(weight.t());  // [in, 2·I]: each gate column beside its up column
  std::vector<int64_t> out_shape(x.sizes().begin(), x.sizes().end());
  out_shape.back() = n / 2;
  at::Tensor c = at::empty({m, n / 2}, x.options());
  const CoalesceMemRef2D ad = memref(a), bd = memref(b), cd = memref(c);
  run_fused("gated_linear", ad, bd, nullptr, cd, dtype, dtype_name, std::string(epilogue), m, n, k, x);
  return c.view(out_shape);
}

}  // namespace
}  // namespace coalesce::torch_ops

TORCH_LIBRARY_IMPL(coalesce, CUDA, m) {
  m.impl("linear", &coalesce::torch_ops::linear_cuda);
  m.impl("gated_linear", &coalesce::torch_ops::gated_linear_cuda);
}
