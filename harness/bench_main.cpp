// coalesce-bench: the teaching rungs, the hand-picked simt configs and the four baselines over a
// list of shapes, each checked against the fp64 reference and then timed cold, in one process on
// one device. Prints the environment and an aligned table; writes CSV (--csv) and JSON with every
// sample (--json).
//
// Exit status as every tool's (docs/working.md): 0 every row ok or skipped; 1 the work failed (a
// failure stopped the run, or it finished with a row wrong_result or error); 2 bad usage (one line
// naming the option, before any device is touched); 3 no CUDA device.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "coalesce/version.h"
#include "harness/baselines.hpp"
#include "harness/bench_rows.hpp"
#include "harness/environment.hpp"
#include "harness/rungs.hpp"
#include "harness/simt_fixed.hpp"
#include "harness/timing_settings.hpp"
#include "harness/kernel_method.hpp"
#include "kernels/simt/family.hpp"
#include "schema/output_file.hpp"

namespace {

using namespace coalesce;

/// Square shapes 512…8192 plus two non-square ones: a tall-skinny GEMM and one whose sides are
/// multiples of nothing (odd N: only the vec=1 simt config can take it).
constexpr const char* kDefaultShapes = "512,1024,2048,4096,8192,4096x1024x4096,1000x4097x1000";
constexpr const char* kQuickShapes = "512,1000x1002x998";
constexpr int kJsonFormatVersion = 1;

struct Options {
  std::string shapes;
  std::string epilogue = "bias_gelu";
  std::string dtype = "f32";
  std::vector<std::string> methods, families;
  int max_naive = 2048;
  std::string csv, json;
  unsigned long long seed = 20261129;
  int device = 0;
  bool quick = false;
  TimingSettings timing;
};

/// The quick smoke run: few samples and short warm-ups; its numbers are not for comparison.
TimingSettings quick_settings(TimingSettings s) {
  s.min_samples = 5;
  s.max_samples = 50;
  s.budget_ms = 200;
  s.first_warmup_ms = 200;
  s.warmup_ms = 5;
  return s;
}

// CLI11's PositiveNumber and NonNegativeNumber refuse with their range printed as "0.000000 to
// 1797...(300 digits).000000"; these say the rule in words.
CLI::Validator at_least(double floor, bool or_equal, const char* words) {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        double v = 0;
        if (CLI::detail::lexical_cast(text, v) && (v > floor || (or_equal && v == floor))) return {};
        return "'" + text + "' is not " + words;
      },
      words);
}
const CLI::Validator kPositive = at_least(0, false, "a positive number");
const CLI::Validator kNonNegative = at_least(0, true, "a non-negative number");

bool wanted(const std::vector<std::string>& filter, const std::string& value) {
  return filter.empty() || std::find(filter.begin(), filter.end(), value) != filter.end();
}

std::string shape_text(const Problem& p) {
  return std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k);
}

/// A method to run on one problem, or the reason it is not run.
struct Planned {
  std::string method, family, config;
  std::function<Method()> make;  // builds the Method once its problem's workspace exists
  std::string skip_reason;
};

int run(const Options& o) {
  const Epilogue epilogue = *parse_epilogue(o.epilogue);
  std::string error;
  auto problems = parse_shapes(o.shapes, epilogue, &error);
  if (!problems) {
    std::fprintf(stderr, "coalesce-bench: %s\n", error.c_str());
    return 2;
  }
  for (Problem& p : *problems) p.dtype = *parse_dtype(o.dtype);
  const Environment env = capture_environment(o.device, o.timing);
  COALESCE_CUDA(cudaSetDevice(o.device));
  std::printf("coalesce-bench %s\n%s", o.quick ? "(quick: smoke run, not for comparison)" : "",
              format_environment(env).c_str());
  std::fflush(stdout);

  Stream stream;
  ColdTimer timer(o.device, o.timing, stream.get());
  Baselines baselines;
  std::vector<BenchRow> rows;

  std::string stopped_by;  // a sticky CUDA error ends the run early
  for (std::size_t si = 0; si < problems->size() && stopped_by.empty(); ++si) {
    const Problem& p = (*problems)[si];
    Workspace ws(p, o.seed + (static_cast<unsigned long long>(si) << 32), stream.get());
    std::vector<Planned> plan;
    for (Rung r : kRungs) {
      const std::string family(to_string(r));
      if (!wanted(o.methods, "coalesce") || !wanted(o.families, family)) continue;
      Planned pl{"coalesce", family, rung_config_name(r, p.dtype, p.epilogue), [r, &ws] { return rung_method(r, ws); }, ""};
      const double limit = static_cast<double>(o.max_naive);
      if (r == Rung::naive && static_cast<double>(p.m) * p.n * p.k > limit * limit * limit)
        pl.skip_reason = "larger than --max-naive " + std::to_string(o.max_naive) + "^3";
      plan.push_back(pl);
    }
    if (wanted(o.methods, "coalesce") && wanted(o.families, "simt")) {
      for (const FixedSimtKernel& k : fixed_simt_kernels()) {
        if (k.epilogue != p.epilogue) continue;
        const Config config = from_simt(k.config);
        Planned pl{"coalesce", "simt", config_name(config, p.dtype, k.epilogue),
                   [config, k, &ws] { return kernel_method(config, k.epilogue, k.kernel, ws); }, ""};
        const Verdict v = simt_family().check_problem(config, p);
        if (!v.ok()) pl.skip_reason = v.why;
        plan.push_back(pl);
      }
    }
    const std::pair<const char*, Method (Baselines::*)(Workspace&)> fixed_baselines[] = {
        {"cublas_gemm", &Baselines::cublas_gemm}, {"eager", &Baselines::eager}, {"unfused", &Baselines::unfused}};
    for (const auto& [name, make] : fixed_baselines) {
      if (!wanted(o.methods, name) || !wanted(o.families, "cublas")) continue;
      // A baseline without a sequence for the epilogue (eager of a gated one) is a skipped row.
      if (const std::string why = baseline_unavailable(name, p.epilogue); !why.empty()) {
        plan.push_back({name, "cublas", "", [why]() -> Method { throw std::invalid_argument(why); }, why});
        continue;
      }
      plan.push_back({name, "cublas", baseline_config_name(name, p.dtype, p.epilogue),
                      [&baselines, &ws, make = make] { return (baselines.*make)(ws); }, ""});
    }
    if (const std::string why = baseline_unavailable("cublaslt_fused", p.epilogue);
        !why.empty() && wanted(o.methods, "cublaslt_fused") && wanted(o.families, "cublaslt")) {
      plan.push_back({"cublaslt_fused", "cublaslt", "", [why]() -> Method { throw std::invalid_argument(why); }, why});
    } else if (wanted(o.methods, "cublaslt_fused") && wanted(o.families, "cublaslt")) {
      plan.push_back({"cublaslt_fused", "cublaslt", baseline_config_name("cublaslt_fused", p.dtype, p.epilogue),
                      [&baselines, &ws] {
                        std::string why;
                        auto m = baselines.cublaslt_fused(ws, &why);
                        if (!m) throw std::invalid_argument(why);
                        return *m;
                      },
                      ""});
    }

    for (std::size_t i = 0; i < plan.size(); ++i) {
      const Planned& pl = plan[i];
      std::fprintf(stderr, "[shape %zu/%zu, %zu/%zu] %s %s/%s %s ... ", si + 1, problems->size(), i + 1,
                   plan.size(), shape_text(p).c_str(), pl.method.c_str(), pl.family.c_str(), pl.config.c_str());
      if (!pl.skip_reason.empty()) {
        rows.push_back(unmeasured_row(p, pl.method, pl.family, pl.config, Status::skipped, pl.skip_reason));
        std::fprintf(stderr, "skipped (%s)\n", pl.skip_reason.c_str());
        continue;
      }
      Method m;
      try {
        m = pl.make();
      } catch (const std::invalid_argument& e) {
        rows.push_back(unmeasured_row(p, pl.method, pl.family, pl.config, Status::skipped, e.what()));
        std::fprintf(stderr, "skipped (%s)\n", e.what());
        continue;
      }
      BenchRow row{p, m.method, m.family, m.config, {}};
      try {
        row.result = run_method(m, ws, timer);
      } catch (const CudaError& e) {
        // Sticky: the context is gone. Keep the row and report what was measured before it.
        row.result.status = Status::error;
        row.result.detail = e.what();
        rows.push_back(std::move(row));
        std::fprintf(stderr, "error (%s)\n", e.what());
        stopped_by = e.what();
        break;
      }
      if (row.result.timing)
        std::fprintf(stderr, "%s %.4f ms\n", std::string(to_string(row.result.status)).c_str(),
                     row.result.timing->stats.median);
      else
        std::fprintf(stderr, "%s (%s)\n", std::string(to_string(row.result.status)).c_str(),
                     row.result.detail.c_str());
      rows.push_back(std::move(row));
    }
  }

  std::printf("%s", format_table(rows).c_str());
  if (!o.csv.empty()) {
    std::string csv = std::string(kBenchCsvHeader) + "\n";
    for (const BenchRow& r : rows) csv += csv_line(r) + "\n";
    files::write_whole(o.csv, csv);
  }
  if (!o.json.empty()) {
    nlohmann::json j = {{"format_version", kJsonFormatVersion},
                        {"tool", "coalesce-bench"},
                        {"environment", env},
                        {"rows", rows}};
    files::write_whole(o.json, j.dump(1) + "\n");
  }
  if (!stopped_by.empty()) {
    std::fprintf(stderr, "coalesce-bench: stopped early, the CUDA context is unusable: %s\n", stopped_by.c_str());
    return 1;
  }
  for (const BenchRow& r : rows)
    if (r.result.status == Status::wrong_result || r.result.status == Status::error) return 1;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"coalesce-bench: the teaching rungs, hand-picked simt configs and the four baselines, "
               "checked against an fp64 reference and timed cold (L2 flushed), on one GPU"};
  app.set_version_flag("--version", std::string("coalesce-bench ") + COALESCE_VERSION + " (git " +
                                        COALESCE_GIT_REVISION + ")");
  app.footer("Exit status: 0 every row ok or skipped, 1 the work failed (or a row is wrong), 2 bad usage, 3 no "
             "CUDA device (docs/working.md).");
  Options o;
  std::vector<std::string> shape_args;
  std::string deprecated_shapes;
  app.add_option("--shape", shape_args,
                 std::string("N (NxNxN) or MxNxK (x or ×), each side 1 to ") + std::to_string(kMaxExtent) +
                     "; repeatable, or comma-separated; default " + kDefaultShapes + " (--quick: " + kQuickShapes +
                     ")")
      ->allow_extra_args(false);
  // The old spelling, kept working so scripts written for it still run: every tool says --shape.
  app.add_option("--shapes", deprecated_shapes, "deprecated: --shape")->group("");
  app.add_option("--epilogue", o.epilogue, "fused epilogue of every problem")
      ->check(CLI::IsMember({"none", "bias", "bias_relu", "bias_gelu"}))
      ->default_val("bias_gelu");
  app.add_option("--dtype", o.dtype, "the GEMM's types: f32, tf32, bf16 or f16 (docs/kernels.md)")
      ->check(CLI::IsMember({"f32", "tf32", "bf16", "f16"}))
      ->default_val("f32");
  app.add_option("--method", o.methods, "only these methods (repeat or comma-separate)")
      ->delimiter(',')
      ->check(CLI::IsMember({"coalesce", "cublas_gemm", "eager", "unfused", "cublaslt_fused"}));
  app.add_option("--family", o.families, "only these families (repeat or comma-separate)")
      ->delimiter(',')
      ->check(CLI::IsMember({"naive", "tiled", "reg4x4", "simt", "cublas", "cublaslt"}));
  app.add_option("--max-naive", o.max_naive, "skip the naive rung above this cube root of M·N·K")
      ->default_val(2048)
      ->check(kPositive);
  app.add_option("--csv", o.csv, "write the rows as CSV to this file");
  app.add_option("--json", o.json, "write the environment and every row with all samples as JSON");
  std::string seed_text;
  app.add_option("--seed", seed_text, "seed of the random inputs, 0 to 2^64 - 1 (default 20261129)");
  app.add_option("--device", o.device, "CUDA device ordinal")->default_val(0)->check(kNonNegative);
  app.add_flag("--quick", o.quick, "smoke run: two small shapes, few samples, short warm-up");
  app.add_option("--min-samples", o.timing.min_samples, "samples at least")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  app.add_option("--max-samples", o.timing.max_samples, "samples at most")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  app.add_option("--budget-ms", o.timing.budget_ms, "wall-time budget per kernel after min samples")
      ->capture_default_str()
      ->check(kPositive);
  // The shared timing protocol (docs/tuner.md, "The timing protocol"): the same spin as
  // coalesce-tune sweep's and the peers'.
  o.timing.spin_cycles = kDefaultSpinCycles;
  app.add_option("--spin-cycles", o.timing.spin_cycles,
                 "SM clock cycles of a GPU spin before each sample (0: none, the window opens right behind the L2 "
                 "flush)")
      ->capture_default_str()
      ->check(CLI::Range(0LL, 1000000000LL));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::fprintf(stderr, "coalesce-bench: %s (see --help)\n", e.what());
    return 2;
  }

  if (!seed_text.empty()) {
    const std::optional<unsigned long long> seed = parse_seed(seed_text);
    if (!seed) {
      std::fprintf(stderr, "coalesce-bench: --seed '%s' is not %s\n", seed_text.c_str(), kSeedRange);
      return 2;
    }
    o.seed = *seed;
  }
  if (!o.csv.empty() && !o.json.empty()) {
    try {
      files::refuse_output_onto_inputs("--json", o.json, {{o.csv, "--csv", false}});
    } catch (const files::OutputIsInput& e) {
      std::fprintf(stderr, "coalesce-bench: %s\n", e.what());
      return 2;
    }
  }
  if (!deprecated_shapes.empty()) {
    std::fprintf(stderr, "coalesce-bench: --shapes is deprecated: use --shape (repeatable; a comma-separated list "
                         "still works)\n");
    shape_args.push_back(deprecated_shapes);
  }
  for (const std::string& s : shape_args) o.shapes += (o.shapes.empty() ? "" : ",") + s;
  if (o.quick) {
    const TimingSettings user = o.timing;
    o.timing = quick_settings(o.timing);
    if (app.count("--min-samples")) o.timing.min_samples = user.min_samples;
    if (app.count("--max-samples")) o.timing.max_samples = user.max_samples;
    if (app.count("--budget-ms")) o.timing.budget_ms = user.budget_ms;
  }
  if (o.shapes.empty()) o.shapes = o.quick ? kQuickShapes : kDefaultShapes;
  if (o.timing.max_samples < o.timing.min_samples) {
    std::fprintf(stderr, "coalesce-bench: --max-samples (%d) is below --min-samples (%d)\n",
                 o.timing.max_samples, o.timing.min_samples);
    return 2;
  }
  try {
    return run(o);
  } catch (const NoDeviceError& e) {
    std::fprintf(stderr, "coalesce-bench: %s\n", e.what());
    return 3;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "coalesce-bench: %s\n", e.what());
    return 1;
  }
}
