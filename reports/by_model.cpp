// The report by GPU model (see by_model.hpp and docs/reports.md, "The report by GPU model").
#include "by_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

#include "kernels/core/problem.hpp"
#include "cells.hpp"
#include "schema/vocabulary.hpp"

namespace coalesce::report {

namespace {

using db::as_double;
using db::as_int;
using db::as_text;
using db::is_null;

using cells::integer;
using cells::opt_double;
using cells::text;
using cells::value_of;

Column col(std::string key, std::string header, int precision = -1, bool markdown = true) {
  return {std::move(key), std::move(header), precision, markdown};
}
/// A column for readers only: markdown prints it, CSV and JSON carry its parts as numbers.
Column reader_col(std::string key, std::string header) {
  Column c = col(std::move(key), std::move(header));
  c.machine = false;
  return c;
}

/// The methods compared with the fused kernel, in the vocabulary's order: the library baselines
/// (the floors and the winner's own unfused build are not alternatives) and the peers.
std::vector<std::string> compared_methods() {
  std::vector<std::string> out;
  for (const db::MethodInfo& m : db::kMethods)
    if (m.kind == db::MethodKind::gemm && m.origin != db::MethodOrigin::tuned) out.emplace_back(m.name);
  return out;
}

std::string sql_list(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "'" : ", '") + n + "'";
  return out;
}

std::string peer_list() {
  std::vector<std::string> peers;
  for (const db::MethodInfo& m : db::kMethods)
    if (m.origin == db::MethodOrigin::peer) peers.emplace_back(m.name);
  return sql_list(peers);
}

int dtype_rank(const std::string& dtype) {
  const auto& all = all_dtypes();
  for (std::size_t i = 0; i < all.size(); ++i)
    if (to_string(all[i]) == dtype) return static_cast<int>(i);
  return static_cast<int>(all.size());
}

/// "4096×4096×4096"
std::string shape_text(int m, int n, int k) {
  return std::to_string(m) + "×" + std::to_string(n) + "×" + std::to_string(k);
}

/// "1–3, 7, 9–12"
std::string id_ranges(const std::vector<std::int64_t>& ids) {
  std::string out;
  for (std::size_t i = 0; i < ids.size();) {
    std::size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    out += (out.empty() ? "" : ", ") + std::to_string(ids[i]);
    if (j > i) out += "–" + std::to_string(ids[j]);
    i = j + 1;
  }
  return out;
}

std::string ratio_text(double r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f×", r);
  return buf;
}

/// The order of entries: model, dtype, then as the history orders problems, then protocol.
auto entry_order(const ModelEntry& e) {
  return std::make_tuple(e.model, dtype_rank(e.dtype), static_cast<double>(e.m) * e.n * e.k, e.m, e.n, e.k,
                         e.epilogue, e.protocol_preference, e.protocol);
}

}  // namespace

std::string GpuModel::label() const {
  char memory[32];
  std::snprintf(memory, sizeof memory, "%.0f GiB", static_cast<double>(memory_bytes) / (1024.0 * 1024 * 1024));
  std::string out = name + " · " + std::to_string(sm_count) + " SMs · " + memory;
  out += max_sm_clock_mhz > 0 ? " · " + std::to_string(max_sm_clock_mhz) + " MHz" : " · clock unknown";
  return out;
}

std::string GpuModel::slug(const std::vector<GpuModel>& all) const {
  auto simple = [](const std::string& s) {
    std::string out;
    for (char c : s) {
      const bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
      const char lower = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
      if (alnum || (c >= 'A' && c <= 'Z')) out += lower;
      else if (!out.empty() && out.back() != '-') out += '-';
    }
    while (!out.empty() && out.back() == '-') out.pop_back();
    return out.empty() ? std::string("gpu") : out;
  };
  const std::size_t same_name =
      std::count_if(all.begin(), all.end(), [&](const GpuModel& m) { return m.name == name; });
  std::string out = simple(name);
  if (same_name > 1) {
    out += "-" + std::to_string(sm_count) + "sm-" + std::to_string(max_sm_clock_mhz) + "mhz";
    if (max_sm_clock_mhz == 0) out += "-device" + std::to_string(device_ids.front());
  }
  return out;
}

std::string model_key_sql(const std::string& a) {
  // same_model_sql's rule as one value: a device whose clock is unknown matches no other.
  return "(CASE WHEN " + a + ".max_sm_clock_mhz > 0 THEN " + a + ".name || '|' || " + a + ".arch || '|' || " + a +
         ".sm_count || '|' || " + a + ".max_sm_clock_mhz ELSE 'device ' || " + a + ".id END)";
}

std::string sitting_sql(const std::string& a, const std::string& b) {
  auto day = [](const std::string& r, const char* column) { return "julianday(" + r + "." + column + ")"; };
  auto end = [](const std::string& r) { return "julianday(IFNULL(" + r + ".ended_at, " + r + ".started_at))"; };
  // The gap from the earlier run's end to the later run's start; negative when they overlap.
  char hours[32];
  std::snprintf(hours, sizeof hours, "%g", kSittingGapHours);
  return "(" + a + ".device_id = " + b + ".device_id AND (MAX(" + day(a, "started_at") + ", " + day(b, "started_at") +
         ") - MIN(" + end(a) + ", " + end(b) + ")) * 24 <= " + hours + ")";
}

std::vector<GpuModel> gpu_models(const db::Database& db, const Filters& filters) {
  SqlFilter f = filter_sql(filters, "v");
  auto rs = db.query("SELECT d.id, " + model_key_sql("d") + R"sql(, d.name, d.arch, d.sm_count, d.max_sm_clock_mhz,
             d.global_mem_bytes
      FROM devices d
      WHERE d.id IN (SELECT v.device_id FROM v_measurements v WHERE )sql" + f.where + R"sql()
      ORDER BY d.id)sql",
                     f.params);
  std::vector<GpuModel> out;
  for (auto& r : rs.rows) {
    const std::string key = as_text(r[1]);
    auto it = std::find_if(out.begin(), out.end(), [&](const GpuModel& m) { return m.key == key; });
    if (it == out.end()) {
      GpuModel m;
      m.key = key;
      m.name = as_text(r[2]);
      m.arch = as_text(r[3]);
      m.sm_count = static_cast<int>(as_int(r[4]));
      m.max_sm_clock_mhz = static_cast<int>(as_int(r[5]));
      m.memory_bytes = as_int(r[6]);
      out.push_back(std::move(m));
      it = out.end() - 1;
    }
    it->device_ids.push_back(as_int(r[0]));
    it->memory_bytes = std::min(it->memory_bytes, as_int(r[6]));
  }
  return out;
}

const Alternative* ModelEntry::fastest_alternative() const {
  const Alternative* best = nullptr;
  for (const Alternative& a : alternatives)
    if (a.whole_problem && a.status == "ok" && a.median_ms && (!best || *a.median_ms < *best->median_ms)) best = &a;
  return best;
}

std::optional<double> ModelEntry::speedup() const {
  const Alternative* a = fastest_alternative();
  if (!a) return std::nullopt;
  return *a->median_ms / median_ms;
}

std::vector<ModelEntry> model_entries(const db::Database& db, const Filters& filters,
                                      const std::vector<GpuModel>& models) {
  std::map<std::string, std::size_t> model_of;
  for (std::size_t i = 0; i < models.size(); ++i) model_of[models[i].key] = i;
  SqlFilter f = filter_sql(filters, "v");
  // The rows as the filters name their columns (v_measurements'), without that view's per-row
  // peak look-up: the best is chosen among every ok fused row first.
  auto best = db.query(R"sql(
    WITH v AS (
      SELECT x.id AS measurement_id, x.run_id, x.device_id, d.name AS device_name, d.uuid AS device_uuid,
             x.problem_id, p.m, p.n, p.k, p.dtype, p.epilogue, x.method, c.family, c.name AS config_name,
             x.status, x.median_ms, x.p10_ms, x.p90_ms, x.tflops, )sql" + model_key_sql("d") + R"sql( AS model_key,
             x.protocol, pr.preference AS protocol_preference
      FROM measurements x JOIN protocols pr ON pr.name = x.protocol JOIN devices d ON d.id = x.device_id
      JOIN problems p ON p.id = x.problem_id LEFT JOIN configs c ON c.id = x.config_id
      WHERE x.method = 'coalesce' AND x.status = 'ok'),
    ranked AS (
      SELECT v.*, ROW_NUMBER() OVER (PARTITION BY v.model_key, v.problem_id, v.protocol
                                     ORDER BY v.median_ms, v.measurement_id) AS pick
      FROM v WHERE )sql" + f.where + R"sql()
    SELECT b.model_key, b.protocol, b.problem_id, b.m, b.n, b.k, b.dtype, b.epilogue, b.family, b.config_name,
           b.run_id, b.device_id, b.measurement_id, b.median_ms, b.p10_ms, b.p90_ms, b.tflops,
           (SELECT pk.peak_tflops FROM v_peaks pk WHERE pk.device_id = b.device_id AND pk.math = b.dtype),
           b.protocol_preference
    FROM ranked b WHERE b.pick = 1)sql",
                       f.params);
  const std::vector<std::string> methods = compared_methods();
  std::vector<ModelEntry> out;
  for (auto& r : best.rows) {
    ModelEntry e;
    e.model = model_of.at(as_text(r[0]));
    e.protocol = as_text(r[1]);
    e.problem_id = as_int(r[2]);
    e.m = static_cast<int>(as_int(r[3]));
    e.n = static_cast<int>(as_int(r[4]));
    e.k = static_cast<int>(as_int(r[5]));
    e.dtype = as_text(r[6]);
    e.epilogue = as_text(r[7]);
    e.family = as_text(r[8]);
    e.config = as_text(r[9]);
    e.run = as_int(r[10]);
    e.device_id = as_int(r[11]);
    e.measurement_id = as_int(r[12]);
    e.median_ms = as_double(r[13]);
    e.p10_ms = as_double(r[14]);
    e.p90_ms = as_double(r[15]);
    e.tflops = opt_double(r[16]);
    e.peak_tflops = opt_double(r[17]);
    e.protocol_preference = static_cast<int>(as_int(r[18]));

    auto add = [&](const std::vector<Value>& o, std::int64_t run) {
      Alternative a;
      a.method = as_text(o[0]);
      a.config = as_text(o[1]);
      a.status = as_text(o[2]);
      a.median_ms = opt_double(o[3]);
      a.p10_ms = opt_double(o[4]);
      a.p90_ms = opt_double(o[5]);
      a.tflops = opt_double(o[6]);
      a.run = run;
      const db::MethodInfo* info = db::find_method(a.method);
      a.whole_problem = info && info->kind == db::MethodKind::gemm &&
                        (a.method != "cublas_gemm" || e.epilogue == "none");
      e.alternatives.push_back(std::move(a));
    };
    // The baselines of the fused row's run, in its protocol; the floor beside them.
    auto baselines = db.query("SELECT x.method, '', x.status, x.median_ms, x.p10_ms, x.p90_ms, x.tflops "
                              "FROM measurements x "
                              "WHERE x.run_id = ?1 AND x.problem_id = ?2 AND x.config_id IS NULL AND x.protocol = ?3 "
                              "ORDER BY x.id",
                              {integer(e.run), integer(e.problem_id), text(e.protocol)});
    for (auto& o : baselines.rows) {
      const std::string method = as_text(o[0]);
      if (db::is_floor(method)) {
        if (as_text(o[2]) == "ok" && !e.floor_ms) e.floor_ms = as_double(o[3]);
      } else if (std::find(methods.begin(), methods.end(), method) != methods.end()) {
        add(o, e.run);
      }
    }
    if (!filters.run) {
      // The peers of the sitting: this device, this protocol, runs within kSittingGapHours.
      auto peers = db.query(R"sql(
        WITH sitting AS (SELECT s.id FROM runs s JOIN runs f ON f.id = ?1 WHERE )sql" + sitting_sql("f", "s") + R"sql(),
        picked AS (
          SELECT x.method, IFNULL(c.name, '') AS config, x.status, x.median_ms, x.p10_ms, x.p90_ms, x.tflops, x.run_id,
                 ROW_NUMBER() OVER (PARTITION BY x.method
                                    ORDER BY x.status <> 'ok', x.median_ms, x.run_id DESC, x.id) AS pick
          FROM measurements x LEFT JOIN configs c ON c.id = x.config_id
          WHERE x.run_id IN sitting AND x.problem_id = ?2 AND x.method IN ()sql" + peer_list() + R"sql()
            AND x.protocol = ?3)
        SELECT method, config, status, median_ms, p10_ms, p90_ms, tflops, run_id FROM picked WHERE pick = 1)sql",
                            {integer(e.run), integer(e.problem_id), text(e.protocol)});
      for (auto& o : peers.rows) add(o, as_int(o[7]));
    }
    std::stable_sort(e.alternatives.begin(), e.alternatives.end(), [](const Alternative& a, const Alternative& b) {
      return db::method_rank(a.method) < db::method_rank(b.method);
    });
    out.push_back(std::move(e));
  }
  std::sort(out.begin(), out.end(), [](const ModelEntry& a, const ModelEntry& b) { return entry_order(a) < entry_order(b); });
  return out;
}

std::vector<const ModelEntry*> answer_entries(const std::vector<ModelEntry>& entries) {
  std::vector<const ModelEntry*> out;
  // The entries of a problem come most preferred protocol first.
  for (const ModelEntry& e : entries)
    if (out.empty() || out.back()->model != e.model || out.back()->problem_id != e.problem_id) out.push_back(&e);
  return out;
}

namespace {

/// The answer: per model, a row per shape (the kAnswerShapes measured in the most dtypes, the
/// smaller first on ties), a column per dtype: the fused speed-up over the fastest alternative;
/// then the geometric mean over every problem of each dtype and how many were faster, within
/// noise and slower.
Table answer_table(const std::vector<GpuModel>& models, const std::vector<const ModelEntry*>& picked,
                   const std::string& protocol_order) {
  // With the title, notes and the two summary rows, the first screen stays under 40 lines.
  constexpr std::size_t kAnswerShapes = 16;
  Table t;
  t.name = "answer";
  t.title = "The answer: how much faster the tuned fused kernel is than the fastest alternative";
  t.columns = {col("model", "model"), col("shape", "shape"), col("epilogue", "epilogue"),
               col("m", "M", -1, false), col("n", "N", -1, false), col("k", "K", -1, false)};
  std::vector<std::string> dtypes;
  for (Dtype d : all_dtypes()) {
    const std::string name(to_string(d));
    if (std::none_of(picked.begin(), picked.end(), [&](const ModelEntry* e) { return e->dtype == name; })) continue;
    dtypes.push_back(name);
    t.columns.push_back(reader_col(name, name));
    t.columns.push_back(col(name + "_speedup", name + " speed-up", 3, false));
    t.columns.push_back(col(name + "_alternative", name + " fastest alternative", -1, false));
    t.columns.push_back(col(name + "_protocol", name + " protocol", -1, false));
    t.columns.push_back(col(name + "_verdict", name + " fused is", -1, false));
  }
  t.group_by = {"model"};
  t.hide_empty_columns = true;
  std::size_t left_out = 0;
  for (std::size_t mi = 0; mi < models.size(); ++mi) {
    // shape → dtype → entry, in problem order
    std::map<std::tuple<double, int, int, int, std::string>, std::map<std::string, const ModelEntry*>> shapes;
    for (const ModelEntry* e : picked)
      if (e->model == mi) shapes[{static_cast<double>(e->m) * e->n * e->k, e->m, e->n, e->k, e->epilogue}][e->dtype] = e;
    std::vector<std::pair<std::tuple<double, int, int, int, std::string>, std::map<std::string, const ModelEntry*>>> rows(
        shapes.begin(), shapes.end());
    if (rows.size() > kAnswerShapes) {
      std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second.size() > b.second.size(); });
      left_out += rows.size() - kAnswerShapes;
      rows.resize(kAnswerShapes);
      std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    }
    const std::string label = models[mi].label();
    auto row_of = [&](std::string shape, std::string epilogue, Value m, Value n, Value k) {
      return std::vector<Value>{text(label), text(std::move(shape)), text(std::move(epilogue)), m, n, k};
    };
    for (const auto& [key, by_dtype] : rows) {
      const auto& [flops, m, n, k, epilogue] = key;
      auto row = row_of(shape_text(m, n, k), epilogue, integer(m), integer(n), integer(k));
      for (const std::string& d : dtypes) {
        auto it = by_dtype.find(d);
        const ModelEntry* e = it == by_dtype.end() ? nullptr : it->second;
        const std::optional<double> s = e ? e->speedup() : std::nullopt;
        if (!e) {
          row.insert(row.end(), 5, Value());
        } else if (!s) {
          row.insert(row.end(), {text("no alternative"), Value(), Value(), text(e->protocol), Value()});
        } else {
          const Alternative& a = *e->fastest_alternative();
          row.insert(row.end(), {text(ratio_text(*s) + " " + a.method), Value(*s), text(a.method), text(e->protocol),
                                 text(std::string(to_string(compare_spread(e->p10_ms, e->p90_ms, *a.p10_ms, *a.p90_ms))))});
        }
      }
      t.rows.push_back(std::move(row));
    }
    // Every problem of each dtype: the geometric mean and the verdicts.
    auto mean_row = row_of("every problem: geometric mean", "", Value(), Value(), Value());
    auto count_row = row_of("every problem: faster / within noise / slower", "", Value(), Value(), Value());
    bool any = false;
    for (const std::string& d : dtypes) {
      std::vector<double> ratios;
      int faster = 0, same = 0, slower = 0;
      for (const ModelEntry* e : picked) {
        if (e->model != mi || e->dtype != d) continue;
        const Alternative* a = e->fastest_alternative();
        if (!a) continue;
        ratios.push_back(*a->median_ms / e->median_ms);
        switch (compare_spread(e->p10_ms, e->p90_ms, *a->p10_ms, *a->p90_ms)) {
          case Verdict::faster: ++faster; break;
          case Verdict::same: ++same; break;
          case Verdict::slower: ++slower; break;
        }
      }
      if (ratios.empty()) {
        mean_row.insert(mean_row.end(), 5, Value());
        count_row.insert(count_row.end(), 5, Value());
        continue;
      }
      any = true;
      const double g = geometric_mean(ratios);
      const std::string counts = std::to_string(faster) + " / " + std::to_string(same) + " / " + std::to_string(slower);
      mean_row.insert(mean_row.end(), {text(ratio_text(g) + " (" + std::to_string(ratios.size()) + ")"), Value(g),
                                       Value(), Value(), Value()});
      count_row.insert(count_row.end(), {text(counts), Value(), Value(), Value(), text(counts)});
    }
    if (any) {
      t.rows.push_back(std::move(mean_row));
      t.rows.push_back(std::move(count_row));
    }
  }
  t.notes = {
      "Speed-up = the fastest alternative's median ÷ the fused kernel's (above 1: fused faster), with the "
      "alternative named: the library paths of the fused row's own run (eager, unfused, cuBLASLt's fused "
      "epilogue; cuBLAS GEMM alone where the epilogue is none) and the PyTorch/Triton peers of its sitting, "
      "all in the fused row's protocol: the most preferred protocol measured (" + protocol_order + "). Up to " +
          std::to_string(kAnswerShapes) +
          " shapes per model, those measured in the most dtypes; every problem is in the next table.",
      "The last rows: the geometric mean over every problem of the dtype (how many in brackets), and how "
      "many are faster, within noise or slower by the [p10, p90] rule."};
  if (left_out > 0)
    t.notes.push_back(std::to_string(left_out) + " more shapes are in the next table only.");
  t.empty_text = "No fused kernel has an alternative measured beside it.";
  return t;
}

Table by_model_table(const std::vector<GpuModel>& models, const std::vector<ModelEntry>& entries) {
  Table t;
  t.name = "by_model";
  t.title = "Every problem: the best fused kernel of the model and its alternatives";
  t.columns = {col("model", "model"),         col("dtype", "dtype"),
               col("shape", "shape"),         col("epilogue", "epilogue"),
               col("m", "M", -1, false),      col("n", "N", -1, false),
               col("k", "K", -1, false),      col("protocol", "protocol"),
               col("family", "family"),       col("config", "config", -1, false),
               col("device_id", "device"),    col("run", "run"),
               col("fused_us", "fused (µs)", 1), col("fused_tflops", "TFLOP/s", 1),
               col("pct_peak", "% of peak", 1, false)};
  const std::vector<std::string> methods = compared_methods();
  for (const std::string& m : methods) {
    t.columns.push_back(col(m + "_us", m + " (µs)", 1));
    t.columns.push_back(col(m + "_run", m + " run", -1, false));
  }
  for (Column c : {col("fastest_alternative", "fastest alternative"), col("speedup", "fused vs it (×)", 3),
                   col("verdict", "fused is"), col("vs_cublas_gemm", "fused vs cuBLAS GEMM alone (×)", 3)})
    t.columns.push_back(std::move(c));
  t.group_by = {"model", "dtype"};
  t.hide_empty_columns = true;
  for (const ModelEntry& e : entries) {
    std::vector<Value> row = {text(models[e.model].label()), text(e.dtype), text(shape_text(e.m, e.n, e.k)),
                              text(e.epilogue), integer(e.m), integer(e.n), integer(e.k), text(e.protocol),
                              text(e.family), text(e.config), integer(e.device_id), integer(e.run),
                              Value(e.median_ms * 1e3), value_of(e.tflops),
                              e.tflops && e.peak_tflops ? Value(*e.tflops / *e.peak_tflops * 100.0) : Value()};
    std::optional<double> cublas;
    for (const std::string& m : methods) {
      auto a = std::find_if(e.alternatives.begin(), e.alternatives.end(), [&](const Alternative& x) { return x.method == m; });
      if (a == e.alternatives.end()) {
        row.insert(row.end(), 2, Value());
        continue;
      }
      // A failed row shows its status, so a missing time is never read as not measured.
      row.push_back(a->status == "ok" ? Value(*a->median_ms * 1e3) : text(a->status));
      row.push_back(integer(a->run));
      if (m == "cublas_gemm" && a->status == "ok") cublas = a->median_ms;
    }
    const Alternative* fastest = e.fastest_alternative();
    row.push_back(fastest ? text(fastest->method) : Value());
    row.push_back(fastest ? Value(*fastest->median_ms / e.median_ms) : Value());
    row.push_back(fastest ? text(std::string(to_string(compare_spread(e.p10_ms, e.p90_ms, *fastest->p10_ms, *fastest->p90_ms))))
                          : Value());
    row.push_back(cublas ? Value(*cublas / e.median_ms) : Value());
    t.rows.push_back(std::move(row));
  }
  t.notes = {
      "Per model, dtype and problem, and per timing protocol the model was measured in: the fastest ok "
      "(checked) fused row of any device of the model, its device and run, and beside it in µs the library "
      "baselines of that run and the peers of its sitting (the same device and protocol, runs at most " +
          std::to_string(static_cast<int>(kSittingGapHours)) +
          " hours apart), each peer its fastest ok config there; a method that failed shows its status. "
          "Nothing is compared across protocols or devices.",
      "fused vs it = the fastest alternative's median ÷ the fused median (above 1: fused faster); \"fused "
      "is\" compares their [p10, p90] intervals. cuBLAS GEMM alone computes no epilogue: it is the ceiling, "
      "and an alternative only where the epilogue is none. Run-by-run and per-device detail: "
      "`coalesce-report history`."};
  t.empty_text = "No ok fused row matches.";
  return t;
}

Table models_table(const db::Database& db, const std::vector<GpuModel>& models) {
  Table t;
  t.name = "models";
  t.title = "GPU models";
  t.columns = {col("model", "model"),         col("name", "name", -1, false),
               col("arch", "arch"),           col("sm_count", "SMs"),
               col("memory_gib", "memory (GiB)", 1), col("max_sm_clock_mhz", "max SM clock (MHz)"),
               col("devices", "devices"),     col("device_ids", "device ids"),
               col("bf16_peak_tflops", "BF16 tensor peak (TFLOP/s)", 1),
               col("f32_peak_tflops", "FP32 peak (TFLOP/s)", 1)};
  for (const GpuModel& m : models) {
    auto peak = db.query("SELECT bf16_peak_tflops, f32_peak_tflops FROM v_devices WHERE id = ?1",
                         {integer(m.device_ids.front())});
    t.rows.push_back({text(m.label()), text(m.name), text(m.arch), integer(m.sm_count),
                      Value(static_cast<double>(m.memory_bytes) / (1024.0 * 1024 * 1024)), integer(m.max_sm_clock_mhz),
                      integer(static_cast<std::int64_t>(m.device_ids.size())), text(id_ranges(m.device_ids)),
                      peak.rows.at(0)[0], peak.rows.at(0)[1]});
  }
  t.notes = {"Devices are one model when their name, architecture, SM count and max SM clock agree and the "
             "clock is known (`same_model_sql`, reports/report.cpp); memory is shown, not compared (ECC mode "
             "changes what the driver reports on one GPU)."};
  return t;
}

Table cited_runs_table(const db::Database& db, const std::vector<ModelEntry>& entries) {
  Table t;
  t.name = "runs";
  t.title = "Runs behind every number above";
  t.columns = {col("run", "run"),          col("device_id", "device"),  col("started_at", "started (UTC)"),
               col("tool", "tool"),        col("git_revision", "git revision"),
               col("protocols", "protocols"), col("driver", "driver"), col("toolkit", "NVRTC toolkit"),
               col("host", "host", -1, false), col("command_line", "command", -1, false)};
  std::map<std::int64_t, std::set<std::string>> runs;
  for (const ModelEntry& e : entries) {
    runs[e.run].insert(e.protocol);
    for (const Alternative& a : e.alternatives) runs[a.run].insert(e.protocol);
  }
  for (const auto& [run, protocols] : runs) {
    auto rs = db.query("SELECT r.id, r.device_id, r.started_at, r.tool || ' ' || r.tool_version, r.git_revision, "
                       "r.driver_release, r.toolkit, r.host, r.command_line FROM runs r WHERE r.id = ?1",
                       {integer(run)});
    auto& r = rs.rows.at(0);
    std::string list;
    for (const std::string& p : protocols) list += (list.empty() ? "" : ", ") + p;
    t.rows.push_back({r[0], r[1], r[2], r[3], r[4], text(list), r[5], r[6], r[7], r[8]});
  }
  t.notes = {"`coalesce-report history --run ID` shows a run's every row; `coalesce-report query` its settings "
             "(runs.harness_json)."};
  return t;
}

}  // namespace

Document build_model_report(const db::Database& db, const Filters& filters, const std::string& database) {
  Document doc = make_document("by_model", "Coalesce: the tuned fused kernel against the fastest alternative, by GPU model");
  doc.meta.emplace_back("database", database);
  doc.meta.emplace_back("schema_version", std::to_string(db.schema_version()));
  doc.meta.emplace_back("filters", filters.describe());
  doc.meta.emplace_back("sitting", "same device and protocol, runs at most " +
                                       std::to_string(static_cast<int>(kSittingGapHours)) + " h apart");
  const std::vector<GpuModel> models = gpu_models(db, filters);
  const std::vector<ModelEntry> entries = model_entries(db, filters, models);
  doc.notes = {"Medians of per-sample GPU times, L2 flushed before each sample; each ratio compares rows of one "
               "device in one timing protocol (flush_b2b: back to back; flush_spin: a GPU spin before each "
               "sample; flush_rested: an idle gap; steady_*: 1,000+ samples). Tables: the answer, every problem, "
               "the models, the runs."};
  // "steady_spin, flush_spin, ...": protocols.preference, most preferred first
  const std::string protocol_order =
      db::as_text(db.query("SELECT group_concat(name, ', ') FROM (SELECT name FROM protocols ORDER BY preference)")
                      .rows.at(0).at(0));
  doc.tables.push_back(answer_table(models, answer_entries(entries), protocol_order));
  doc.tables.push_back(by_model_table(models, entries));
  doc.tables.push_back(models_table(db, models));
  doc.tables.push_back(cited_runs_table(db, entries));
  doc.meta_at_end = true;
  return doc;
}

}  // namespace coalesce::report
