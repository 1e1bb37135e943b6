// The coalesce torch library: the op schemas, the checks and the tuning table every backend
// shares (ops.hpp), autograd (in C++, so a call costs no Python), and the CPU kernel, the eager
// sequence, so the registration, the fake kernels, autograd and torch.compile are tested on
// machines without a GPU (docs/pytorch.md). The fake kernel is Python's (coalesce/_registrations.py).
#include "ops.hpp"

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/util/Exception.h>
#include <torch/csrc/autograd/custom_function.h>
#include <torch/library.h>

#include <atomic>
#include <cstdlib>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <tuple>
#include <vector>

namespace coalesce::torch_ops {
namespace {

constexpr EpilogueSpec kEpilogues[] = {
    {"none", false, Activation::identity},       {"bias", true, Activation::identity},
    {"bias_relu", true, Activation::relu},       {"bias_gelu", true, Activation::gelu_erf},
    {"bias_gelu_tanh", true, Activation::gelu_tanh}, {"bias_silu", true, Activation::silu},
};

constexpr GatedSpec kGated[] = {{"swiglu", Activation::silu}, {"geglu", Activation::gelu_erf}};

std::string known_gated() {
  std::string out;
  for (const GatedSpec& e : kGated) out += (out.empty() ? "" : ", ") + std::string(e.name);
  return out;
}

std::string known_epilogues() {
  std::string out;
  for (const EpilogueSpec& e : kEpilogues) out += (out.empty() ? "" : ", ") + std::string(e.name);
  return out;
}

/// The table and the choices made from it, per problem. One mutex: a lookup after the first is a
/// map find, far below a kernel launch.
struct TableState {
  std::mutex mutex;
  bool loaded = false;  ///< COALESCE_TUNING_TABLE was read, or load_tuning_table was called
  std::string source;
  std::vector<tuning::Entry> entries;
  std::map<std::tuple<std::string, int, std::string, std::string, std::int64_t, std::int64_t, std::int64_t>,
           ConfigChoice>
      cache;
  std::atomic<std::uint64_t> generation{0};  ///< table_generation()
};

TableState& table_state() {
  static TableState state;
  return state;
}

/// Loads COALESCE_TUNING_TABLE on first use; a table that cannot be read is an error at that
/// call (and again at the next), never an empty table passing for a tuned one.
void ensure_loaded(TableState& s) {
  if (s.loaded) return;
  const char* path = std::getenv("COALESCE_TUNING_TABLE");
  if (path && *path) {
    try {
      s.entries = tuning::read_table_file(path);
    } catch (const tuning::FormatError& e) {
      TORCH_CHECK(false, "coalesce: COALESCE_TUNING_TABLE: ", e.what());
    }
    s.source = path;
  }
  s.loaded = true;
}

bool debug_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("COALESCE_LOG");
    return v && std::string_view(v) == "debug";
  }();
  return on;
}

int64_t load_tuning_table(std::string_view path) {
  TableState& s = table_state();
  std::vector<tuning::Entry> entries;
  if (!path.empty()) {
    try {
      entries = tuning::read_table_file(std::string(path));
    } catch (const tuning::FormatError& e) {
      TORCH_CHECK(false, "coalesce.load_table: ", e.what());
    }
  }
  std::lock_guard<std::mutex> lock(s.mutex);
  s.entries = std::move(entries);
  s.source = path;
  s.loaded = true;
  s.cache.clear();
  s.generation.fetch_add(1);
  return static_cast<int64_t>(s.entries.size());
}

std::tuple<std::string, std::string> tuning_choice(std::string_view gpu_model, int64_t sm_count,
                                                   std::string_view dtype, std::string_view epilogue, int64_t m,
                                                   int64_t n, int64_t k) {
  const ConfigChoice c = choose_config({std::string(gpu_model), static_cast<int>(sm_count)}, std::string(dtype),
                                       std::string(epilogue), m, n, k);
  return {c.config, tuning::to_string(c.match)};
}

at::Tensor linear_cpu(const at::Tensor& x, const at::Tensor& weight, const std::optional<at::Tensor>& bias,
                      std::string_view epilogue) {
  return linear_eager(x, weight, bias, check_linear(x, weight, bias, epilogue));
}

/// coalesce::linear below autograd: the backend's kernel (CPU, CUDA, or the fake one).
at::Tensor linear_below_autograd(const at::Tensor& x, const at::Tensor& weight, const std::optional<at::Tensor>& bias,
                                 std::string_view epilogue) {
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("coalesce::linear", "")
                             .typed<at::Tensor(const at::Tensor&, const at::Tensor&, const std::optional<at::Tensor>&,
                                               c10::string_view)>();
  at::AutoDispatchBelowADInplaceOrView guard;
  return op.call(x, weight, bias, epilogue);
}

/// d act(z) / dz applied to `grad`, in differentiable ATen ops (so double backward works).
at::Tensor activation_backward(const at::Tensor& grad, const at::Tensor& z, Activation activation) {
  switch (activation) {
    case Activation::identity: return grad;
    case Activation::relu: return at::where(z > 0, grad, at::zeros_like(grad));
    case Activation::gelu_erf: return at::gelu_backward(grad, z, "none");
    case Activation::gelu_tanh: return at::gelu_backward(grad, z, "tanh");
    case Activation::silu: {
      // silu'(z) = s (1 + z (1 - s)), s = sigmoid(z); aten's silu_backward has no derivative.
      const at::Tensor s = at::sigmoid(z);
      return grad * s * (1 + z * (1 - s));
    }
  }
  return grad;
}

/// Forward fused (the backend's kernel); backward through ATen: the pre-activation recomputed (the
/// fused kernel writes only the output), the activation's derivative, then the linear's.
class LinearFunction : public torch::autograd::Function<LinearFunction> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& x, const at::Tensor& weight,
                            const std::optional<at::Tensor>& bias, const std::string& epilogue) {
    ctx->save_for_backward({x, weight, bias.value_or(at::Tensor())});
    ctx->saved_data["epilogue"] = epilogue;
    return linear_below_autograd(x, weight, bias, epilogue);
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor &x = saved[0], &weight = saved[1], &bias = saved[2];
    const EpilogueSpec& spec = epilogue_spec(ctx->saved_data["epilogue"].toStringRef());
    at::Tensor grad = grads[0];
    if (spec.activation != Activation::identity) {
      const at::Tensor z = at::linear(x, weight, bias.defined() ? std::optional<at::Tensor>(bias) : std::nullopt);
      grad = activation_backward(grad, z, spec.activation);
    }
    at::Tensor grad_x, grad_w, grad_b;
    const std::vector<c10::SymInt> rows_shape{c10::SymInt(-1), weight.sym_size(0)};
    const std::vector<c10::SymInt> x_rows_shape{c10::SymInt(-1), weight.sym_size(1)};
    const at::Tensor rows = grad.reshape_symint(rows_shape);
    if (ctx->needs_input_grad(0)) grad_x = at::matmul(grad, weight);
    if (ctx->needs_input_grad(1)) grad_w = rows.t().matmul(x.reshape_symint(x_rows_shape));
    if (spec.bias && ctx->needs_input_grad(2)) grad_b = rows.sum(0);
    return {grad_x, grad_w, grad_b, at::Tensor()};
  }
};

/// The Autograd kernel: straight below autograd when nothing needs a gradient (inference pays no
/// autograd node), else through LinearFunction.
at::Tensor linear_autograd(const at::Tensor& x, const at::Tensor& weight, const std::optional<at::Tensor>& bias,
                           std::string_view epilogue) {
  const bool needs_grad = at::GradMode::is_enabled() &&
                          (x.requires_grad() || weight.requires_grad() || (bias && bias->requires_grad()));
  if (!needs_grad) return linear_below_autograd(x, weight, bias, epilogue);
  return LinearFunction::apply(x, weight, bias, std::string(epilogue));
}

at::Tensor gated_linear_cpu(const at::Tensor& x, const at::Tensor& weight, std::string_view epilogue) {
  return gated_linear_eager(x, weight, check_gated_linear(x, weight, epilogue));
}

/// coalesce::gated_linear below autograd: the backend's kernel.
at::Tensor gated_linear_below_autograd(const at::Tensor& x, const at::Tensor& weight, std::string_view epilogue) {
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("coalesce::gated_linear", "")
                             .typed<at::Tensor(const at::Tensor&, const at::Tensor&, c10::string_view)>();
  at::AutoDispatchBelowADInplaceOrView guard;
  return op.call(x, weight, epilogue);
}

/// Forward fused; backward through ATen from the recomputed z = x · weightᵀ:
/// d/dgate = grad · up · act'(gate), d/dup = grad · act(gate), interleaved back into dz.
class GatedLinearFunction : public torch::autograd::Function<GatedLinearFunction> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& x, const at::Tensor& weight,
                            const std::string& epilogue) {
    ctx->save_for_backward({x, weight});
    ctx->saved_data["epilogue"] = epilogue;
    return gated_linear_below_autograd(x, weight, epilogue);
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor &x = saved[0], &weight = saved[1];
    const GatedSpec& spec = gated_spec(ctx->saved_data["epilogue"].toStringRef());
    const at::Tensor& grad = grads[0];
    const at::Tensor z = at::linear(x, weight);
    const at::Tensor gate = z.slice(-1, 0, c10::nullopt, 2), up = z.slice(-1, 1, c10::nullopt, 2);
    const at::Tensor d_gate = activation_backward(grad * up, gate, spec.activation);
    const at::Tensor d_up = grad * activation(gate, spec.activation);
    const at::Tensor dz = at::stack({d_gate, d_up}, -1).flatten(-2);  // [..., 2·I], interleaved as z
    at::Tensor grad_x, grad_w;
    if (ctx->needs_input_grad(0)) grad_x = at::matmul(dz, weight);
    if (ctx->needs_input_grad(1)) {
      const std::vector<c10::SymInt> rows_shape{c10::SymInt(-1), weight.sym_size(0)};
      const std::vector<c10::SymInt> x_rows_shape{c10::SymInt(-1), weight.sym_size(1)};
      grad_w = dz.reshape_symint(rows_shape).t().matmul(x.reshape_symint(x_rows_shape));
    }
    return {grad_x, grad_w, at::Tensor()};
  }
};

at::Tensor gated_linear_autograd(const at::Tensor& x, const at::Tensor& weight, std::string_view epilogue) {
  const bool needs_grad = at::GradMode::is_enabled() && (x.requires_grad() || weight.requires_grad());
  if (!needs_grad) return gated_linear_below_autograd(x, weight, epilogue);
  return GatedLinearFunction::apply(x, weight, std::string(epilogue));
}

}  // namespace

const GatedSpec& gated_spec(std::string_view name) {
  for (const GatedSpec& e : kGated)
    if (e.name == name) return e;
  TORCH_CHECK(false, "coalesce.gated_linear: epilogue '", name, "' is not one of ", known_gated());
}

const GatedSpec& check_gated_linear(const at::Tensor& x, const at::Tensor& weight, std::string_view epilogue) {
  const GatedSpec& spec = gated_spec(epilogue);
  TORCH_CHECK(weight.dim() == 2, "coalesce.gated_linear: weight must be 2-D [2 x intermediate, in_features] ",
              "(gate and up rows interleaved), got ", weight.dim(), "-D");
  TORCH_CHECK(weight.sym_size(0) % 2 == 0, "coalesce.gated_linear: weight must have an even number of rows ",
              "(gate and up interleaved), got ", weight.sym_size(0));
  TORCH_CHECK(x.dim() >= 1, "coalesce.gated_linear: x must have at least 1 dimension, got a 0-D tensor");
  TORCH_CHECK(x.sym_size(-1) == weight.sym_size(1), "coalesce.gated_linear: x's last dimension (", x.sym_size(-1),
              ") must be weight's in_features (", weight.sym_size(1), ")");
  TORCH_CHECK(x.scalar_type() == weight.scalar_type(), "coalesce.gated_linear: x is ", x.scalar_type(),
              " but weight is ", weight.scalar_type(), "; give both one dtype");
  TORCH_CHECK(x.device() == weight.device(), "coalesce.gated_linear: x is on ", x.device(), " but weight on ",
              weight.device());
  return spec;
}

at::Tensor activation(const at::Tensor& z, Activation a) {
  switch (a) {
    case Activation::identity: return z;
    case Activation::relu: return at::relu(z);
    case Activation::gelu_erf: return at::gelu(z, "none");
    case Activation::gelu_tanh: return at::gelu(z, "tanh");
    case Activation::silu: return at::silu(z);
  }
  return z;
}

at::Tensor gated_linear_eager(const at::Tensor& x, const at::Tensor& weight, const GatedSpec& spec) {
  const at::Tensor z = at::linear(x, weight);
  return activation(z.slice(-1, 0, c10::nullopt, 2), spec.activation) * z.slice(-1, 1, c10::nullopt, 2);
}

const EpilogueSpec& epilogue_spec(std::string_view name) {
  for (const EpilogueSpec& e : kEpilogues)
    if (e.name == name) return e;
  TORCH_CHECK(false, "coalesce.linear: epilogue '", name, "' is not one of ", known_epilogues());
}

const EpilogueSpec& check_linear(const at::Tensor& x, const at::Tensor& weight, const std::optional<at::Tensor>& bias,
                                 std::string_view epilogue) {
  const EpilogueSpec& spec = epilogue_spec(epilogue);
  TORCH_CHECK(weight.dim() == 2, "coalesce.linear: weight must be 2-D [out_features, in_features] (as nn.Linear ",
              "stores it), got ", weight.dim(), "-D");
  TORCH_CHECK(x.dim() >= 1, "coalesce.linear: x must have at least 1 dimension, got a 0-D tensor");
  TORCH_CHECK(x.sym_size(-1) == weight.sym_size(1), "coalesce.linear: x's last dimension (", x.sym_size(-1),
              ") must be weight's in_features (", weight.sym_size(1), ")");
  TORCH_CHECK(x.scalar_type() == weight.scalar_type(), "coalesce.linear: x is ", x.scalar_type(), " but weight is ",
              weight.scalar_type(), "; give both one dtype");
  TORCH_CHECK(x.device() == weight.device(), "coalesce.linear: x is on ", x.device(), " but weight on ",
              weight.device());
  if (spec.bias) {
    TORCH_CHECK(bias.has_value(), "coalesce.linear: epilogue '", epilogue, "' adds a bias, but bias is None");
    TORCH_CHECK(bias->dim() == 1 && bias->sym_size(0) == weight.sym_size(0),
                "coalesce.linear: bias must be 1-D of out_features (", weight.sym_size(0), ") entries, got shape ",
                bias->sym_sizes());
    TORCH_CHECK(bias->scalar_type() == x.scalar_type(), "coalesce.linear: bias is ", bias->scalar_type(),
                " but x is ", x.scalar_type());
    TORCH_CHECK(bias->device() == x.device(), "coalesce.linear: bias is on ", bias->device(), " but x on ",
                x.device());
  } else {
    TORCH_CHECK(!bias.has_value(), "coalesce.linear: epilogue '", epilogue,
                "' adds no bias, but a bias was given (use 'bias' or 'bias_<activation>')");
  }
  return spec;
}

at::Tensor linear_eager(const at::Tensor& x, const at::Tensor& weight, const std::optional<at::Tensor>& bias,
                        const EpilogueSpec& spec) {
  return activation(at::linear(x, weight, spec.bias ? bias : std::nullopt), spec.activation);
}

void debug_log(const std::string& line) {
  if (debug_enabled()) std::cerr << "coalesce: " << line << std::endl;
}

ConfigChoice choose_config(const tuning::Device& device, const std::string& dtype, const std::string& epilogue,
                           std::int64_t m, std::int64_t n, std::int64_t k) {
  TableState& s = table_state();
  std::lock_guard<std::mutex> lock(s.mutex);
  ensure_loaded(s);
  const auto key = std::make_tuple(device.name, device.sm_count, dtype, epilogue, m, n, k);
  if (auto it = s.cache.find(key); it != s.cache.end()) return it->second;
  const tuning::Choice c = tuning::choose(s.entries, device, dtype, epilogue, m, n, k);
  ConfigChoice out;
  out.match = c.match;
  if (c.entry) out.config = c.entry->config_name;
  s.cache.emplace(key, out);
  if (debug_enabled()) {
    std::string line = "linear " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " " +
                       dtype + " " + epilogue + " on " + device.name + " (" + std::to_string(device.sm_count) +
                       " SMs): " + tuning::to_string(c.match);
    if (c.entry)
      line += ", config " + c.entry->config_name + " (tuned at " + std::to_string(c.entry->m) + "x" +
              std::to_string(c.entry->n) + "x" + std::to_string(c.entry->k) + ")";
    else
      line += s.source.empty() ? " (no tuning table loaded): the built-in default"
                               : " in " + s.source + ": the built-in default";
    debug_log(line);
  }
  return out;
}

void mark_refused(const tuning::Device& device, const std::string& dtype, const std::string& epilogue,
                  std::int64_t m, std::int64_t n, std::int64_t k) {
  TableState& s = table_state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.cache[std::make_tuple(device.name, device.sm_count, dtype, epilogue, m, n, k)] = ConfigChoice{};
  s.generation.fetch_add(1);
}

std::uint64_t table_generation() { return table_state().generation.load(); }

}  // namespace coalesce::torch_ops

TORCH_LIBRARY(coalesce, m) {
  m.def("linear(Tensor x, Tensor weight, Tensor? bias, str epilogue) -> Tensor", {at::Tag::pt2_compliant_tag});
  m.def("gated_linear(Tensor x, Tensor weight, str epilogue) -> Tensor", {at::Tag::pt2_compliant_tag});
  m.def("load_tuning_table(str path) -> int", &coalesce::torch_ops::load_tuning_table);
  // The host-time probe of bench_mlp.py (CUDA only; docs/pytorch.md, "Host time per call").
  m.def("_host_us(Tensor x, Tensor weight, Tensor? bias, str epilogue, int calls) -> float[]");
  m.def("tuning_choice(str gpu_model, int sm_count, str dtype, str epilogue, int m, int n, int k) -> (str, str)",
        &coalesce::torch_ops::tuning_choice);
}

TORCH_LIBRARY_IMPL(coalesce, CPU, m) {
  m.impl("linear", &coalesce::torch_ops::linear_cpu);
  m.impl("gated_linear", &coalesce::torch_ops::gated_linear_cpu);
}
TORCH_LIBRARY_IMPL(coalesce, Autograd, m) {
  m.impl("linear", &coalesce::torch_ops::linear_autograd);
  m.impl("gated_linear", &coalesce::torch_ops::gated_linear_autograd);
}
