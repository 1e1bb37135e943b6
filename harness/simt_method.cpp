// Simt kernels as Methods (see simt_method.hpp).
#include "simt_method.hpp"

#include <stdexcept>
#include <string>

#include "cuda_check.hpp"

namespace coalesce {

LaunchGeometry simt_geometry(const SimtConfig& config, int m, int n) {
  LaunchGeometry g;
  g.grid = dim3(static_cast<unsigned>(simt_grid_blocks(config, m, n)));
  g.block = dim3(static_cast<unsigned>(config.threads()));
  g.smem_bytes = static_cast<std::size_t>(config.smem_bytes());
  return g;
}

Method simt_method(const SimtConfig& config, Epilogue epilogue, const void* kernel, Workspace& ws) {
  const Problem& p = ws.problem();
  const std::string name = config_name(config, p.dtype, epilogue);
  for (const Verdict v : {config.check(), config.check_problem(p.m, p.n, p.k)})
    if (!v.ok()) throw std::invalid_argument(name + ": " + v.why);
  const LaunchGeometry g = simt_geometry(config, p.m, p.n);
  COALESCE_CUDA_CTX(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(g.smem_bytes)),
                    name);
  Method m;
  m.method = "coalesce";
  m.family = "simt";
  m.config = name;
  m.reference_epilogue = epilogue;
  m.launch = [kernel, g, name, a = ws.a(), b = ws.b(), bias = ws.bias(), c = ws.c(), mm = p.m,
              nn = p.n, kk = p.k](cudaStream_t stream) mutable {
    void* args[] = {&a, &b, &bias, &c, &mm, &nn, &kk};
    COALESCE_CUDA_CTX(cudaLaunchKernel(kernel, g.grid, g.block, args, g.smem_bytes, stream), name);
  };
  return m;
}

}  // namespace coalesce
