// A kernel of any family (compiled by nvcc from its template, or loaded from an NVRTC cubin) as
// a Method, launched through the one launch contract (launch.hpp) that the runtime library uses too.
#pragma once

#include "kernels/core/family.hpp"
#include "method.hpp"
#include "workspace.hpp"

namespace coalesce {

/// A Method launching `kernel` (a __global__ function's address or CubinKernel::function())
/// of `config` with the epilogue `epilogue` on ws's buffers, binding the family's kernel
/// parameters (Family::kernel_args()); tensor maps are encoded now over ws's buffers
/// (Family::tensor_map, harness/tma.hpp); the workspace (Family::workspace_bytes) is allocated
/// and its counters zeroed now, and lives with the Method. Sets the kernel's dynamic
/// shared-memory limit now (plan_launch, prepare_kernel, BoundLaunch). The
/// kernel must stay loaded while the Method is used. Throws std::invalid_argument when the
/// family refuses the config or the problem, or the driver a tensor map (the caller records it
/// as skipped).
Method kernel_method(const Config& config, Epilogue epilogue, const void* kernel, Workspace& ws);

}  // namespace coalesce
