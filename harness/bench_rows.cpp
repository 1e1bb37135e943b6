// Printers of benchmark rows (see bench_rows.hpp).
#include "bench_rows.hpp"

#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

namespace coalesce {

namespace {

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string shape(const Problem& p) {
  return std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k);
}

bool same_problem(const Problem& a, const Problem& b) {
  return a.m == b.m && a.n == b.n && a.k == b.k && a.dtype == b.dtype && a.epilogue == b.epilogue;
}

}  // namespace

double BenchRow::tflops() const {
  if (!result.timing || result.timing->stats.median <= 0) return 0;
  return problem.flops() / (result.timing->stats.median * 1e-3) / 1e12;
}

BenchRow unmeasured_row(const Problem& p, const std::string& method, const std::string& family,
                        const std::string& config, Status status, const std::string& why) {
  BenchRow r{p, method, family, config, {}};
  r.result.status = status;
  r.result.detail = why;
  return r;
}

std::string csv_line(const BenchRow& row) {
  const Problem& p = row.problem;
  std::string s = std::to_string(p.m) + "," + std::to_string(p.n) + "," + std::to_string(p.k) + "," +
                  std::string(to_string(p.dtype)) + "," + std::string(to_string(p.epilogue)) + "," +
                  row.method + "," + row.family + "," + row.config + ",";
  if (row.result.timing) {
    const SampleStats& st = row.result.timing->stats;
    s += number(st.median) + "," + number(st.min) + "," + number(st.max) + "," + number(row.tflops()) + ",";
  } else {
    s += ",,,,";
  }
  if (row.result.check) s += number(row.result.check->errors.rel_frobenius);
  s += "," + std::string(to_string(row.result.status));
  return s;
}

std::string format_table(const std::vector<BenchRow>& rows) {
  std::size_t config_width = 6;
  for (const BenchRow& r : rows) config_width = std::max(config_width, r.config.size());
  std::ostringstream out;
  char buf[512];
  const int cw = static_cast<int>(config_width);
  std::snprintf(buf, sizeof buf, "%-16s %-14s %-8s %-*s %10s %8s %7s %7s %5s %9s  %s\n", "shape",
                "method", "family", cw, "config", "median_ms", "TFLOP/s", "%cuBLAS", "spread", "n",
                "rel_err", "status");
  const std::string header = buf;
  for (std::size_t i = 0; i < rows.size();) {
    std::size_t end = i;
    while (end < rows.size() && same_problem(rows[end].problem, rows[i].problem)) ++end;
    double cublas = 0;
    for (std::size_t j = i; j < end; ++j)
      if (rows[j].method == "cublas_gemm") cublas = rows[j].tflops();
    out << "\n" << header;
    for (std::size_t j = i; j < end; ++j) {
      const BenchRow& r = rows[j];
      std::string median = "-", tflops = "-", pct = "-", spread = "-", n = "-", err = "-";
      if (r.result.timing) {
        const SampleStats& st = r.result.timing->stats;
        std::snprintf(buf, sizeof buf, "%.4f", st.median);
        median = buf;
        std::snprintf(buf, sizeof buf, "%.2f", r.tflops());
        tflops = buf;
        if (cublas > 0) {
          std::snprintf(buf, sizeof buf, "%.1f", 100.0 * r.tflops() / cublas);
          pct = buf;
        }
        std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * st.rel_spread);
        spread = buf;
        n = std::to_string(st.count);
      }
      if (r.result.check) {
        std::snprintf(buf, sizeof buf, "%.2e", r.result.check->errors.rel_frobenius);
        err = buf;
      }
      std::string status(to_string(r.result.status));
      if (!r.result.detail.empty() && r.result.status != Status::ok) status += " (" + r.result.detail + ")";
      std::snprintf(buf, sizeof buf, "%-16s %-14s %-8s %-*s %10s %8s %7s %7s %5s %9s  %s\n",
                    shape(r.problem).c_str(), r.method.c_str(), r.family.c_str(), cw, r.config.c_str(),
                    median.c_str(), tflops.c_str(), pct.c_str(), spread.c_str(), n.c_str(),
                    err.c_str(), status.c_str());
      out << buf;
    }
    // The best fused simt kernel of each shape against each baseline of that shape.
    const BenchRow* best = nullptr;
    std::map<std::string, double> baseline;
    for (std::size_t j = i; j < end; ++j) {
      const BenchRow& r = rows[j];
      if (!r.result.timing) continue;
      if (r.method == "coalesce" && r.family == "simt" && (!best || r.tflops() > best->tflops())) best = &r;
      if (r.method != "coalesce") baseline[r.method] = r.tflops();
    }
    if (best) {
      out << "best simt " << best->config << ": " << number(best->tflops()) << " TFLOP/s";
      for (const auto& [method, tf] : baseline) {
        std::snprintf(buf, sizeof buf, "; %.2fx %s", best->tflops() / tf, method.c_str());
        out << buf;
      }
      out << "\n";
    }
    i = end;
  }
  return out.str();
}

void to_json(nlohmann::json& j, const BenchRow& row) {
  const Problem& p = row.problem;
  j = nlohmann::json{{"m", p.m},
                     {"n", p.n},
                     {"k", p.k},
                     {"dtype", to_string(p.dtype)},
                     {"epilogue", to_string(p.epilogue)},
                     {"method", row.method},
                     {"family", row.family},
                     {"config", row.config},
                     {"status", to_string(row.result.status)},
                     {"detail", row.result.detail},
                     {"input_seed", row.result.input_seed}};
  if (row.result.check) {
    const CheckResult& c = *row.result.check;
    j["check"] = {{"rel_frobenius", c.errors.rel_frobenius}, {"max_abs_err", c.errors.max_abs_err},
                  {"max_abs_ref", c.errors.max_abs_ref},     {"max_scaled_err", c.errors.max_scaled_err},
                  {"non_finite", c.errors.non_finite},       {"count", c.errors.count},
                  {"passed", c.passed},                      {"tolerance_rel_frobenius", c.tolerance.rel_frobenius},
                  {"tolerance_max_scaled", c.tolerance.max_scaled}};
  }
  if (row.result.timing) {
    const Timing& t = *row.result.timing;
    const SampleStats& s = t.stats;
    auto clock = [](const std::optional<int>& c) { return c ? nlohmann::json(*c) : nlohmann::json(nullptr); };
    j["timing"] = {{"median_ms", s.median},          {"min_ms", s.min},
                   {"max_ms", s.max},                {"p10_ms", s.p10},
                   {"p90_ms", s.p90},                {"mean_ms", s.mean},
                   {"stdev_ms", s.stdev},            {"rel_spread", s.rel_spread},
                   {"rel_std_error", s.rel_std_error}, {"samples", s.count},
                   {"stop", to_string(t.stop)},      {"warmup_launches", t.warmup_launches},
                   {"warmup_gpu_ms", t.warmup_gpu_ms}, {"sm_clock_before_mhz", clock(t.sm_clock_before_mhz)},
                   {"sm_clock_after_mhz", clock(t.sm_clock_after_mhz)}, {"tflops", row.tflops()},
                   {"samples_ms", t.samples_ms}};
  }
}

std::optional<std::vector<Problem>> parse_shapes(const std::string& list, Epilogue epilogue,
                                                 std::string* error) {
  std::vector<Problem> problems;
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    const std::string item = list.substr(start, comma - start);
    std::string why;
    std::optional<Problem> p = parse_extents(item, &why);
    if (!p) {
      if (error) *error = "bad shape '" + item + "': " + why;
      return std::nullopt;
    }
    p->epilogue = epilogue;
    problems.push_back(*p);
    start = comma + 1;
  }
  return problems;
}

}  // namespace coalesce
