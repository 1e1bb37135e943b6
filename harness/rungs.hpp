// The teaching rungs (kernels/rungs/naive.cuh, tiled.cuh, reg4x4.cuh) as Methods with the
// problem's epilogue fused into their store. They compute in f32 only.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "kernels/core/problem.hpp"
#include "method.hpp"
#include "workspace.hpp"

namespace coalesce {

enum class Rung { naive, tiled, reg4x4 };
std::string_view to_string(Rung r);

/// Every rung, in teaching order.
constexpr Rung kRungs[] = {Rung::naive, Rung::tiled, Rung::reg4x4};

/// The derived config name of a rung, e.g. `tiled_f32_t32_bias_gelu`, from the kernel's own
/// tile constants.
std::string rung_config_name(Rung r, Dtype d, Epilogue e);

/// The rung with ws.problem()'s epilogue (method `coalesce`, family = the rung's name).
/// Throws std::invalid_argument when the problem is not f32.
Method rung_method(Rung r, Workspace& ws);

}  // namespace coalesce
