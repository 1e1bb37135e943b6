// The GEMM-then-epilogue method (see epilogue_after.hpp); nvcc compiles the elementwise kernels.
#include "epilogue_after.hpp"

#include "harness/cuda_check.hpp"
#include "harness/dispatch.cuh"
#include "harness/splitk.hpp"
#include "kernels/elementwise.cuh"

namespace coalesce::tuner {

Method then_bias_epilogue(const Method& gemm, Workspace& ws) {
  const Problem& p = ws.problem();
  // As many resident blocks as the SMs hold: the same grid the `unfused` baseline launches.
  const int max_blocks = elementwise_grid_cap();

  Method m = gemm;
  m.method = "coalesce_unfused";
  m.reference_epilogue = p.epilogue;
  m.tanh_reference = false;
  m.kernels = gemm.kernels + (p.epilogue == Epilogue::none ? 0 : 1);
  m.launch = [gemm_launch = gemm.launch, &ws, max_blocks, ctx = describe(m)](cudaStream_t s) {
    const Problem& p = ws.problem();
    gemm_launch(s);
    if (p.epilogue == Epilogue::none) return;
    with_epilogue(p.epilogue, [&](auto epi) {
      with_storage(p.types().c, [&](auto tag) {
        using T = decltype(tag);
        launch_bias_epilogue_inplace<T, decltype(epi)>(static_cast<T*>(ws.c()), static_cast<const T*>(ws.bias()), p.m,
                                                       p.n, max_blocks, s);
      });
    });
    COALESCE_CUDA_CTX(cudaGetLastError(), ctx + " (bias+activation)");
  };
  return m;
}

}  // namespace coalesce::tuner
