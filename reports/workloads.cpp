// The report's workload tables (`coalesce-report --workload FILE`, see report.hpp): a model's
// linear layers summed per method from the same per-problem picks the summary makes.
#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "report.hpp"
#include "schema/vocabulary.hpp"

namespace coalesce::report {

namespace {

Column col(std::string key, std::string header, int precision = -1, bool markdown = true) {
  return {std::move(key), std::move(header), precision, markdown};
}
Value text(std::string s) { return Value(std::move(s)); }
Value integer(std::int64_t n) { return Value(n); }
Value value_of(const std::optional<double>& d) { return d ? Value(*d) : Value(); }

/// The methods a workload is summed for, in the report's order: the fused kernel, the baselines
/// of its run, then the peers (only where the database holds some).
std::vector<std::string> summed_methods(bool peers) {
  std::vector<std::string> out;
  for (const db::MethodInfo& m : db::kMethods) {
    if (m.name == "coalesce_unfused") continue;  // the winner's own unfused build: a diagnosis, not a path
    if (m.kind == db::MethodKind::floor) continue;  // read_b: a bound of one problem, not a path
    if (m.origin == db::MethodOrigin::peer && !peers) continue;
    out.emplace_back(m.name);
  }
  return out;
}

bool is_peer(const std::string& method) {
  const db::MethodInfo* m = db::find_method(method);
  return m && m->origin == db::MethodOrigin::peer;
}

/// One problem's time per method on one device: the fastest family's best config, the baselines
/// of that config's run, the peers of their own latest runs; ok rows only.
struct ProblemTimes {
  std::int64_t run = 0;
  std::map<std::string, double> ms;
  std::set<std::string> tried;  ///< the methods with a row on the problem, ok or not
};

ProblemTimes times_of(const std::vector<ComparisonEntry>& entries, std::pair<std::size_t, std::size_t> block) {
  const ComparisonEntry& fused = entries[block.first];
  ProblemTimes t;
  t.run = fused.run;
  t.ms["coalesce"] = fused.best_median_ms;
  for (std::size_t i = block.first + 1; i < block.second; ++i) {
    const ComparisonEntry& x = entries[i];
    t.tried.insert(x.method);
    if (x.status != "ok" || !x.median_ms) continue;
    const db::MethodInfo* m = db::find_method(x.method);
    if (!m || x.method == "coalesce_unfused") continue;
    if (m->origin == db::MethodOrigin::peer || x.run == fused.run) t.ms[x.method] = *x.median_ms;
  }
  return t;
}

using ProblemKey = std::tuple<std::int64_t, int, int, int, std::string, std::string>;  // device, M, N, K, dtype, epilogue

ProblemKey key_of(std::int64_t device, const Problem& p) {
  return {device, p.m, p.n, p.k, std::string(to_string(p.dtype)), std::string(to_string(p.epilogue))};
}

/// A line of the workload resolved for one dtype, with its problem's times when measured.
struct Resolved {
  const WorkloadLine* line;
  Problem problem;
  const ProblemTimes* times;  ///< nullptr: missing on this device
};

std::string plural(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

/// The `workloads` row of `lines` (one M, or every line: `m` unset).
std::vector<Value> total_row(const std::string& workload, const std::string& device, Dtype dtype,
                             std::optional<int> m, const std::vector<Resolved>& lines,
                             const std::vector<std::string>& methods) {
  std::vector<Problem> problems, measured;
  std::set<std::int64_t> runs;
  for (const Resolved& r : lines) {
    add_unique(problems, r.problem);
    if (!r.times) continue;
    add_unique(measured, r.problem);
    runs.insert(r.times->run);
  }
  std::map<std::string, std::optional<double>> total;
  std::vector<std::string> lacking;
  for (const std::string& method : methods) {
    double sum = 0;
    std::vector<Problem> without;
    bool tried = false;
    for (const Resolved& r : lines) {
      if (!r.times) continue;
      tried = tried || method == "coalesce" || r.times->tried.count(method);
      auto it = r.times->ms.find(method);
      if (it == r.times->ms.end()) add_unique(without, r.problem);
      else sum += it->second * static_cast<double>(r.line->count);
    }
    if (measured.empty()) total[method] = std::nullopt;
    else if (without.empty()) total[method] = sum;
    else if (tried || !is_peer(method))  // a peer never run on these problems is absent, without a note
      lacking.push_back(method + " (no ok row on " + plural(without.size(), "problem", "problems") + ")");
  }
  std::string runs_text;
  for (std::int64_t r : runs) runs_text += (runs_text.empty() ? "" : ", ") + std::to_string(r);
  const std::string sum = measured.empty() ? "nothing measured"
                          : measured.size() == problems.size() ? "complete"
                                                               : "partial";
  std::string note;
  if (!lacking.empty()) {
    note = "no total for ";
    for (std::size_t i = 0; i < lacking.size(); ++i) note += (i ? ", " : "") + lacking[i];
  }
  auto ratio = [&](const std::string& other) -> Value {
    const auto& fused = total["coalesce"];
    const auto& o = total[other];
    return fused && o ? Value(*o / *fused) : Value();
  };
  std::vector<Value> row = {text(workload),
                            text(device),
                            text(std::string(to_string(dtype))),
                            text(m ? "M = " + std::to_string(*m) : std::string("every row")),
                            m ? integer(*m) : Value(),
                            integer(static_cast<std::int64_t>(lines.size())),
                            integer(static_cast<std::int64_t>(problems.size())),
                            integer(static_cast<std::int64_t>(measured.size())),
                            text(sum),
                            text(runs_text)};
  for (const std::string& method : methods) row.push_back(value_of(total[method]));
  row.push_back(ratio("eager"));
  row.push_back(ratio("cublas_gemm"));
  row.push_back(text(note));
  return row;
}

}  // namespace

std::vector<Table> workload_tables(const db::Database& db, const Filters& f, const std::vector<Workload>& workloads) {
  // A workload's problems are its lines: --shape does not narrow them, and --epilogue fills
  // empty epilogue fields rather than hiding the lines that name another.
  Filters wf = f;
  wf.shapes.clear();
  wf.epilogue.clear();
  const std::vector<ComparisonEntry> entries = comparison_entries(db, wf);
  std::map<ProblemKey, ProblemTimes> measured;
  std::vector<std::pair<std::int64_t, std::string>> devices;  // id, label, in the report's order
  bool peers = false;
  for (const auto& [key, block] : fastest_family_blocks(entries)) {
    const ComparisonEntry& e = entries[block.first];
    const Problem p{e.m, e.n, e.k, *parse_dtype(e.dtype), *parse_epilogue(e.epilogue)};
    measured[key_of(e.device_id, p)] = times_of(entries, block);
    if (std::find_if(devices.begin(), devices.end(), [&](const auto& d) { return d.first == e.device_id; }) ==
        devices.end())
      devices.emplace_back(e.device_id, e.device);
    for (std::size_t i = block.first; i < block.second; ++i) {
      const db::MethodInfo* m = db::find_method(entries[i].method);
      peers = peers || (m && m->origin == db::MethodOrigin::peer);
    }
  }
  std::sort(devices.begin(), devices.end());
  const std::vector<std::string> methods = summed_methods(peers);
  const Epilogue default_epilogue = f.epilogue.empty() ? Epilogue::bias_gelu : *parse_epilogue(f.epilogue);
  const std::vector<Dtype> dtypes = f.dtype.empty() ? all_dtypes() : std::vector<Dtype>{*parse_dtype(f.dtype)};

  Table totals;
  totals.name = "workloads";
  totals.title = "Workloads: each method's time for the whole workload";
  totals.columns = {col("workload", "workload"),
                    col("device", "device"),
                    col("dtype", "dtype"),
                    col("part", "which rows"),
                    col("m", "M", -1, false),
                    col("rows", "rows"),
                    col("problems", "problems"),
                    col("measured", "measured"),
                    col("sum", "sum"),
                    col("runs", "runs")};
  for (const std::string& method : methods) totals.columns.push_back(col(method + "_ms", method + " (ms)", 4));
  for (Column c : {col("vs_eager", "fused vs eager (×)", 3), col("vs_cublas_gemm", "fused vs cuBLAS GEMM alone (×)", 3),
                   col("note", "note")})
    totals.columns.push_back(std::move(c));
  totals.group_by = {"workload", "device", "dtype"};
  totals.empty_text = "No problem of these workloads is in the database for these filters.";

  Table missing;
  missing.name = "workload_missing";
  missing.title = "Workload problems missing from the database";
  missing.columns = {col("workload", "workload"),  col("device", "device"),        col("dtype", "dtype"),
                     col("problem", "problem"),    col("m", "M", -1, false),       col("n", "N", -1, false),
                     col("k", "K", -1, false),     col("epilogue", "epilogue", -1, false),
                     col("count", "count"),        col("rows", "its rows")};
  missing.group_by = {"workload", "device", "dtype"};
  missing.empty_text = "Every problem of every workload is measured.";

  // Devices of one model (same name, architecture, SM count and maximum SM clock): a workload
  // split over them by `coalesce-tune sweep --devices` or a Slurm array is also summed over the
  // group, each problem from one device of it.
  std::map<std::int64_t, std::string> model_of;  // device id -> its model's key
  for (const auto& r : db.query("SELECT id, name || '|' || arch || '|' || sm_count || '|' || max_sm_clock_mhz FROM devices").rows)
    model_of[db::as_int(r[0])] = db::as_text(r[1]);
  std::vector<std::pair<std::string, std::vector<std::pair<std::int64_t, std::string>>>> models;  // key, devices
  for (const auto& d : devices) {
    const std::string& key = model_of[d.first];
    auto it = std::find_if(models.begin(), models.end(), [&](const auto& m) { return m.first == key; });
    if (it == models.end()) models.push_back({key, {d}});
    else it->second.push_back(d);
  }

  // Each problem of `lines` with no times on `device`, once, with every row it stands for.
  auto list_missing = [&](const Workload& w, const std::string& device, Dtype dtype, const std::vector<Resolved>& lines) {
    std::vector<Problem> listed;
    for (const Resolved& r : lines) {
      if (r.times) continue;
      if (std::find(listed.begin(), listed.end(), r.problem) != listed.end()) continue;
      listed.push_back(r.problem);
      std::int64_t count = 0;
      std::string rows;
      for (const Resolved& o : lines) {
        if (!(o.problem == r.problem)) continue;
        count += o.line->count;
        rows += (rows.empty() ? "" : "; ") + (o.line->name.empty() ? std::string() : o.line->name + " ") +
                "(line " + std::to_string(o.line->line) + ")";
      }
      const std::string epilogue(to_string(r.problem.epilogue));
      missing.rows.push_back({text(w.path), text(device), text(std::string(to_string(dtype))),
                              text(problem_label(r.problem.m, r.problem.n, r.problem.k,
                                                 std::string(to_string(dtype)), epilogue)),
                              integer(r.problem.m), integer(r.problem.n), integer(r.problem.k), text(epilogue),
                              integer(count), text(rows)});
    }
  };

  // One section: the totals rows (per M and every row) and the missing problems of `lines`.
  auto section = [&](const Workload& w, const std::string& device, Dtype dtype, const std::vector<Resolved>& lines) {
    std::set<int> ms;
    for (const Resolved& r : lines) ms.insert(r.problem.m);
    if (ms.size() > 1)
      for (int m : ms) {
        std::vector<Resolved> part;
        std::copy_if(lines.begin(), lines.end(), std::back_inserter(part),
                     [m](const Resolved& r) { return r.problem.m == m; });
        totals.rows.push_back(total_row(w.path, device, dtype, m, part, methods));
      }
    totals.rows.push_back(total_row(w.path, device, dtype, std::nullopt, lines, methods));
    list_missing(w, device, dtype, lines);
  };

  std::vector<std::string> unmeasured;
  bool grouped = false;
  for (const Workload& w : workloads) {
    bool any = false;
    for (Dtype dtype : dtypes) {
      for (const auto& [device_id, device] : devices) {
        std::vector<Resolved> lines;
        for (const WorkloadLine& l : w.lines) {
          if (l.dtype && *l.dtype != dtype) continue;
          const Problem p = l.problem(dtype, default_epilogue);
          auto it = measured.find(key_of(device_id, p));
          lines.push_back({&l, p, it == measured.end() ? nullptr : &it->second});
        }
        if (std::none_of(lines.begin(), lines.end(), [](const Resolved& r) { return r.times != nullptr; })) continue;
        any = true;
        section(w, device, dtype, lines);
      }
      // Each model with two or more devices holding problems of this workload: every line from
      // the device of the group that measured it last (the latest fused run).
      for (const auto& [model, members] : models) {
        std::vector<Resolved> lines;
        std::set<std::int64_t> holding;
        for (const WorkloadLine& l : w.lines) {
          if (l.dtype && *l.dtype != dtype) continue;
          const Problem p = l.problem(dtype, default_epilogue);
          const ProblemTimes* latest = nullptr;
          std::int64_t from = 0;
          for (const auto& [device_id, device] : members) {
            auto it = measured.find(key_of(device_id, p));
            if (it != measured.end() && (!latest || it->second.run > latest->run)) latest = &it->second, from = device_id;
          }
          if (latest) holding.insert(from);
          lines.push_back({&l, p, latest});
        }
        if (holding.size() < 2) continue;
        std::string ids;
        for (std::int64_t id : holding) ids += (ids.empty() ? "" : ", ") + std::to_string(id);
        const std::string name = model.substr(0, model.find('|'));
        section(w, name + " ×" + std::to_string(holding.size()) + " (devices " + ids + ", each problem from one)",
                dtype, lines);
        grouped = true;
      }
    }
    if (!any) {
      unmeasured.push_back(w.path);
      // Not one problem on any device: every one is missing, listed under the dtype a sweep of
      // the file would give it (its own, else --dtype, else the sweep's default f32), so the table
      // never says a workload is measured when none of it is (issue 45).
      for (Dtype dtype : dtypes) {
        std::vector<Resolved> lines;
        for (const WorkloadLine& l : w.lines) {
          const Dtype of_line = l.dtype ? *l.dtype : f.dtype.empty() ? Dtype::f32 : *parse_dtype(f.dtype);
          if (of_line == dtype) lines.push_back({&l, l.problem(dtype, default_epilogue), nullptr});
        }
        list_missing(w, "no device", dtype, lines);
      }
    }
  }

  totals.notes = {
      "Per workload file, device and dtype that holds at least one of its problems: each method's time "
      "for the whole workload in ms, Σ over its rows of (that problem's median × the row's count), a "
      "row per M (tokens) when the file has several, then every row. coalesce is the fastest family's "
      "best config of each problem, and every other method is taken as in the summary: the baselines from "
      "the run of that config, the peers from their own latest runs; a row's empty dtype takes the "
      "section's, its empty epilogue --epilogue or bias_gelu.",
      "Each problem's methods come from one run on one device; the terms of a sum may come from different "
      "runs of that device (runs lists those of the fused rows). measured counts the problems with an ok "
      "fused row; sum is partial when some are missing (listed in the next table), and then every "
      "total covers the measured problems only. A method with no ok row on some measured problem has no "
      "total (the note says so), so every total sums the same problems.",
      "fused vs eager and vs cuBLAS GEMM alone: the other's total ÷ the fused total, above 1 the fused "
      "kernel is faster. cuBLAS GEMM alone computes no epilogue: the ceiling, not a path. The fused "
      "kernel's GELU is the exact erf form; cuBLASLt's fused epilogue and GPT-2's gelu_new are the tanh "
      "approximation."};
  if (grouped)
    totals.notes.push_back(
        "A section named \"NAME ×D (devices ...)\" sums a workload that GPUs of one model (same name, "
        "architecture, SM count and maximum SM clock) measured between them, as `coalesce-tune sweep --devices` "
        "or a Slurm array splits it: each problem's methods still come from one run on one device (the device "
        "that measured it last), so each problem's ratios are same-device ratios; only the sum spans devices.");
  for (const std::string& path : unmeasured)
    totals.notes.push_back(path + ": no problem of it is in the database for these filters; sweep them with "
                                  "coalesce-tune sweep --shapes-file " + path +
                           (f.dtype.empty() ? std::string() : " --dtype " + f.dtype) + ".");
  missing.notes = {
      "Problems of a workload with no ok fused row on the device: not swept there, or no config of them "
      "ran ok. The sums above leave them out and say partial. `coalesce-tune sweep --shapes-file FILE --dtype DTYPE` sweeps every problem of the file."};
  if (!unmeasured.empty())
    missing.notes.push_back("Device \"no device\": no problem of the workload is in the database for these filters; "
                            "each is listed under its own dtype, else --dtype, else f32 (a sweep's default).");
  return {std::move(totals), std::move(missing)};
}

}  // namespace coalesce::report
