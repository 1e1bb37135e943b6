// Kernels of any family as Methods (see kernel_method.hpp).
#include "kernel_method.hpp"

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda_check.hpp"
#include "cuda_raii.hpp"
#include "device.hpp"
#include "splitk.hpp"
#include "tma.hpp"

namespace coalesce {

Method kernel_method(const Config& config, Epilogue epilogue, const void* kernel, Workspace& ws) {
  const Family* family = find_family(config.family);
  if (!family) throw std::invalid_argument("no kernel family named '" + config.family + "'");
  const Problem& p = ws.problem();
  Problem named = p;
  named.epilogue = epilogue;
  const std::string name = config_name(config, p.dtype, epilogue);
  for (const Verdict v : {family->check(config), family->check_problem(config, named)})
    if (!v.ok()) throw std::invalid_argument(name + ": " + v.why);
  const Target target = current_target();
  const Geometry g = family->geometry(config, named, target);
  COALESCE_CUDA_CTX(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, g.smem_bytes), name);
  if (stream_k_segments(config) > 0) {
    // Stream-K's blocks wait for each other's partial sums: every block of the grid must be
    // resident at once, which the family's grid assumes from its register model. The compiled
    // kernel decides.
    int per_sm = 0;
    COALESCE_CUDA_CTX(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, static_cast<int>(g.block_x),
                                                                    static_cast<std::size_t>(g.smem_bytes)),
                      name + ": occupancy");
    if (static_cast<long long>(g.blocks()) > static_cast<long long>(per_sm) * target.sm_count)
      throw std::invalid_argument(name + ": stream-K needs all " + std::to_string(g.blocks()) +
                                  " blocks of its grid resident at once, and the compiled kernel fits " +
                                  std::to_string(per_sm) + " per SM on " + std::to_string(target.sm_count) + " SMs");
  }

  // The values the kernel's parameters point at, in the family's order; kept in the launch
  // closure so the pointers cudaLaunchKernel reads stay valid. Tensor maps are encoded once,
  // here, over the workspace's buffers (which outlive the Method).
  struct Args {
    const void *a, *b, *bias;
    void* c;
    int m, n, k;
    TensorMap a_map, b_map, c_map;
    float* workspace;
  };
  Args values{ws.a(), ws.b(), ws.bias(), ws.c(), p.m, p.n, p.k, {}, {}, {}, nullptr};
  // Split-K: the kernel stores its slices' f32 partial sums into a workspace, passed as its own
  // argument where the family has one (KernelArg::workspace), else as its C (kSplitParam); the
  // reduce stores C, or with the reduction in the kernel (kReduceParam) the kernel does, behind
  // the tiles' counters after the partial sums. Stream-K (kStreamKParam) keeps its blocks' sums
  // and flags there. Counters and flags are zeroed here once (the kernel leaves them zero). The
  // buffer lives as long as the launch closure.
  const int slices = split_slices(config);
  const bool in_kernel = reduces_in_kernel(config);
  const long long bytes = workspace_bytes(config, named, target);
  const auto kinds = family->kernel_args();
  const bool own_workspace = std::find(kinds.begin(), kinds.end(), KernelArg::workspace) != kinds.end();
  if (workspace_needs_zeros(config) && !own_workspace)
    throw std::logic_error(name + ": a kernel that keeps partial sums in its workspace needs a workspace argument of its own");
  if (slices > 1 && static_cast<int>(g.grid_z) != slices)
    throw std::logic_error(name + ": the family's grid has " + std::to_string(g.grid_z) + " K slices, not " +
                           std::to_string(slices));
  std::shared_ptr<DeviceBuffer<float>> partials;
  if (bytes > 0) {
    partials = std::make_shared<DeviceBuffer<float>>(static_cast<std::size_t>(bytes / 4));
    if (own_workspace)
      values.workspace = partials->get();
    else
      values.c = partials->get();
    if (workspace_needs_zeros(config)) {
      // Split-K's partial sums need no zeros (every slice stores all of its own); zero the rest.
      const std::size_t sums = slices > 1 ? static_cast<std::size_t>(slices) * p.m * p.n : 0;
      COALESCE_CUDA_CTX(cudaMemset(partials->get() + sums, 0, static_cast<std::size_t>(bytes) - 4 * sums),
                        name + ": zeroing the workspace's counters");
    }
  }
  std::vector<KernelArg> order(kinds.begin(), kinds.end());
  for (KernelArg kind : order) {
    auto encode = [&](TensorMap& out) {
      const TensorMapSpec spec = family->tensor_map(config, named, kind);
      const void* base = spec.matrix == KernelArg::a ? values.a : spec.matrix == KernelArg::b ? values.b : values.c;
      try {
        out = encode_tensor_map(spec, base);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(name + ": " + e.what());
      }
    };
    if (kind == KernelArg::a_tensor_map) encode(values.a_map);
    if (kind == KernelArg::b_tensor_map) encode(values.b_map);
    if (kind == KernelArg::c_tensor_map) encode(values.c_map);
  }

  Method m;
  m.method = "coalesce";
  m.family = config.family;
  m.config = name;
  m.reference_epilogue = epilogue;
  m.workspace_bytes = bytes;
  m.deterministic = true;  // every family's schedule is (docs/families.md)
  const int reduce_blocks = slices > 1 ? elementwise_grid_cap() : 0;
  const bool programmatic = slices > 1 && programmatic_launch_supported();
  auto launch_kernel = [kernel, g, name, values, order](cudaStream_t stream) mutable {
    void* args[16];
    std::size_t i = 0;
    for (KernelArg kind : order) {
      switch (kind) {
        case KernelArg::a: args[i++] = &values.a; break;
        case KernelArg::b: args[i++] = &values.b; break;
        case KernelArg::bias: args[i++] = &values.bias; break;
        case KernelArg::c: args[i++] = &values.c; break;
        case KernelArg::m: args[i++] = &values.m; break;
        case KernelArg::n: args[i++] = &values.n; break;
        case KernelArg::k: args[i++] = &values.k; break;
        case KernelArg::a_tensor_map: args[i++] = &values.a_map; break;
        case KernelArg::b_tensor_map: args[i++] = &values.b_map; break;
        case KernelArg::c_tensor_map: args[i++] = &values.c_map; break;
        case KernelArg::workspace: args[i++] = &values.workspace; break;
      }
    }
    if (g.cluster_x * g.cluster_y * g.cluster_z == 1) {
      COALESCE_CUDA_CTX(cudaLaunchKernel(kernel, dim3(g.grid_x, g.grid_y, g.grid_z), dim3(g.block_x), args,
                                         static_cast<std::size_t>(g.smem_bytes), stream),
                        name);
      return;
    }
    cudaLaunchConfig_t launch{};
    launch.gridDim = dim3(g.grid_x, g.grid_y, g.grid_z);
    launch.blockDim = dim3(g.block_x);
    launch.dynamicSmemBytes = static_cast<std::size_t>(g.smem_bytes);
    launch.stream = stream;
    cudaLaunchAttribute cluster{};
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = g.cluster_x;
    cluster.val.clusterDim.y = g.cluster_y;
    cluster.val.clusterDim.z = g.cluster_z;
    launch.attrs = &cluster;
    launch.numAttrs = 1;
    COALESCE_CUDA_CTX(cudaLaunchKernelExC(&launch, kernel, args), name);
  };
  if (slices == 1 && !partials) {
    m.launch = std::move(launch_kernel);
    return m;
  }
  if (slices == 1 || in_kernel) {  // the closure keeps the partial sums, counters and flags alive
    m.launch = [launch_kernel = std::move(launch_kernel), partials](cudaStream_t stream) mutable { launch_kernel(stream); };
    return m;
  }
  m.launch = [launch_kernel = std::move(launch_kernel), partials, slices, named, bias = ws.bias(), c = ws.c(),
              reduce_blocks, programmatic](cudaStream_t stream) mutable {
    launch_kernel(stream);
    launch_splitk_reduce(named, partials->get(), slices, bias, c, reduce_blocks, stream, programmatic);
  };
  return m;
}

}  // namespace coalesce
