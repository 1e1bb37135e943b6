// The check-then-time path every method goes through (see method.hpp).
#include "method.hpp"

#include <stdexcept>

#include "kernels/core/epilogues.hpp"

namespace coalesce {

std::string describe(const Method& m) { return m.method + "/" + m.family + " " + m.config; }

std::string_view to_string(Status s) {
  switch (s) {
    case Status::ok: return "ok";
    case Status::wrong_result: return "wrong_result";
    case Status::skipped: return "skipped";
    case Status::error: return "error";
  }
  return "?";
}

CheckResult check_method(const Method& m, Workspace& ws, Inputs inputs) {
  if (m.role == MethodRole::floor)
    throw std::logic_error(describe(m) + " is a floor: it writes no C, so there is nothing to check");
  ws.refill_next(inputs);
  ws.poison_output();
  m.launch(ws.stream());
  COALESCE_CUDA_CTX(cudaStreamSynchronize(ws.stream()), describe(m));
  return ws.check(m.reference());
}

MethodResult run_method(const Method& m, Workspace& ws, ColdTimer& timer) {
  MethodResult r;
  const std::string what = describe(m);
  try {
    if (m.role == MethodRole::floor) {
      // Nothing to check: a floor writes no C (method.hpp). Timed cold like every method.
      r.timing = timer.measure(m.launch, [](cudaStream_t) {}, what);
      r.status = Status::ok;
      return r;
    }
    if (epilogue_spec(m.reference_epilogue).activation != Activation::identity) {
      CheckResult bend = check_method(m, ws, Inputs::bend);
      if (!bend.passed) {
        r.status = Status::wrong_result;
        r.detail = "wrong on inputs in the activation's bend (pre-activations in [-3, 3]): " + bend.why;
        r.check = bend;
        r.input_seed = ws.seed();
        return r;
      }
    }
    r.check = check_method(m, ws);
    r.input_seed = ws.seed();
    if (!r.check->passed) {
      r.status = Status::wrong_result;
      r.detail = r.check->why;
      return r;
    }
    if (m.deterministic) ws.snapshot_output();
    r.timing = timer.measure(m.launch, [&ws](cudaStream_t s) { ws.poison_output(s); }, what);
    CheckResult after = ws.check(m.reference());
    if (!after.passed) {
      r.status = Status::wrong_result;
      r.detail = "wrong after repeated runs (a race?): " + after.why;
      r.check = after;
      r.timing.reset();
      return r;
    }
    if (m.deterministic) {
      if (const long long words = ws.output_differs(); words > 0) {
        r.status = Status::wrong_result;
        r.detail = "not deterministic: " + std::to_string(words) +
                   " words of C differ between two runs on the same inputs";
        r.timing.reset();
        return r;
      }
    }
    r.status = Status::ok;
  } catch (const CudaError& e) {
    if (e.sticky()) throw;
    cudaGetLastError();  // clear the non-sticky error so the next method starts clean
    r.status = Status::error;
    r.detail = e.what();
    r.timing.reset();
  } catch (const std::runtime_error& e) {
    // A library (cuBLAS, cuBLASLt) refused or failed; the stream tells whether the context
    // survived it.
    COALESCE_CUDA_CTX(cudaStreamSynchronize(ws.stream()), what);
    r.status = Status::error;
    r.detail = e.what();
    r.timing.reset();
  }
  return r;
}

}  // namespace coalesce
