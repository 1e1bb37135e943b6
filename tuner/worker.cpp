// The worker process's side: one CUDA context, one problem's buffers, and a loop answering
// measurement requests (see worker.hpp).
#include "worker.hpp"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>

#include "epilogue_after.hpp"
#include "harness/baselines.hpp"
#include "harness/cubin_kernel.hpp"
#include "harness/cuda_check.hpp"
#include "harness/cuda_raii.hpp"
#include "harness/device.hpp"
#include "harness/floors.hpp"
#include "harness/method.hpp"
#include "harness/kernel_method.hpp"
#include "harness/timing.hpp"
#include "harness/workspace.hpp"

namespace coalesce::tuner {

using nlohmann::json;

namespace {

// One problem's state in the worker. The device is selected before any member is built.
struct Session {
  explicit Session(const WorkerSetup& s)
      : device(select(s.device)),
        ws(s.problem, s.seed, stream.get()),
        timer(device, timing_of(s), stream.get()) {}
  static TimingSettings timing_of(const WorkerSetup& s) {
    return s.timing;
  }
  /// Throws NoDeviceError where the machine has no GPU (no driver, none visible) or not this
  /// one, so the worker answers "no_device" rather than a CUDA error; a broken driver stays one.
  static int select(int ordinal) {
    const DeviceCount devices = count_devices();
    if (!devices.driver_error && devices.count == 0) throw NoDeviceError("no CUDA device: " + devices.why);
    if (!devices.driver_error && ordinal >= devices.count)
      throw NoDeviceError("no CUDA device " + std::to_string(ordinal) + ": this machine has " +
                          std::to_string(devices.count));
    COALESCE_CUDA(cudaSetDevice(ordinal));
    return ordinal;
  }
  int device;
  Stream stream;
  Workspace ws;
  ColdTimer timer;
  Baselines baselines;
};

json result_json(const MethodResult& r, MethodRole role = MethodRole::gemm) {
  json j;
  // A floor is timed without a check (harness/method.hpp): its reply says so, and carries no
  // error figures for the parent to store.
  if (role == MethodRole::floor) j["checked"] = false;
  switch (r.status) {
    case Status::ok: j["status"] = "ok"; break;
    case Status::wrong_result: j["status"] = "wrong_result"; break;
    // A CUDA error that left the context usable (a launch the device refused) or a library
    // failure: the method did not run to completion.
    case Status::error:
    case Status::skipped: j["status"] = "launch_failed"; break;
  }
  j["detail"] = r.detail;
  if (r.check) {
    j["rel_err"] = r.check->errors.rel_frobenius;
    j["max_abs_err"] = r.check->errors.max_abs_err;
    j["max_scaled_err"] = r.check->errors.max_scaled_err;
  }
  if (r.timing) {
    const SampleStats& s = r.timing->stats;
    j["median_ms"] = s.median;
    j["min_ms"] = s.min;
    j["max_ms"] = s.max;
    j["p10_ms"] = s.p10;
    j["p90_ms"] = s.p90;
    j["samples"] = s.count;
    if (r.timing->sm_clock_before_mhz) j["sm_clock_before_mhz"] = *r.timing->sm_clock_before_mhz;
    if (r.timing->sm_clock_after_mhz) j["sm_clock_after_mhz"] = *r.timing->sm_clock_after_mhz;
  }
  return j;
}

std::string read_binary(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read the cubin " + path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

json measure_cubin(Session& s, const json& req, bool unfused) {
  const std::string image = read_binary(req.at("cubin").get<std::string>());
  const std::string symbol = req.at("symbol");
  const std::string name = req.at("config");
  const auto named = parse_config_name(name);
  if (!named) throw std::invalid_argument("'" + name + "' is not the name of a config of any family");
  const Config& config = named->config;
  CubinKernel kernel(image.data(), image.size(), symbol);
  const cudaFuncAttributes attributes = kernel.attributes();
  const Problem& p = s.ws.problem();
  Method m = kernel_method(config, unfused ? Epilogue::none : p.epilogue, kernel.function(), s.ws);
  if (unfused) m = then_bias_epilogue(m, s.ws);
  json j = result_json(run_method(m, s.ws, s.timer));
  j["driver_registers"] = attributes.numRegs;
  j["workspace_bytes"] = m.workspace_bytes;
  j["grid_blocks"] = find_family(config.family)->geometry(config, p, current_target()).blocks();
  return j;
}

json handle(const json& req, std::unique_ptr<Session>& session) {
  const std::string op = req.at("op");
  if (op == "setup") {
    session.reset();
    WorkerSetup s;
    s.device = req.at("device");
    s.problem.m = req.at("m");
    s.problem.n = req.at("n");
    s.problem.k = req.at("k");
    s.problem.dtype = parse_dtype(req.at("dtype").get<std::string>()).value();
    s.problem.epilogue = parse_epilogue(req.at("epilogue").get<std::string>()).value();
    s.seed = req.at("seed");
    if (req.contains("timing")) {
      try {
        s.timing = req.at("timing").get<TimingSettings>();
      } catch (const std::exception& e) {
        return {{"status", "error"}, {"detail", std::string("timing settings: ") + e.what()}};
      }
    }
    session = std::make_unique<Session>(s);
    return {{"status", "ok"}};
  }
  if (op == "ping") return {{"status", "ok"}};
  if (!session) return {{"status", "error"}, {"detail", "no problem was set up"}};
  if (op == "baseline") {
    const std::string method = req.at("method");
    std::optional<Method> m;
    std::string why_not = baseline_unavailable(method, session->ws.problem().epilogue);
    if (!why_not.empty()) return {{"status", "unavailable"}, {"detail", why_not}};
    if (method == "cublas_gemm") m = session->baselines.cublas_gemm(session->ws);
    else if (method == "eager") m = session->baselines.eager(session->ws);
    else if (method == "unfused") m = session->baselines.unfused(session->ws);
    else if (method == "cublaslt_fused") m = session->baselines.cublaslt_fused(session->ws, &why_not);
    else if (method == "read_b") m = read_b(session->ws);
    else return {{"status", "error"}, {"detail", "no baseline named '" + method + "'"}};
    if (!m) return {{"status", "unavailable"}, {"detail", why_not}};
    return result_json(run_method(*m, session->ws, session->timer), m->role);
  }
  if (op == "kernel") return measure_cubin(*session, req, /*unfused=*/false);
  if (op == "kernel_then_epilogue") return measure_cubin(*session, req, /*unfused=*/true);
  return {{"status", "error"}, {"detail", "unknown request '" + op + "'"}};
}

}  // namespace

int run_worker() {
  // The protocol owns the original stdout; anything a library prints goes to stderr instead.
  const int protocol_fd = dup(STDOUT_FILENO);
  dup2(STDERR_FILENO, STDOUT_FILENO);
  FILE* protocol = fdopen(protocol_fd, "w");
  if (!protocol) return 1;
  std::unique_ptr<Session> session;
  std::string line;
  while (std::getline(std::cin, line)) {
    json reply;
    bool context_lost = false;
    try {
      reply = handle(json::parse(line), session);
    } catch (const CudaError& e) {
      reply = {{"status", "launch_failed"}, {"detail", e.what()}};
      context_lost = e.sticky();
    } catch (const NoDeviceError& e) {
      reply = {{"status", "no_device"}, {"detail", e.what()}};
    } catch (const std::exception& e) {
      reply = {{"status", "error"}, {"detail", e.what()}};
    }
    if (context_lost) reply["fatal"] = true;
    std::fputs((reply.dump(-1, ' ', false, json::error_handler_t::replace) + "\n").c_str(), protocol);
    std::fflush(protocol);
    // After a sticky error every CUDA call fails, destructors included: leave at once and let
    // the parent start a fresh worker with a fresh context.
    if (context_lost) std::_Exit(3);
  }
  return 0;
}

}  // namespace coalesce::tuner
