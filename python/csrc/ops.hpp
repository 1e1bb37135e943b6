// The coalesce torch ops (docs/pytorch.md): what every backend shares — the epilogues the ops
// know, the argument checks, and the tuning table the CUDA kernel picks its config from.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "reports/tuning_table.hpp"

namespace coalesce::torch_ops {

/// The activation an epilogue applies after the optional bias.
enum class Activation { identity, relu, gelu_erf, gelu_tanh, silu };

/// An epilogue by its database name (`none`, `bias`, `bias_relu`, `bias_gelu`, `bias_gelu_tanh`,
/// `bias_silu`): whether it reads a bias and which activation follows. The CUDA kernel passes the
/// name on; the runtime's registry (kernels/core) decides which of them it computes.
struct EpilogueSpec {
  std::string_view name;
  bool bias = false;
  Activation activation = Activation::identity;
};

/// The spec of `name`; throws c10::Error naming the known ones for any other.
const EpilogueSpec& epilogue_spec(std::string_view name);

/// The checks of coalesce::linear every backend applies (weight [out, in] as nn.Linear stores it,
/// x [..., in], bias [out] exactly when the epilogue reads one, one dtype and one device);
/// throws c10::Error with one sentence. Returns the epilogue's spec.
const EpilogueSpec& check_linear(const at::Tensor& x, const at::Tensor& weight, const std::optional<at::Tensor>& bias,
                                 std::string_view epilogue);

/// The eager sequence: linear, then the activation (each an ATen op).
at::Tensor linear_eager(const at::Tensor& x, const at::Tensor& weight, const std::optional<at::Tensor>& bias,
                        const EpilogueSpec& spec);

/// A gated epilogue by its database name (`swiglu`, `geglu`): act(gate) * up, the activation of
/// the gate. coalesce::gated_linear's weight is [2·I, in] with its rows interleaved: row 2j is
/// gate_j, row 2j+1 up_j, so its transpose B [in, 2·I] holds each gate column beside its up
/// column, the layout the kernels' gated epilogue reads (kernels/core/epilogues.hpp).
struct GatedSpec {
  std::string_view name;
  Activation activation = Activation::silu;
};

/// The spec of `name`; throws c10::Error naming the known ones for any other.
const GatedSpec& gated_spec(std::string_view name);

/// The checks of coalesce::gated_linear every backend applies (weight [2·I, in] with an even
/// number of rows, x [..., in], one dtype and one device); throws c10::Error with one sentence.
const GatedSpec& check_gated_linear(const at::Tensor& x, const at::Tensor& weight, std::string_view epilogue);

/// The eager sequence of the gated MLP's first half: z = x · weightᵀ, then act(z[..., 0::2]) ·
/// z[..., 1::2] (each an ATen op): [..., I].
at::Tensor gated_linear_eager(const at::Tensor& x, const at::Tensor& weight, const GatedSpec& spec);

/// The activation `a` of `z` (an ATen op).
at::Tensor activation(const at::Tensor& z, Activation a);

/// The config the table gives a problem (tuning::choose) with how it was found; the table is the
/// one loaded last by load_tuning_table, else `COALESCE_TUNING_TABLE`'s at first use, else empty.
/// Cached per problem; logs its choice once per problem to stderr when COALESCE_LOG=debug.
struct ConfigChoice {
  std::string config;  ///< empty: none (the runtime's built-in default)
  tuning::Match match = tuning::Match::none;
};
ConfigChoice choose_config(const tuning::Device& device, const std::string& dtype, const std::string& epilogue,
                           std::int64_t m, std::int64_t n, std::int64_t k);

/// The runtime refused the config choose_config gave this problem (illegal for its shape): later
/// calls get none, the built-in default, without asking the runtime again.
void mark_refused(const tuning::Device& device, const std::string& dtype, const std::string& epilogue,
                  std::int64_t m, std::int64_t n, std::int64_t k);

/// A count that moves whenever a choice choose_config made may have changed (a table loaded, a
/// config refused): the CUDA kernel's faster per-call cache (cuda_ops.cpp) starts over then.
std::uint64_t table_generation();

/// Writes one debug line to stderr when COALESCE_LOG=debug.
void debug_log(const std::string& line);

}  // namespace coalesce::torch_ops
