// The one launch contract (see launch.hpp).
#include "launch.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "cuda_check.hpp"
#include "kernels/core/epilogues.hpp"
#include "splitk.hpp"
#include "tma.hpp"

namespace coalesce {

namespace {

bool is_tensor_map(KernelArg kind) {
  return kind == KernelArg::a_tensor_map || kind == KernelArg::b_tensor_map || kind == KernelArg::c_tensor_map;
}

// The family's map over the kernel's (padded) problem, given the logical sides over the padded
// rows: A keeps K columns in rows of kernel.k, B keeps K rows and N columns in rows of kernel.n,
// so that the padding reads as TMA's zeros. C's map is the padded C's, whose extra columns the
// kernel computes and the launch drops. Any other shape of map is a family that stages what it
// cannot map (std::logic_error).
TensorMapSpec staged_map(const LaunchPlan& plan, TensorMapSpec spec) {
  const Staging& s = plan.staging;
  if (!s.any()) return spec;
  const Problem& p = plan.problem;
  const Problem& k = s.kernel;
  auto expect = [&](bool ok) {
    if (!ok)
      throw std::logic_error(plan.name + ": a staged problem needs row-major maps of the padded A, B and C, and the "
                                         "family's map of matrix " +
                             std::to_string(static_cast<int>(spec.matrix)) + " is not one");
  };
  switch (spec.matrix) {
    case KernelArg::a:
      expect(spec.rows == k.m && spec.cols == k.k);
      spec.row_stride = k.k;
      spec.cols = p.k;
      break;
    case KernelArg::b:
      expect(spec.rows == k.k && spec.cols == k.n);
      spec.row_stride = k.n;
      spec.rows = p.k;
      spec.cols = p.n;
      break;
    case KernelArg::c: expect(spec.rows == k.m && spec.cols == k.c_cols()); break;
    default: expect(false);
  }
  return spec;
}

}  // namespace

LaunchPlan plan_launch(const Config& config, const Problem& problem, const Target& target, const RowStrides& strides) {
  const Family* family = find_family(config.family);
  if (!family) throw std::invalid_argument("no kernel family named '" + config.family + "'");
  LaunchPlan plan;
  plan.family = family;
  plan.config = config;
  plan.problem = problem;
  plan.name = config_name(config, problem.dtype, problem.epilogue);
  for (const Verdict v :
       {supports_epilogue(*family, problem), family->check(config), family->check_problem(config, problem)})
    if (!v.ok()) throw std::invalid_argument(plan.name + ": " + v.why);
  // From here on the kernel's problem: the padded one where the launch stages the rows.
  try {
    plan.staging = staging_of(config, problem, target, strides);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(plan.name + ": " + e.what());
  }
  const Problem& kernel = plan.staging.kernel;
  plan.geometry = family->geometry(config, kernel, target);
  const auto& kinds = family->kernel_args();
  plan.args.assign(kinds.begin(), kinds.end());
  if (plan.args.size() > kMaxKernelArgs)
    throw std::logic_error(plan.name + ": the family's kernel takes more than " + std::to_string(kMaxKernelArgs) +
                           " parameters");
  for (KernelArg kind : plan.args)
    if (is_tensor_map(kind)) plan.tensor_maps.push_back(staged_map(plan, family->tensor_map(config, kernel, kind)));

  // Split-K: the kernel stores its slices' f32 partial sums into the workspace, passed as its
  // own argument where the family has one (KernelArg::workspace), else as its C (kSplitParam);
  // the reduce stores C, or with the reduction in the kernel (kReduceParam) the kernel does,
  // behind the tiles' counters after the partial sums. Stream-K (kStreamKParam) keeps its
  // blocks' sums and flags there.
  plan.slices = split_slices(config);
  plan.reduce_after = plan.slices > 1 && !reduces_in_kernel(config);
  plan.workspace_bytes = plan.staging.bytes;
  const long long family_bytes = plan.staging.family_bytes;
  const bool own_workspace = std::find(kinds.begin(), kinds.end(), KernelArg::workspace) != kinds.end();
  if (workspace_needs_zeros(config) && !own_workspace)
    throw std::logic_error(plan.name +
                           ": a kernel that keeps partial sums in its workspace needs a workspace argument of its own");
  if (plan.slices > 1 && static_cast<int>(plan.geometry.grid_z) != plan.slices)
    throw std::logic_error(plan.name + ": the family's grid has " + std::to_string(plan.geometry.grid_z) +
                           " K slices, not " + std::to_string(plan.slices));
  plan.workspace_as_c = family_bytes > 0 && !own_workspace;
  if (workspace_needs_zeros(config) && family_bytes > 0) {
    // Split-K's partial sums need no zeros (every slice stores all of its own); the rest of the
    // family's part does (the staged copies after it need none).
    plan.zero_offset = plan.slices > 1 ? 4LL * plan.slices * kernel.m * kernel.n : 0;
    plan.zero_bytes = family_bytes - plan.zero_offset;
  }
  plan.needs_residency = stream_k_segments(config) > 0;
  return plan;
}

Verdict fits(const Config& config, const Problem& problem, const Target& target) {
  const Family* family = find_family(config.family);
  if (!family) return {Violation::shape, "no registered kernel family has the config's name"};
  if (Verdict v = family->supports(target); !v.ok()) return v;
  if (Verdict v = supports_epilogue(*family, problem); !v.ok()) return v;
  if (Verdict v = family->check(config); !v.ok()) return v;
  if (Verdict v = family->check_problem(config, problem); !v.ok()) return v;
  return family->check(config, target.limits, family->predict(config, target.limits, problem).registers);
}

void prepare_kernel(const LaunchPlan& plan, const void* kernel, const Target& target) {
  const Geometry& g = plan.geometry;
  COALESCE_CUDA_CTX(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, g.smem_bytes),
                    plan.name);
  if (!plan.needs_residency) return;
  // Stream-K's blocks wait for each other's partial sums: every block of the grid must be
  // resident at once, which the family's grid assumes from its register model. The compiled
  // kernel decides.
  int per_sm = 0;
  COALESCE_CUDA_CTX(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, static_cast<int>(g.block_x),
                                                                  static_cast<std::size_t>(g.smem_bytes)),
                    plan.name + ": occupancy");
  if (g.blocks() > static_cast<long long>(per_sm) * target.sm_count)
    throw std::invalid_argument(plan.name + ": stream-K needs all " + std::to_string(g.blocks()) +
                                " blocks of its grid resident at once, and the compiled kernel fits " +
                                std::to_string(per_sm) + " per SM on " + std::to_string(target.sm_count) + " SMs");
}

void zero_workspace(const LaunchPlan& plan, void* workspace, cudaStream_t stream) {
  if (plan.zero_bytes <= 0) return;
  COALESCE_CUDA_CTX(cudaMemsetAsync(static_cast<char*>(workspace) + plan.zero_offset, 0,
                                    static_cast<std::size_t>(plan.zero_bytes), stream),
                    plan.name + ": zeroing the workspace's counters");
}

std::string buffers_refusal(const LaunchPlan& plan, const LaunchBuffers& b) {
  if (!b.a || !b.b || !b.c) return "A, B and C must be device buffers, not null";
  const EpilogueReads reads = epilogue_spec(plan.problem.epilogue).reads;
  if (reads.column_bias && !b.bias)
    return "the " + std::string(to_string(plan.problem.epilogue)) + " epilogue needs a bias, but none was given";
  if (reads.residual && !b.residual)
    return "the " + std::string(to_string(plan.problem.epilogue)) + " epilogue needs a residual, but none was given";
  if (plan.workspace_bytes > 0 && !b.workspace)
    return "the config needs " + std::to_string(plan.workspace_bytes) + " bytes of workspace, but none was given";
  return {};
}

BoundLaunch::BoundLaunch(const LaunchPlan& plan, const void* kernel, const LaunchBuffers& buffers)
    : kernel_(kernel), geometry_(plan.geometry), args_(plan.args), name_(plan.name) {
  if (std::string why = buffers_refusal(plan, buffers); !why.empty())
    throw std::invalid_argument(plan.name + ": " + why);
  const Problem& p = plan.staging.kernel;
  values_ = {buffers.a, buffers.b, buffers.bias, buffers.c, p.m, p.n, p.k, {}, {}, {}, nullptr, buffers.residual};
  stage(plan, buffers);
  if (plan.staging.family_bytes > 0) {
    if (plan.workspace_as_c)
      values_.c = buffers.workspace;
    else
      values_.workspace = buffers.workspace;
  }
  // Tensor maps are encoded once, here, over the buffers (which outlive the launch).
  std::size_t next_map = 0;
  for (KernelArg kind : args_) {
    if (!is_tensor_map(kind)) continue;
    const TensorMapSpec& spec = plan.tensor_maps.at(next_map++);
    const void* base = spec.matrix == KernelArg::a ? values_.a : spec.matrix == KernelArg::b ? values_.b : values_.c;
    TensorMap& out = kind == KernelArg::a_tensor_map   ? values_.a_map
                     : kind == KernelArg::b_tensor_map ? values_.b_map
                                                       : values_.c_map;
    try {
      out = encode_tensor_map(spec, base);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(plan.name + ": " + e.what());
    }
  }
  if (plan.reduce_after) {
    reduce_after_ = true;
    problem_ = p;
    slices_ = plan.slices;
    partials_ = static_cast<const float*>(buffers.workspace);
    bias_ = values_.bias;
    c_ = staged_c_ ? staged_c_ : buffers.c;
    reduce_blocks_ = elementwise_grid_cap();
    programmatic_ = programmatic_launch_supported();
  }
}

void BoundLaunch::stage(const LaunchPlan& plan, const LaunchBuffers& buffers) {
  const Staging& s = plan.staging;
  if (!s.any()) return;
  const Problem& p = plan.problem;
  const GemmTypes t = p.types();
  char* base = static_cast<char*>(buffers.workspace);
  auto size = [](long long n) { return static_cast<std::size_t>(n); };
  auto stride = [](long long given, long long width) { return given > 0 ? given : width; };
  // The operand `from` (n_rows rows of `cols` elements of `bytes`, `from_stride` elements apart)
  // into its copy at `offset` (rows `padded` elements apart), which the kernel then reads instead.
  auto copy_in = [&](const void* from, long long from_stride, long long offset, long long n_rows, long long cols,
                     long long padded, int bytes) -> const void* {
    void* to = base + offset;
    copies_in_.push_back({to, size(padded * bytes), from, size(from_stride * bytes), size(cols * bytes), size(n_rows)});
    return to;
  };
  const long long c_cols = p.c_cols(), kernel_c_cols = s.kernel.c_cols();
  if (s.a)
    values_.a = copy_in(buffers.a, stride(s.strides.a, p.k), s.a_offset, p.m, p.k, s.kernel.k, element_bytes(t.a));
  if (s.b)
    values_.b = copy_in(buffers.b, stride(s.strides.b, p.n), s.b_offset, p.k, p.n, s.kernel.n, element_bytes(t.b));
  if (s.bias_offset >= 0)
    values_.bias = copy_in(buffers.bias, p.n, s.bias_offset, 1, p.n, s.kernel.n, element_bytes(t.bias));
  if (s.residual_offset >= 0)
    values_.residual =
        copy_in(buffers.residual, c_cols, s.residual_offset, p.m, c_cols, kernel_c_cols, element_bytes(t.c));
  if (s.c) {
    // The kernel stores rows of kernel_c_cols; the first c_cols of each are C's row.
    const int bytes = element_bytes(t.c);
    staged_c_ = base + s.c_offset;
    values_.c = staged_c_;
    copies_out_.push_back({buffers.c, size(stride(s.strides.c, c_cols) * bytes), staged_c_, size(kernel_c_cols * bytes),
                           size(c_cols * bytes), size(p.m)});
  }
}

void BoundLaunch::fill_arguments(void** out) const {
  // The launch API reads the values through non-const pointers; it does not write them.
  Values& v = const_cast<Values&>(values_);
  std::size_t i = 0;
  for (KernelArg kind : args_) {
    switch (kind) {
      case KernelArg::a: out[i++] = &v.a; break;
      case KernelArg::b: out[i++] = &v.b; break;
      case KernelArg::bias: out[i++] = &v.bias; break;
      case KernelArg::c: out[i++] = &v.c; break;
      case KernelArg::m: out[i++] = &v.m; break;
      case KernelArg::n: out[i++] = &v.n; break;
      case KernelArg::k: out[i++] = &v.k; break;
      case KernelArg::a_tensor_map: out[i++] = &v.a_map; break;
      case KernelArg::b_tensor_map: out[i++] = &v.b_map; break;
      case KernelArg::c_tensor_map: out[i++] = &v.c_map; break;
      case KernelArg::workspace: out[i++] = &v.workspace; break;
      case KernelArg::residual: out[i++] = &v.residual; break;
    }
  }
}

std::vector<void*> BoundLaunch::argument_pointers() const {
  std::vector<void*> out(args_.size());
  fill_arguments(out.data());
  return out;
}

void BoundLaunch::copy(const std::vector<Copy>& copies, cudaStream_t stream) const {
  for (const Copy& c : copies)
    COALESCE_CUDA_CTX(cudaMemcpy2DAsync(c.dst, c.dst_pitch, c.src, c.src_pitch, c.width, c.rows,
                                        cudaMemcpyDeviceToDevice, stream),
                      name_ + ": staging the unaligned rows");
}

void BoundLaunch::enqueue(cudaStream_t stream) const {
  copy(copies_in_, stream);
  void* args[kMaxKernelArgs];
  fill_arguments(args);
  const Geometry& g = geometry_;
  if (g.cluster_x * g.cluster_y * g.cluster_z == 1) {
    COALESCE_CUDA_CTX(cudaLaunchKernel(kernel_, dim3(g.grid_x, g.grid_y, g.grid_z), dim3(g.block_x), args,
                                       static_cast<std::size_t>(g.smem_bytes), stream),
                      name_);
  } else {
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
    COALESCE_CUDA_CTX(cudaLaunchKernelExC(&launch, kernel_, args), name_);
  }
  if (reduce_after_)
    launch_splitk_reduce(problem_, partials_, slices_, bias_, c_, reduce_blocks_, stream, programmatic_);
  copy(copies_out_, stream);
}

}  // namespace coalesce
