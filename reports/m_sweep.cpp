// The report's throughput-against-M tables (issue 12, see report.hpp): per device, dtype,
// epilogue, N and K, the fastest fused config at each M beside the library, the peers and the
// read_b floor of the same run.
#include <algorithm>
#include <map>
#include <tuple>

#include "kernels/core/problem.hpp"
#include "report.hpp"
#include "schema/vocabulary.hpp"

namespace coalesce::report {

namespace {

Column col(std::string key, std::string header, int precision = -1, bool markdown = true) {
  return {std::move(key), std::move(header), precision, markdown};
}
Value text(std::string s) { return Value(std::move(s)); }
Value integer(std::int64_t n) { return Value(n); }

bool is_peer(const std::string& method) {
  const db::MethodInfo* m = db::find_method(method);
  return m && m->origin == db::MethodOrigin::peer;
}

/// The methods timed beside the fused kernel, in kMethods' order: the baselines, the winner
/// unfused, then the peers. The floors have columns of their own.
std::vector<std::string> compared_methods() {
  std::vector<std::string> out;
  for (const db::MethodInfo& m : db::kMethods)
    if (m.name != "coalesce" && m.kind == db::MethodKind::gemm) out.emplace_back(m.name);
  return out;
}

/// The median of the ok `read_b` row of one run, device and problem, if it measured one.
std::optional<double> floor_of(const db::Database& db, std::int64_t run, std::int64_t device, std::int64_t problem) {
  auto rs = db.query(
      "SELECT median_ms FROM measurements WHERE run_id = ?1 AND device_id = ?2 AND problem_id = ?3 "
      "AND method = 'read_b' AND config_id IS NULL AND status = 'ok'",
      {integer(run), integer(device), integer(problem)});
  if (rs.rows.empty()) return std::nullopt;
  return db::as_double(rs.rows[0][0]);
}

}  // namespace

double MSweepGroup::b_bytes() const {
  return static_cast<double>(k) * n * element_bytes(gemm_types(*parse_dtype(dtype)).b);
}

std::vector<MSweepGroup> m_sweep_groups(const db::Database& db, const std::vector<ComparisonEntry>& entries) {
  // Device, then dtype and epilogue in their declared order, then N and K.
  using Key = std::tuple<std::int64_t, int, int, int, int>;
  std::map<Key, MSweepGroup> groups;
  for (const auto& [problem, block] : fastest_family_blocks(entries)) {
    const ComparisonEntry& fused = entries[block.first];
    MSweepGroup& g = groups[{fused.device_id, static_cast<int>(*parse_dtype(fused.dtype)),
                             static_cast<int>(*parse_epilogue(fused.epilogue)), fused.n, fused.k}];
    if (g.points.empty()) {
      g.device_id = fused.device_id;
      g.device = fused.device;
      g.dtype = fused.dtype;
      g.epilogue = fused.epilogue;
      g.n = fused.n;
      g.k = fused.k;
    }
    MSweepPoint p;
    p.m = fused.m;
    p.problem_id = fused.problem_id;
    p.run = fused.run;
    p.family = fused.family;
    p.config = fused.config;
    p.fused_ms = fused.best_median_ms;
    for (std::size_t i = block.first + 1; i < block.second; ++i) {
      const ComparisonEntry& x = entries[i];
      // A group is one device: a peer of another device of the model stays in the comparison.
      if (x.cross_device()) {
        g.cross_device_peers_left_out = true;
        continue;
      }
      if (x.status != "ok" || !x.median_ms) continue;
      if (is_peer(x.method) || x.run == fused.run) p.others[x.method] = {*x.median_ms, x.run};
    }
    p.floor_ms = floor_of(db, fused.run, fused.device_id, fused.problem_id);
    g.points.push_back(std::move(p));
  }
  std::vector<MSweepGroup> out;
  for (auto& [key, g] : groups) {
    if (g.points.size() < kMinSweepPoints) continue;
    std::sort(g.points.begin(), g.points.end(), [](const auto& a, const auto& b) { return a.m < b.m; });
    out.push_back(std::move(g));
  }
  return out;
}

Table m_sweep_table(const std::vector<MSweepGroup>& groups) {
  Table t;
  t.name = "m_sweep";
  t.title = "Throughput against M";
  t.group_by = {"device", "dtype", "epilogue", "shape"};
  t.hide_empty_columns = true;
  // The peers' columns exist where some group has a peer; the baselines' always (a group that
  // lacks one hides its column in markdown).
  std::vector<std::string> methods;
  for (const std::string& method : compared_methods()) {
    const bool any = std::any_of(groups.begin(), groups.end(), [&](const MSweepGroup& g) {
      return std::any_of(g.points.begin(), g.points.end(), [&](const MSweepPoint& p) { return p.others.count(method); });
    });
    if (any || !is_peer(method)) methods.push_back(method);
  }
  t.columns = {col("device", "device"), col("dtype", "dtype"), col("epilogue", "epilogue"),
               col("shape", "shape"), col("n", "N", -1, false), col("k", "K", -1, false),
               col("m", "M"), col("run", "run"), col("family", "best family"), col("config", "best config"),
               col("fused_us", "fused (µs)", 1), col("fused_tflops", "fused TFLOP/s", 2)};
  for (const std::string& method : methods) t.columns.push_back(col(method + "_us", method + " (µs)", 1));
  for (Column c : {col("pct_cublas", "fused % of cuBLAS GEMM's speed", 1), col("vs_eager", "fused vs eager (×)", 3),
                   col("floor_us", "B-read floor: read_b (µs)", 1), col("vs_floor", "fused ÷ floor (×)", 2),
                   col("cublas_vs_floor", "cuBLAS GEMM ÷ floor (×)", 2), col("b_read_tb_per_s", "B read (TB/s)", 2)})
    t.columns.push_back(std::move(c));

  bool cross_device = false;
  for (const MSweepGroup& g : groups) {
    cross_device = cross_device || g.cross_device_peers_left_out;
    const std::string shape = "M×" + std::to_string(g.n) + "×" + std::to_string(g.k);
    for (const MSweepPoint& p : g.points) {
      auto time_of = [&](const std::string& method) -> std::optional<double> {
        auto it = p.others.find(method);
        return it == p.others.end() ? std::nullopt : std::optional<double>(it->second.ms);
      };
      const std::optional<double> cublas = time_of("cublas_gemm"), eager = time_of("eager");
      std::vector<Value> row = {text(g.device), text(g.dtype), text(g.epilogue), text(shape), integer(g.n),
                                integer(g.k), integer(p.m), integer(p.run), text(p.family), text(p.config),
                                Value(p.fused_ms * 1e3), Value(2.0 * p.m * g.n * g.k / (p.fused_ms * 1e9))};
      for (const std::string& method : methods) {
        const std::optional<double> ms = time_of(method);
        row.push_back(ms ? Value(*ms * 1e3) : Value());
      }
      row.push_back(cublas ? Value(*cublas / p.fused_ms * 100.0) : Value());
      row.push_back(eager ? Value(*eager / p.fused_ms) : Value());
      if (p.floor_ms) {
        row.push_back(Value(*p.floor_ms * 1e3));
        row.push_back(Value(p.fused_ms / *p.floor_ms));
        row.push_back(cublas ? Value(*cublas / *p.floor_ms) : Value());
        row.push_back(Value(g.b_bytes() / (*p.floor_ms * 1e-3) / 1e12));
      } else {
        row.insert(row.end(), 4, Value());
      }
      t.rows.push_back(std::move(row));
    }
  }
  t.notes = {
      "Per device, dtype, epilogue, N and K measured at " + std::to_string(kMinSweepPoints) +
          " or more M, one row per M: the fastest family's best config there (as the summary picks it), its time "
          "and throughput (2·M·N·K ÷ median), and in µs the other methods: the baselines and the winner's own "
          "unfused build (`coalesce_unfused`) of the same run, the peers from the device's own latest runs (as in "
          "the comparison). fused % of cuBLAS GEMM's speed = cuBLAS GEMM's time ÷ the fused time × 100 (cuBLAS "
          "GEMM computes no epilogue); fused vs eager = eager's time ÷ the fused time (above 1: the fused kernel is "
          "faster). A method a group never measured has no column in its markdown table.",
      "B-read floor: the same run's `read_b`, a kernel that reads the problem's B once (K × N in the dtype's "
      "storage type) with the same cold harness and nothing else: no GEMM that reads B can take less, and where "
      "B's traffic dominates (small M) it is the bound of issue 12, which asks fused ÷ floor ≤ 1.5 for M ≤ 8. "
      "B read = B's bytes ÷ the floor, the bandwidth this GPU reached. It is a bound, not a peer, so it appears in "
      "no other table; a run that measured no floor (before read_b existed) leaves these columns empty."};
  if (cross_device)
    t.notes.push_back("A group is one device: the peers taken from another device of the same model "
                      "(--same-model) are in the comparison only, marked cross-device.");
  return t;
}

}  // namespace coalesce::report
