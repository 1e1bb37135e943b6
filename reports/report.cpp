// The report's tables, built with SQL over the documented views (see report.hpp and
// docs/reports.md).
#include "report.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include <nlohmann/json.hpp>

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

/// Methods measured outside the tools in runs of their own (docs/reports.md, "Peers from
/// PyTorch and Triton").
bool is_peer(const std::string& method) {
  const db::MethodInfo* m = db::find_method(method);
  return m && m->origin == db::MethodOrigin::peer;
}

/// The peer methods joined by `separator`, each between `quote`s (SQL lists, notes).
std::string peer_methods(const std::string& quote, const std::string& separator) {
  std::string out;
  for (const db::MethodInfo& m : db::kMethods)
    if (m.origin == db::MethodOrigin::peer) out += (out.empty() ? "" : separator) + quote + std::string(m.name) + quote;
  return out;
}

/// The floor methods (MethodKind::floor) as an SQL list: 'read_b'.
std::string floor_methods() {
  std::string out;
  for (const db::MethodInfo& m : db::kMethods)
    if (m.kind == db::MethodKind::floor) out += (out.empty() ? "'" : ", '") + std::string(m.name) + "'";
  return out.empty() ? "''" : out;
}

const char* kProblemOrder = "m * n * k, m, n, k, dtype, epilogue";

/// "13000" → "13.0" (cudaDriverGetVersion / cudaRuntimeGetVersion encoding).
std::string cuda_version(std::int64_t v) {
  if (v <= 0) return "";
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

/// The parameters of a config, "bm=128 bn=128 ...", in the order the tuner stored them.
std::string compact_params(const std::string& json) {
  auto j = nlohmann::ordered_json::parse(json, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return json;
  std::string out;
  for (auto& [key, value] : j.items())
    out += (out.empty() ? "" : " ") + key + "=" + (value.is_string() ? value.get<std::string>()
                                                                      : value.dump());
  return out;
}

Column col(std::string key, std::string header, int precision = -1, bool markdown = true) {
  return {std::move(key), std::move(header), precision, markdown};
}

/// The columns every per-problem table starts with: grouped in markdown, spelled out in CSV/JSON.
std::vector<Column> problem_columns() {
  return {col("device", "device"),           col("problem", "problem"),
          col("m", "M", -1, false),          col("n", "N", -1, false),
          col("k", "K", -1, false),          col("dtype", "dtype", -1, false),
          col("epilogue", "epilogue", -1, false)};
}

std::vector<Value> problem_values(const std::string& device, int m, int n, int k,
                                  const std::string& dtype, const std::string& epilogue) {
  return {text(device), text(problem_label(m, n, k, dtype, epilogue)), integer(m), integer(n),
          integer(k),   text(dtype),                                   text(epilogue)};
}

/// " OR <column> IN (1, 2)" for `ids`, or nothing: the rows a table lists beyond those of the
/// filters (the runs and devices of cross-device peers).
std::string or_in(const std::string& column, const std::set<std::int64_t>& ids) {
  if (ids.empty()) return "";
  std::string list;
  for (std::int64_t id : ids) list += (list.empty() ? "" : ", ") + std::to_string(id);
  return " OR " + column + " IN (" + list + ")";
}

/// How the report picks a device's best row of one problem and family: the most preferred timing
/// protocol measured (protocols.preference, schema/migrations/0008_protocol.sql), within it the
/// fastest median, ties to the earlier row, as the compiler's pick does; over `v`, the filtered
/// v_measurements. Ratios then come from that row's run, so from one protocol.
constexpr const char* kBestFirst = "v.protocol_preference, v.median_ms, v.measurement_id";

Table runs_table(const db::Database& db, const SqlFilter& f, const std::set<std::int64_t>& also) {
  Table t;
  t.name = "runs";
  t.title = "Runs: the environment of every number above";
  t.records = true;
  t.columns = {col("run", "run"),
               col("device", "device"),
               col("status", "status"),
               col("started_at", "started (UTC)"),
               col("ended_at", "ended (UTC)"),
               col("resumed", "times resumed"),
               col("git_revision", "git revision"),
               col("tool", "tool"),
               col("driver", "driver"),
               col("cuda_driver_api", "CUDA driver API"),
               col("cuda_runtime", "CUDA runtime"),
               col("toolkit", "NVRTC toolkit"),
               col("sm_clock_min_mhz", "SM clock min (MHz, before/after samples)"),
               col("sm_clock_max_mhz", "SM clock max (MHz, before/after samples)"),
               col("host", "host"),
               col("command_line", "command"),
               col("protocol", "protocol"),
               col("harness", "harness settings")};
  auto rs = db.query(R"sql(
    SELECT r.id, CASE WHEN (SELECT count(*) FROM devices dl WHERE dl.name = d.name) > 1
                      THEN d.name || ' (device ' || d.id || ')' ELSE d.name END, r.status, r.started_at, r.ended_at, r.resumed, r.git_revision,
           r.tool || ' ' || r.tool_version, r.driver_release, r.driver_version, r.runtime_version,
           r.toolkit,
           (SELECT MIN(c) FROM (SELECT sm_clock_before_mhz AS c FROM measurements WHERE run_id = r.id
                                UNION ALL
                                SELECT sm_clock_after_mhz FROM measurements WHERE run_id = r.id)),
           (SELECT MAX(c) FROM (SELECT sm_clock_before_mhz AS c FROM measurements WHERE run_id = r.id
                                UNION ALL
                                SELECT sm_clock_after_mhz FROM measurements WHERE run_id = r.id)),
           r.host, r.command_line, r.harness_json,
           (SELECT g.protocol FROM v_run_protocols g WHERE g.run_id = r.id)
    FROM runs r LEFT JOIN devices d ON d.id = r.device_id
    WHERE r.id IN (SELECT v.run_id FROM v_measurements v WHERE )sql" +
                         f.where + ")" + or_in("r.id", also) + R"sql(
    ORDER BY r.id)sql",
                     f.params);
  for (auto& r : rs.rows) {
    t.rows.push_back({r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7],
                      r[8], text(cuda_version(as_int(r[9]))), text(cuda_version(as_int(r[10]))),
                      r[11], r[12], r[13], r[14], r[15],
                      r[17], r[16]});
  }
  return t;
}

Table devices_table(const db::Database& db, const SqlFilter& f, const std::set<std::int64_t>& also) {
  Table t;
  t.name = "devices";
  t.title = "Devices";
  t.columns = {col("device_id", "id"),
               col("device", "device"),
               col("uuid", "uuid"),
               col("arch", "arch"),
               col("sm_count", "SMs"),
               col("l2_mib", "L2 (MiB)", 1),
               col("max_sm_clock_mhz", "max SM clock (MHz)"),
               col("f32_peak_tflops", "FP32 peak (TFLOP/s)", 1),
               col("tf32_peak_tflops", "TF32 tensor peak", 1),
               col("bf16_peak_tflops", "BF16 tensor peak", 1),
               col("f16_peak_tflops", "FP16 tensor peak", 1),
               col("smem_per_block_optin", "smem/block opt-in (B)"),
               col("regs_per_sm", "registers/SM")};
  auto rs = db.query(R"sql(
    SELECT id, name, uuid, arch, sm_count, l2_bytes / 1048576.0, max_sm_clock_mhz,
           f32_peak_tflops, tf32_peak_tflops, bf16_peak_tflops, f16_peak_tflops, smem_per_block_optin,
           regs_per_sm
    FROM v_devices
    WHERE id IN (SELECT v.device_id FROM v_measurements v WHERE )sql" +
                         f.where + ")" + or_in("id", also) + " ORDER BY id",
                     f.params);
  t.rows = std::move(rs.rows);
  t.notes = {"Peak = SMs × dense FLOP per clock per SM of the math mode (the math_peaks table, "
             "from the datasheets) × max SM clock (NVML's maximum); empty where the clock or the "
             "architecture is unknown. Each dtype is compared with its own math's peak."};
  return t;
}

/// "measured on NVIDIA H200 (device 2), same model: cross-device", the mark of a peer row from
/// another device of the model (--same-model).
std::string cross_device_mark(const ComparisonEntry& e) {
  return "measured on " + e.measured_on + ", same model: cross-device";
}

bool any_cross_device(const std::vector<ComparisonEntry>& entries) {
  return std::any_of(entries.begin(), entries.end(), [](const auto& e) { return e.cross_device(); });
}

Table comparison_table(const std::vector<ComparisonEntry>& entries, PeerScope scope) {
  Table t;
  t.name = "comparison";
  t.title = "Detail: the best config of each family against every baseline";
  t.columns = problem_columns();
  for (Column c : {col("family", "family"), col("run", "run"), col("method", "method"),
                   col("config", "config"), col("status", "status"),
                   col("median_ms", "median (ms)", 4), col("p10_ms", "p10 (ms)", 4),
                   col("p90_ms", "p90 (ms)", 4), col("tflops", "TFLOP/s", 2),
                   col("pct_peak", "% of peak", 1), col("speedup", "fused speed-up (×, >1: fused faster)", 3),
                   col("verdict", "fused is"), col("note", "note")})
    t.columns.push_back(std::move(c));
  // With --same-model, machines get the device of a cross-device row in a column of its own; the
  // markdown shows the mark in the note.
  const bool same_model = scope == PeerScope::same_model;
  if (same_model) t.columns.push_back(col("measured_on", "measured on (cross-device)", -1, false));
  t.group_by = {"device", "problem"};
  bool peers = false;
  for (const auto& e : entries) {
    peers = peers || is_peer(e.method);
    auto row = problem_values(e.device, e.m, e.n, e.k, e.dtype, e.epilogue);
    std::optional<double> pct, speedup;
    Value verdict;
    if (e.tflops && e.peak_tflops) pct = *e.tflops / *e.peak_tflops * 100.0;
    if (e.method != "coalesce" && e.median_ms) {
      speedup = *e.median_ms / e.best_median_ms;
      verdict = text(std::string(
          to_string(compare_spread(e.best_p10_ms, e.best_p90_ms, *e.p10_ms, *e.p90_ms))));
    }
    std::string note = e.message;
    if (e.cross_device()) note = cross_device_mark(e) + (note.empty() ? "" : "; " + note);
    for (Value v : {text(e.family), integer(e.run), text(e.method), text(e.config), text(e.status),
                    value_of(e.median_ms), value_of(e.p10_ms), value_of(e.p90_ms),
                    value_of(e.tflops), value_of(pct), value_of(speedup), verdict,
                    text(note)})
      row.push_back(std::move(v));
    if (same_model) row.push_back(e.cross_device() ? text(e.measured_on) : Value());
    t.rows.push_back(std::move(row));
  }
  t.notes = {
      "Each family's best ok `coalesce` row, then the rows of the same run: the baselines and "
      "`coalesce_unfused` (the winner's own GEMM with epilogue none, then the separate "
      "bias+GELU kernel: what fusion itself buys). A baseline the run did not measure is absent.",
      "fused speed-up = this row's median ÷ the best fused median: above 1 the fused kernel is "
      "faster, below 1 slower. \"fused is\" compares the [p10, p90] intervals: faster or slower "
      "only when they do not overlap, otherwise within noise. TFLOP/s counts 2·M·N·K for "
      "every method; % of peak is of the dtype's math (the devices table): f32's is FP32 FMA's, "
      "which an f32 row of the mma family (3xTF32 on the TF32 tensor cores) can pass."};
  if (peers)
    t.notes.push_back(
        "`torch_eager`, `torch_compile` and `triton` are peers that scripts/torch_peers.py "
        "measured with the same harness rules on the same device, in a run of their own: for each, "
        "the latest run that measured it on the problem (its fastest ok config, else its first "
        "failure). Their ratios to the fused row cross runs; the run column says which.");
  if (any_cross_device(entries))
    t.notes.push_back(
        "--same-model: a peer that the fused row's device never measured on the problem is taken "
        "from the latest run of another device of the same model (same name, architecture, SM "
        "count and max SM clock), and its note says \"measured on <device>, same model: "
        "cross-device\". Its speed-up and verdict compare two GPUs, not only two runs: GPUs of one "
        "model differ by a few percent (the devices side by side table, where a problem ran on "
        "several).");
  return t;
}

/// A library path: a baseline that computes the whole problem (cuBLAS GEMM alone computes no
/// epilogue, so it is one only where the epilogue is none; a floor computes nothing).
bool is_library_path(const ComparisonEntry& e) {
  const db::MethodInfo* m = db::find_method(e.method);
  return m && m->origin == db::MethodOrigin::baseline && m->kind == db::MethodKind::gemm &&
         (e.method != "cublas_gemm" || e.epilogue == "none");
}

/// "4096×4096×4096"
std::string shape_text(int m, int n, int k) {
  return std::to_string(m) + "×" + std::to_string(n) + "×" + std::to_string(k);
}

/// Each comparison block: [begin, end) of `entries`, the family's best row first.
std::vector<std::pair<std::size_t, std::size_t>> blocks_of(const std::vector<ComparisonEntry>& entries) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (std::size_t i = 0; i < entries.size();) {
    std::size_t end = i + 1;
    while (end < entries.size() && entries[end].method != "coalesce") ++end;
    out.emplace_back(i, end);
    i = end;
  }
  return out;
}

Table summary_table(const std::vector<ComparisonEntry>& entries, bool cross_device_shown) {
  Table t;
  t.name = "summary";
  t.title = "Summary: the tuned fused kernel against the library";
  t.columns = {col("device", "device"),
               col("dtype", "dtype"),
               col("epilogue", "epilogue"),
               col("shape", "shape"),
               col("m", "M", -1, false),
               col("n", "N", -1, false),
               col("k", "K", -1, false),
               col("family", "family"),
               col("config", "config", -1, false),
               col("run", "run"),
               col("protocol", "protocol"),
               col("fused_ms", "fused (ms)", 4),
               col("library_method", "fastest library path"),
               col("library_ms", "its time (ms)", 4),
               col("vs_library", "fused vs it (×)", 3),
               col("verdict", "fused is"),
               col("vs_eager", "fused vs eager (×)", 3),
               col("vs_cublas_gemm", "fused vs cuBLAS GEMM alone (×)", 3)};
  t.group_by = {"device", "dtype", "epilogue"};
  std::vector<std::pair<std::size_t, std::size_t>> blocks;
  for (const auto& [key, block] : fastest_family_blocks(entries)) blocks.push_back(block);
  auto order = [&](const ComparisonEntry& e) {
    return std::make_tuple(e.device_id, static_cast<int>(*parse_dtype(e.dtype)),
                           static_cast<int>(*parse_epilogue(e.epilogue)), e.m, e.n, e.k);
  };
  std::sort(blocks.begin(), blocks.end(),
            [&](const auto& a, const auto& b) { return order(entries[a.first]) < order(entries[b.first]); });
  for (const auto& [begin, end] : blocks) {
    const ComparisonEntry& fused = entries[begin];
    const ComparisonEntry* library = nullptr;
    std::optional<double> eager, cublas;
    for (std::size_t i = begin + 1; i < end; ++i) {
      const ComparisonEntry& e = entries[i];
      if (e.status != "ok" || !e.median_ms || e.run != fused.run) continue;
      if (e.method == "eager") eager = e.median_ms;
      if (e.method == "cublas_gemm") cublas = e.median_ms;
      if (is_library_path(e) && (!library || *e.median_ms < *library->median_ms)) library = &e;
    }
    auto speedup = [&](const std::optional<double>& other) -> Value {
      return other ? Value(*other / fused.best_median_ms) : Value();
    };
    Value verdict;
    if (library)
      verdict = text(std::string(to_string(compare_spread(fused.best_p10_ms, fused.best_p90_ms,
                                                          *library->p10_ms, *library->p90_ms))));
    t.rows.push_back({text(fused.device), text(fused.dtype), text(fused.epilogue),
                      text(shape_text(fused.m, fused.n, fused.k)), integer(fused.m),
                      integer(fused.n), integer(fused.k), text(fused.family), text(fused.config),
                      integer(fused.run), text(fused.protocol),
                      Value(fused.best_median_ms),
                      library ? text(library->method) : Value(),
                      library ? Value(*library->median_ms) : Value(),
                      speedup(library ? library->median_ms : std::nullopt), verdict,
                      speedup(eager), speedup(cublas)});
  }
  t.notes = {
      "Per device, dtype, epilogue and shape: the fastest family's best config and the library "
      "paths of the same run (`eager`: cuBLAS GEMM, bias add, activation; `unfused`: cuBLAS GEMM "
      "and one epilogue kernel; `cublaslt_fused`: cuBLASLt's fused epilogue). Every × is the "
      "other's median ÷ the fused median: above 1 the fused kernel is faster, below 1 slower. "
      "\"fused is\" compares the fused kernel with the fastest library path by their [p10, p90] "
      "intervals: faster or slower only when they do not overlap, otherwise within noise. cuBLAS "
      "GEMM alone computes no epilogue: it is the ceiling, not a path. \"protocol\": how that "
      "run timed every method (flush_spin, the shared protocol: L2 flushed and a GPU spin before "
      "each sample; steady_spin the same with 1,000 samples or more; steady_b2b and flush_b2b "
      "back to back, with 1,000 or more samples or fewer; flush_rested with a rest after each); "
      "a best of a more preferred protocol outranks any other (docs/tuner.md, \"The timing "
      "protocol\")."};
  if (cross_device_shown)
    t.notes.push_back("Every ratio here is of one run on one device: the peers taken from another "
                      "device of the same model (--same-model) are in the comparison only, marked "
                      "cross-device.");
  return t;
}

/// The SQL condition of a `pruned` row whose kernel was compiled and uses local memory: pruned
/// after compiling because it spilled (the tuner stores the category `registers`).
const char* kSpilledSql =
    "(v.status = 'pruned' AND v.build_id IS NOT NULL AND (IFNULL(b.stack_bytes, 0) > 0 OR "
    "IFNULL(v.spill_stores_bytes, 0) > 0 OR IFNULL(v.spill_loads_bytes, 0) > 0))";

/// The same problem and family on several devices, side by side: each device's best fused time
/// and its ratios to that device's own cuBLAS GEMM and eager (same run), then how it stands
/// against the fastest device. Only problems measured on two or more devices.
Table devices_table_side_by_side(const std::vector<ComparisonEntry>& entries) {
  Table t;
  t.name = "devices_side_by_side";
  t.title = "Devices side by side: the same problem on each GPU";
  t.columns = {col("problem", "problem"), col("family", "family"), col("device", "device"),
               col("run", "run"), col("config", "best config", -1, false),
               col("fused_ms", "fused (ms)", 4), col("cublas_gemm_ms", "cuBLAS GEMM (ms)", 4),
               col("pct_cublas", "fused at % of cuBLAS speed", 1), col("vs_eager", "fused vs eager (×)", 3),
               col("vs_fastest", "time ÷ fastest device's", 3)};
  t.group_by = {"problem"};
  struct Cell {
    const ComparisonEntry* best;
    std::optional<double> cublas, eager;
  };
  std::map<std::pair<std::string, std::string>, std::vector<Cell>> groups;  // (problem, family)
  std::vector<std::pair<std::string, std::string>> order;
  for (auto [begin, end] : blocks_of(entries)) {
    Cell c{&entries[begin], {}, {}};
    for (std::size_t i = begin + 1; i < end; ++i) {
      if (entries[i].status != "ok") continue;
      if (entries[i].method == "cublas_gemm") c.cublas = entries[i].median_ms;
      if (entries[i].method == "eager") c.eager = entries[i].median_ms;
    }
    const ComparisonEntry& e = *c.best;
    std::pair<std::string, std::string> key{problem_label(e.m, e.n, e.k, e.dtype, e.epilogue), e.family};
    if (!groups.count(key)) order.push_back(key);
    groups[key].push_back(c);
  }
  std::sort(order.begin(), order.end());
  for (const auto& key : order) {
    const std::vector<Cell>& cells = groups[key];
    if (cells.size() < 2) continue;
    double fastest = cells.front().best->best_median_ms;
    for (const Cell& c : cells) fastest = std::min(fastest, c.best->best_median_ms);
    for (const Cell& c : cells) {
      const ComparisonEntry& e = *c.best;
      std::optional<double> pct, vs_eager;
      if (c.cublas) pct = *c.cublas / e.best_median_ms * 100.0;
      if (c.eager) vs_eager = *c.eager / e.best_median_ms;
      t.rows.push_back({text(key.first), text(e.family), text(e.device), integer(e.run), text(e.config),
                        Value(e.best_median_ms), value_of(c.cublas), value_of(pct), value_of(vs_eager),
                        Value(e.best_median_ms / fastest)});
    }
  }
  t.notes = {"Each device's ratios come from its own run (fused vs that run's cuBLAS GEMM and eager); "
             "the last column compares the devices' fused times with each other, which is how far one "
             "GPU of a model differs from another (clocks, power, thermals), not a same-run ratio."};
  return t;
}

Table why_table(const db::Database& db, const std::vector<ComparisonEntry>& entries,
                const SqlFilter& f) {
  Table t;
  t.name = "why";
  t.title = "Why: the epilogue's cost, waves, peak and what fusion buys";
  t.columns = problem_columns();
  for (Column c : {col("family", "family"), col("config", "config", -1, false),
                   col("c_mib", "C (MiB)", 1), col("c_in_l2", "C fits in L2"),
                   col("eager_cost_us", "eager − cuBLAS GEMM (µs)", 1),
                   col("eager_cost_pct", "(% of GEMM)", 1),
                   col("unfused_cost_us", "unfused − cuBLAS GEMM (µs)", 1),
                   col("unfused_cost_pct", "(% of GEMM)", 1),
                   col("eager_model_us", "DRAM model: eager (µs)", 1),
                   col("unfused_model_us", "DRAM model: unfused (µs)", 1),
                   col("blocks", "blocks"), col("blocks_per_sm", "resident blocks/SM"),
                   col("waves", "waves", 2), col("last_wave_pct", "last wave full (%)", 1),
                   col("pct_peak", "fused % of peak", 1),
                   col("cublas_pct_peak", "cuBLAS GEMM % of peak", 1),
                   col("fusion_gain", "own unfused ÷ fused (×)", 3),
                   col("spilled", "configs spilled")})
    t.columns.push_back(std::move(c));
  t.group_by = {"device", "problem"};
  std::map<std::tuple<std::int64_t, std::int64_t, std::string>, std::int64_t> spilled;
  for (auto& r : db.query("SELECT v.device_id, v.problem_id, v.family, COUNT(*) FROM v_measurements v "
                          "JOIN builds b ON b.id = v.build_id WHERE v.method = 'coalesce' AND " +
                              std::string(kSpilledSql) + " AND " + f.where +
                              " GROUP BY v.device_id, v.problem_id, v.family",
                          f.params)
                     .rows)
    spilled[{as_int(r[0]), as_int(r[1]), as_text(r[2])}] = as_int(r[3]);
  for (const auto& [begin, end] : blocks_of(entries)) {
    const ComparisonEntry& e = entries[begin];
    std::optional<double> gemm, eager, unfused, own_unfused, cublas_tflops;
    for (std::size_t i = begin + 1; i < end; ++i) {
      const ComparisonEntry& x = entries[i];
      if (x.status != "ok" || !x.median_ms || x.run != e.run) continue;
      if (x.method == "cublas_gemm") gemm = x.median_ms, cublas_tflops = x.tflops;
      if (x.method == "eager") eager = x.median_ms;
      if (x.method == "unfused") unfused = x.median_ms;
      if (x.method == "coalesce_unfused") own_unfused = x.median_ms;
    }
    auto facts = db.query(R"sql(
      SELECT d.l2_bytes, d.sm_count, v.grid_blocks, v.blocks_per_sm
      FROM v_measurements v JOIN devices d ON d.id = v.device_id WHERE v.measurement_id = ?1)sql",
                          {integer(e.measurement_id)});
    const auto& fact = facts.rows.at(0);
    const double c_bytes = static_cast<double>(e.m) * e.n *
                           (gemm_types(*parse_dtype(e.dtype)).c == Element::f32 ? 4 : 2);
    Value in_l2;
    if (!is_null(fact[0]) && as_int(fact[0]) > 0) in_l2 = text(c_bytes <= as_double(fact[0]) ? "yes" : "no");
    auto cost_us = [&](const std::optional<double>& ms) -> Value {
      return ms && gemm ? Value((*ms - *gemm) * 1e3) : Value();
    };
    auto cost_pct = [&](const std::optional<double>& ms) -> Value {
      return ms && gemm ? Value((*ms - *gemm) / *gemm * 100) : Value();
    };
    const std::optional<double> bandwidth = copy_bandwidth_bytes_per_s(e.device);
    auto model_us = [&](const char* method) -> Value {
      if (!bandwidth) return Value();
      return Value(extra_c_passes(method, e.epilogue) * c_bytes / *bandwidth * 1e6);
    };
    Value waves, last;
    if (!is_null(fact[2]) && !is_null(fact[3]) && as_int(fact[3]) > 0) {
      const Waves q = wave_quantization(as_double(fact[2]), as_double(fact[1]), as_double(fact[3]));
      waves = q.waves;
      last = q.last_wave_pct;
    }
    auto pct = [&](const std::optional<double>& tflops) -> Value {
      return tflops && e.peak_tflops ? Value(*tflops / *e.peak_tflops * 100) : Value();
    };
    auto it = spilled.find({e.device_id, e.problem_id, e.family});
    auto row = problem_values(e.device, e.m, e.n, e.k, e.dtype, e.epilogue);
    for (Value v : {text(e.family), text(e.config), Value(c_bytes / (1 << 20)), in_l2,
                    cost_us(eager), cost_pct(eager), cost_us(unfused), cost_pct(unfused),
                    model_us("eager"), model_us("unfused"), fact[2], fact[3], waves, last,
                    pct(e.tflops), pct(cublas_tflops),
                    own_unfused ? Value(*own_unfused / e.best_median_ms) : Value(),
                    integer(it == spilled.end() ? 0 : it->second)})
      row.push_back(std::move(v));
    t.rows.push_back(std::move(row));
  }
  t.notes = {
      "What fusion saves is the epilogue's cost in the library path: the baselines of the best "
      "row's run all run the same cuBLAS GEMM, so eager − cuBLAS GEMM and unfused − cuBLAS GEMM "
      "measure the separate kernels' cost directly. The DRAM model counts their traffic: each "
      "elementwise kernel reads C and writes it back (eager: a bias add, then the activation; "
      "unfused: one kernel), at the device's copy bandwidth (4.3 TB/s on the H200: "
      "reports/rules.cpp, copy_bandwidth_bytes_per_s); where C fits in L2 the traffic stays in "
      "L2 and launches dominate, so the model is an upper bound there.",
      "waves = blocks ÷ (SMs × resident blocks per SM), with resident blocks from ptxas' "
      "registers and the config's shared memory; a last wave far from full leaves SMs idle at "
      "the end of the kernel. % of peak is of the dtype's math (the devices table; f32's is FP32 "
      "FMA's, which 3xTF32 on the mma family can pass). own "
      "unfused ÷ fused: the winner's own GEMM with epilogue none, then the separate epilogue "
      "kernel, against the fused kernel (above 1: fusion is faster with the same tiles). "
      "configs spilled: candidates pruned after compiling because the kernel uses local memory "
      "(stored with the category registers)."};
  return t;
}

Table top_table(const db::Database& db, const SqlFilter& f, int top) {
  Table t;
  t.name = "top_configs";
  t.title = "Top " + std::to_string(top) + " configs of each family";
  t.columns = problem_columns();
  for (Column c : {col("family", "family"), col("rank", "rank"), col("config", "config"),
                   col("run", "run"), col("median_ms", "median (ms)", 4),
                   col("p10_ms", "p10 (ms)", 4), col("p90_ms", "p90 (ms)", 4),
                   col("tflops", "TFLOP/s", 2), col("pct_peak", "% of peak", 1),
                   col("params", "parameters"), col("registers", "registers"),
                   col("spill_bytes", "spill (B)"), col("smem_bytes", "smem (B)"),
                   col("threads", "threads"), col("blocks_per_sm", "blocks/SM")})
    t.columns.push_back(std::move(c));
  t.group_by = {"device", "problem"};
  auto params = f.params;
  params.push_back(integer(top));
  auto rs = db.query(R"sql(
    WITH ranked AS (
      SELECT v.*, ROW_NUMBER() OVER (PARTITION BY v.device_id, v.problem_id, v.family
                                     ORDER BY )sql" + std::string(kBestFirst) + R"sql() AS best_rank
      FROM v_measurements v WHERE v.method = 'coalesce' AND v.status = 'ok' AND )sql" +
                         f.where + R"sql()
    SELECT )sql" + device_label_sql("r") + R"sql(, r.m, r.n, r.k, r.dtype, r.epilogue, r.family, r.best_rank,
           r.config_name, r.run_id, r.median_ms, r.p10_ms, r.p90_ms, r.tflops,
           r.tflops / r.peak_tflops * 100,
           r.params_json, r.registers, r.spill_stores_bytes + r.spill_loads_bytes, r.smem_bytes,
           r.threads, r.blocks_per_sm
    FROM ranked r
    WHERE r.best_rank <= ?)sql" + std::to_string(params.size()) + R"sql(
    ORDER BY r.device_id, )sql" + kProblemOrder + ", r.family, r.best_rank",
                     params);
  for (auto& r : rs.rows) {
    auto row = problem_values(as_text(r[0]), static_cast<int>(as_int(r[1])),
                              static_cast<int>(as_int(r[2])), static_cast<int>(as_int(r[3])),
                              as_text(r[4]), as_text(r[5]));
    for (Value v : {r[6], r[7], r[8], r[9], r[10], r[11], r[12], r[13], r[14],
                    text(compact_params(as_text(r[15]))), r[16], r[17], r[18], r[19], r[20]})
      row.push_back(std::move(v));
    t.rows.push_back(std::move(row));
  }
  t.notes = {"Registers, spills and shared memory are ptxas' own figures for the build that was "
             "measured; spill (B) adds spill stores and loads."};
  return t;
}

Table outcomes_table(const db::Database& db, const SqlFilter& f) {
  Table t;
  t.name = "outcomes";
  t.title = "How every candidate ended";
  t.columns = problem_columns();
  for (Column c : {col("family", "family"), col("status", "status"), col("reason", "reason"),
                   col("configs", "configs"), col("example", "first message")})
    t.columns.push_back(std::move(c));
  t.group_by = {"device", "problem"};
  auto rs = db.query(R"sql(
    SELECT )sql" + device_label_sql("g") + R"sql(, g.m, g.n, g.k, g.dtype, g.epilogue, g.family, g.status, g.reason,
           g.configs, x.message
    FROM (SELECT v.device_id, v.device_name, v.problem_id, v.m, v.n, v.k, v.dtype, v.epilogue,
                 v.family, v.status,
                 CASE WHEN )sql" + std::string(kSpilledSql) + R"sql( THEN 'spills' ELSE v.prune_reason END AS reason,
                 COUNT(*) AS configs, MIN(v.measurement_id) AS first_id
          FROM v_measurements v LEFT JOIN builds b ON b.id = v.build_id
          WHERE v.method = 'coalesce' AND )sql" +
                         f.where + R"sql(
          GROUP BY v.device_id, v.problem_id, v.family, v.status, reason) g
    JOIN measurements x ON x.id = g.first_id
    ORDER BY g.device_id, g.m * g.n * g.k, g.m, g.n, g.k, g.dtype, g.epilogue, g.family,
             CASE g.status WHEN 'ok' THEN 0 WHEN 'pruned' THEN 1 WHEN 'compile_failed' THEN 2
                           WHEN 'launch_failed' THEN 3 WHEN 'wrong_result' THEN 4 ELSE 5 END,
             g.reason)sql",
                     f.params);
  for (auto& r : rs.rows) {
    auto row = problem_values(as_text(r[0]), static_cast<int>(as_int(r[1])),
                              static_cast<int>(as_int(r[2])), static_cast<int>(as_int(r[3])),
                              as_text(r[4]), as_text(r[5]));
    for (Value v : {r[6], r[7], r[8], r[9], r[10]}) row.push_back(std::move(v));
    t.rows.push_back(std::move(row));
  }
  t.notes = {"pruned: refused before measuring (reason: the violated rule; spills: pruned after "
             "compiling because the kernel uses local memory, stored as registers); compile_failed, "
             "launch_failed, wrong_result, timeout: tried and lost; only ok rows are timed."};
  return t;
}

/// Nsight Compute's figures read from a profile's metrics (the first-class columns of `profiles`
/// come from the table itself); their metric names as `ncu --set full` writes them.
constexpr const char* kSmThroughputMetric = "sm__throughput.avg.pct_of_peak_sustained_elapsed";
constexpr const char* kSharedPipeMetric = "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed";
constexpr const char* kSharedLoadsMetric = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum";
constexpr const char* kLoadConflictsMetric = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum";
constexpr const char* kStoreConflictsMetric = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum";
constexpr const char* kIssueActiveMetric = "smsp__issue_active.avg.pct_of_peak_sustained_active";
/// Warps stalled per issued instruction, one metric per reason: PREFIX<reason>SUFFIX.
constexpr std::string_view kStallPrefix = "smsp__average_warps_issue_stalled_";
constexpr std::string_view kStallSuffix = "_per_issue_active.ratio";
/// Stall reasons the profiles table names, the largest first.
constexpr std::size_t kTopStalls = 3;

/// A number of a profile's metrics, or NULL where the page lacks it or printed text.
Value metric(const nlohmann::json& metrics, const char* name) {
  auto it = metrics.find(name);
  if (it == metrics.end() || !it->is_number()) return Value();
  if (it->is_number_integer()) return Value(it->get<std::int64_t>());
  return Value(it->get<double>());
}

/// "barrier 6.03, gmma 3.75, long_scoreboard 3.68": the largest stall reasons, in warps stalled
/// per issued instruction. `selected` is the warp that issues, not a stall.
std::string top_stalls(const nlohmann::json& metrics) {
  std::vector<std::pair<std::string, double>> stalls;
  for (auto it = metrics.begin(); it != metrics.end(); ++it) {
    const std::string& name = it.key();
    if (name.size() <= kStallPrefix.size() + kStallSuffix.size() || name.rfind(kStallPrefix, 0) != 0 ||
        name.compare(name.size() - kStallSuffix.size(), kStallSuffix.size(), kStallSuffix) != 0 ||
        !it->is_number())
      continue;
    std::string reason = name.substr(kStallPrefix.size(), name.size() - kStallPrefix.size() - kStallSuffix.size());
    if (reason != "selected") stalls.emplace_back(std::move(reason), it->get<double>());
  }
  std::stable_sort(stalls.begin(), stalls.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out;
  for (std::size_t i = 0; i < stalls.size() && i < kTopStalls; ++i) {
    char value[32];
    std::snprintf(value, sizeof value, "%.2f", stalls[i].second);
    out += (out.empty() ? "" : ", ") + stalls[i].first + " " + value;
  }
  return out;
}

}  // namespace

Table profiles_table(const db::Database& db, const std::vector<ComparisonEntry>& entries, const Filters& filters) {
  Table t;
  t.name = "profiles";
  t.title = "Profiles: what Nsight Compute saw of the winners and the library";
  t.columns = problem_columns();
  for (Column c : {col("family", "family"), col("method", "method"), col("config", "config", -1, false),
                   col("kernel", "kernel"), col("current_best", "current best of its family here"),
                   col("profiled_on", "profiled on"), col("tool", "tool"), col("profiled_at", "profiled (UTC)"),
                   col("duration_us", "duration (µs)", 1), col("sm_clock_mhz", "SM clock (MHz)", 0),
                   col("tensor_pipe_pct", "tensor pipe active (%)", 1), col("sm_throughput_pct", "SM throughput (%)", 1),
                   col("shared_pipe_pct", "shared-memory pipe (%)", 1),
                   col("shared_load_wavefronts", "shared-load wavefronts", 0, false),
                   col("bank_conflicts_loads", "bank conflicts (loads)", 0),
                   col("bank_conflicts_stores", "bank conflicts (stores)", 0),
                   col("issue_busy_pct", "issue slots busy (%)", 1), col("occupancy_pct", "achieved occupancy (%)", 1),
                   col("registers", "registers/thread"), col("top_stalls", "top stalls (warps per issue)")})
    t.columns.push_back(std::move(c));
  t.group_by = {"device", "problem"};
  // Each device × problem of the comparison once, in its order, with its families' best configs.
  struct Place {
    const ComparisonEntry* first;
    std::map<std::int64_t, std::string> best;  // config id -> family
  };
  std::vector<Place> places;
  for (const auto& [begin, end] : blocks_of(entries)) {
    const ComparisonEntry& e = entries[begin];
    if (places.empty() || places.back().first->device_id != e.device_id ||
        places.back().first->problem_id != e.problem_id)
      places.push_back({&e, {}});
    places.back().best[e.config_id] = e.family;
  }
  for (const Place& place : places) {
    const ComparisonEntry& e = *place.first;
    // This device's profiles first, then those of other GPUs of its model (same_model_sql: name,
    // architecture, SM count and max SM clock): the same config or library call profiled there.
    auto rs = db.query(R"sql(
      SELECT p.device_id, )sql" + device_label_sql("pd") + R"sql(, p.method, p.config_id, c.family, c.name, p.kernel,
             p.tool, p.tool_version, p.profiled_at, p.duration_us, p.sm_clock_mhz, p.tensor_pipe_active_pct,
             p.achieved_occupancy_pct, p.registers, p.metrics_json
      FROM profiles p
      JOIN (SELECT id AS device_id, name AS device_name, name, arch, sm_count, max_sm_clock_mhz FROM devices) pd
        ON pd.device_id = p.device_id
      LEFT JOIN configs c ON c.id = p.config_id
      WHERE p.problem_id = ?2
        AND (p.device_id = ?1 OR EXISTS (SELECT 1 FROM devices g WHERE g.id = ?1 AND )sql" +
                           same_model_sql("g", "pd") + R"sql())
      ORDER BY p.device_id <> ?1, p.device_id, p.id)sql",
                       {integer(e.device_id), integer(e.problem_id)});
    struct Shown {
      int group;           // 0: a family's best, 1: another config measured here, 2: the library and peers
      std::string order;   // within the group: the family, or the method's rank and the kernel
      std::size_t index;   // the query's order (this device first)
      std::vector<Value> row;
    };
    std::vector<Shown> shown;
    for (std::size_t i = 0; i < rs.rows.size(); ++i) {
      const auto& r = rs.rows[i];
      const bool here = as_int(r[0]) == e.device_id;
      const bool library = is_null(r[3]);
      std::string family = library ? "" : as_text(r[4]);
      Value current;
      int group = 2;
      // A peer's config (torch, triton) is no family's best: it shows with the library.
      if (!library && !is_peer(as_text(r[2]))) {
        auto best = place.best.find(as_int(r[3]));
        // Another GPU's profile shows beside a config that is this device's best; a config that is
        // no longer the best shows only where it was profiled.
        if (best == place.best.end() && !here) continue;
        group = best == place.best.end() ? 1 : 0;
        current = text(group == 0 ? "yes" : "no");
      }
      if (!filters.family.empty() && !library && family != filters.family) continue;
      const auto metrics = nlohmann::json::parse(as_text(r[15]), nullptr, false);
      const std::string tool = as_text(r[7]) + (as_text(r[8]).empty() ? "" : " " + as_text(r[8]));
      auto row = problem_values(e.device, e.m, e.n, e.k, e.dtype, e.epilogue);
      for (Value v : {family.empty() ? Value() : text(family), r[2], library ? Value() : r[5], r[6], current,
                      here ? Value() : r[1], text(tool), r[9], r[10], r[11], r[12],
                      metric(metrics, kSmThroughputMetric), metric(metrics, kSharedPipeMetric),
                      metric(metrics, kSharedLoadsMetric), metric(metrics, kLoadConflictsMetric),
                      metric(metrics, kStoreConflictsMetric), metric(metrics, kIssueActiveMetric), r[13], r[14],
                      text(top_stalls(metrics))})
        row.push_back(std::move(v));
      char rank[8];
      std::snprintf(rank, sizeof rank, "%03d ", db::method_rank(as_text(r[2])));
      shown.push_back({group, group == 2 ? rank + as_text(r[6]) : family, i, std::move(row)});
    }
    std::stable_sort(shown.begin(), shown.end(), [](const Shown& a, const Shown& b) {
      return std::tie(a.group, a.order, a.index) < std::tie(b.group, b.order, b.index);
    });
    for (Shown& s : shown) t.rows.push_back(std::move(s.row));
  }
  t.notes = {
      "Nsight Compute's figures of one launch of each kernel (stored by `scripts/ncu_summary.py --db`, through "
      "`coalesce-tune record-profile`): per device and problem, each profile of a family's best config there "
      "(current best: yes), of a config measured there that no longer is (no), and of the library's kernels "
      "(method and kernel as ncu named them).",
      "profiled on: the profile was taken on another GPU of this device's model (same name, architecture, "
      "SM count and max SM clock, as --same-model groups them), of the same config (same name and source hash) or the same library call; its duration and "
      "SM clock are that GPU's at that time, while the times of the tables above are this device's. Empty (—): "
      "profiled on this device.",
      "SM clock: the SMs' clock during the profiled launch. tensor pipe active: % of the active cycles the tensor "
      "pipe was busy; issue slots busy and achieved occupancy also of active cycles; SM throughput and the "
      "shared-memory pipe of elapsed cycles. Bank conflicts count shared-memory wavefronts beyond the ideal. Top "
      "stalls: the largest reasons in warps stalled per issued instruction (`selected`, the warp issuing, is not "
      "a stall)."};
  return t;
}

DeviceKey device_key_kind(std::string_view key) {
  if (!key.empty() && key.find_first_not_of("0123456789") == std::string_view::npos)
    return DeviceKey::id;
  if (key.size() > 4 && (key.substr(0, 4) == "GPU-" || key.substr(0, 4) == "gpu-"))
    return DeviceKey::uuid;
  return DeviceKey::name;
}

std::optional<Shape> parse_shape(std::string_view s, std::string* error) {
  std::optional<Problem> p = parse_extents(s, error);
  if (!p) return std::nullopt;
  return Shape{p->m, p->n, p->k};
}

void Filters::validate() const {
  auto names = [](const auto& values) {
    std::string out;
    for (const auto& v : values) out += (out.empty() ? "" : ", ") + std::string(to_string(v));
    return out;
  };
  if (!dtype.empty() && !parse_dtype(dtype))
    throw std::invalid_argument("unknown dtype '" + dtype + "' (expected " + names(all_dtypes()) + ")");
  if (!epilogue.empty() && !parse_epilogue(epilogue))
    throw std::invalid_argument("unknown epilogue '" + epilogue + "' (expected " +
                                names(all_epilogues()) + ")");
}

std::string Filters::describe() const {
  std::string out;
  auto add = [&](const std::string& flag, const std::string& value) {
    if (!value.empty()) out += (out.empty() ? "" : " ") + flag + " " + value;
  };
  add("--device", device);
  add("--dtype", dtype);
  add("--epilogue", epilogue);
  for (const auto& s : shapes)
    add("--shape", std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k));
  add("--family", family);
  if (run) add("--run", std::to_string(*run));
  return out.empty() ? "none" : out;
}

SqlFilter filter_sql(const Filters& f, const std::string& a) {
  SqlFilter out;
  std::vector<std::string> terms;
  auto param = [&](Value v) {
    out.params.push_back(std::move(v));
    return "?" + std::to_string(out.params.size());
  };
  if (!f.device.empty()) {
    switch (device_key_kind(f.device)) {
      case DeviceKey::id:
        terms.push_back("CAST(" + a + ".device_id AS TEXT) = " + param(text(f.device)));
        break;
      case DeviceKey::uuid: {
        // Databases written before 2026-11-29 key a GPU by its UUID's first 39 characters (see
        // db::Database::find_device): the full UUID finds such a row too.
        const std::string full = param(text(f.device));
        terms.push_back("(" + a + ".device_uuid = " + full + " OR (length(" + full + ") = 40 AND " +
                        a + ".device_uuid = substr(" + full + ", 1, 39)))");
        break;
      }
      case DeviceKey::name:
        // Plain text, ignoring ASCII case as LIKE did, but with no wildcards: `--device %` or `_`
        // must not match every device (issue 45).
        terms.push_back("instr(lower(" + a + ".device_name), lower(" + param(text(f.device)) + ")) > 0");
        break;
    }
  }
  if (!f.dtype.empty()) terms.push_back(a + ".dtype = " + param(text(f.dtype)));
  if (!f.epilogue.empty()) terms.push_back(a + ".epilogue = " + param(text(f.epilogue)));
  if (!f.family.empty()) terms.push_back(a + ".family = " + param(text(f.family)));
  if (f.run) terms.push_back(a + ".run_id = " + param(integer(*f.run)));
  if (!f.shapes.empty()) {
    std::string any;
    for (const auto& s : f.shapes)
      any += std::string(any.empty() ? "" : " OR ") + "(" + a + ".m = " + param(integer(s.m)) +
             " AND " + a + ".n = " + param(integer(s.n)) + " AND " + a + ".k = " +
             param(integer(s.k)) + ")";
    terms.push_back("(" + any + ")");
  }
  for (const auto& t : terms) out.where += (out.where.empty() ? "" : " AND ") + t;
  if (out.where.empty()) out.where = "1";
  return out;
}

bool matches_any(const db::Database& db, const Filters& filters) {
  SqlFilter f = filter_sql(filters, "v");
  auto rs = db.query("SELECT EXISTS (SELECT 1 FROM v_measurements v WHERE " + f.where + ")", f.params);
  return as_int(rs.rows.at(0).at(0)) != 0;
}

std::string same_model_sql(const std::string& a, const std::string& b) {
  // The name tells the product (an H200 NVL is named so); the architecture and SM count tell a
  // MIG slice or a cut-down part of the same name apart; the max SM clock is what the peaks and
  // the clock checks rest on, and an unknown clock (0, no NVML) cannot show it matches. Memory
  // size is left out: ECC mode changes what the driver reports on the same GPU.
  std::string out;
  for (const char* column : {"name", "arch", "sm_count", "max_sm_clock_mhz"})
    out += (out.empty() ? "" : " AND ") + a + "." + column + " = " + b + "." + column;
  return "(" + out + " AND " + a + ".max_sm_clock_mhz > 0)";
}

std::vector<std::int64_t> same_model_devices(const db::Database& db, std::int64_t device_id) {
  auto rs = db.query("SELECT g.id FROM devices g JOIN devices d ON d.id = ?1 WHERE g.id = d.id OR " +
                         same_model_sql("g", "d") + " ORDER BY g.id",
                     {integer(device_id)});
  std::vector<std::int64_t> out;
  for (const auto& row : rs.rows) out.push_back(as_int(row[0]));
  return out;
}

std::string device_label_sql(const std::string& a) {
  return "(CASE WHEN (SELECT count(*) FROM devices dl WHERE dl.name = " + a +
         ".device_name) > 1 THEN " + a + ".device_name || ' (device ' || " + a +
         ".device_id || ')' ELSE " + a + ".device_name END)";
}

std::string problem_label(int m, int n, int k, const std::string& dtype,
                          const std::string& epilogue) {
  return std::to_string(m) + "×" + std::to_string(n) + "×" + std::to_string(k) + " " + dtype +
         " " + epilogue;
}

ProblemBlocks fastest_family_blocks(const std::vector<ComparisonEntry>& entries) {
  // Each family's best starts a block of its run's rows; per device and problem the fastest
  // family's block speaks for the fused kernel.
  ProblemBlocks chosen;
  for (const auto& block : blocks_of(entries)) {
    const ComparisonEntry& e = entries[block.first];
    const auto key = std::make_pair(e.device_id, e.problem_id);
    auto it = chosen.find(key);
    // Across families as within one: the most preferred protocol first, then the fastest.
    auto rank = [&](const ComparisonEntry& x) { return std::make_pair(x.protocol_preference, x.best_median_ms); };
    if (it == chosen.end() || rank(e) < rank(entries[it->second.first])) chosen[key] = block;
  }
  return chosen;
}

std::vector<ComparisonEntry> comparison_entries(const db::Database& db, const Filters& filters,
                                                PeerScope peers_scope) {
  SqlFilter f = filter_sql(filters, "v");
  auto best = db.query(R"sql(
    WITH ranked AS (
      SELECT v.*, ROW_NUMBER() OVER (PARTITION BY v.device_id, v.problem_id, v.family
                                     ORDER BY )sql" + std::string(kBestFirst) + R"sql() AS best_rank
      FROM v_measurements v WHERE v.method = 'coalesce' AND v.status = 'ok' AND )sql" +
                           f.where + R"sql()
    SELECT r.device_id, )sql" + device_label_sql("r") + R"sql(, r.peak_tflops,
           r.problem_id, r.m, r.n, r.k, r.dtype, r.epilogue, r.family, r.run_id, r.config_id,
           r.config_name, r.median_ms, r.p10_ms, r.p90_ms, r.tflops, r.measurement_id, r.steady_state,
           r.protocol, r.protocol_preference
    FROM ranked r
    WHERE r.best_rank = 1
    ORDER BY r.device_id, )sql" + std::string(kProblemOrder) +
                           ", r.family",
                       f.params);
  std::vector<ComparisonEntry> out;
  for (auto& r : best.rows) {
    ComparisonEntry e;
    e.device_id = as_int(r[0]);
    e.device = as_text(r[1]);
    e.peak_tflops = opt_double(r[2]);
    e.problem_id = as_int(r[3]);
    e.m = static_cast<int>(as_int(r[4]));
    e.n = static_cast<int>(as_int(r[5]));
    e.k = static_cast<int>(as_int(r[6]));
    e.dtype = as_text(r[7]);
    e.epilogue = as_text(r[8]);
    e.family = as_text(r[9]);
    e.run = as_int(r[10]);
    e.method = "coalesce";
    e.config = as_text(r[12]);
    e.config_id = as_int(r[11]);
    e.status = "ok";
    e.median_ms = e.best_median_ms = as_double(r[13]);
    e.p10_ms = e.best_p10_ms = as_double(r[14]);
    e.p90_ms = e.best_p90_ms = as_double(r[15]);
    e.tflops = opt_double(r[16]);
    e.measurement_id = as_int(r[17]);
    e.steady_state = as_int(r[18]) != 0;
    e.protocol = as_text(r[19]);
    e.protocol_preference = static_cast<int>(as_int(r[20]));
    out.push_back(e);
    // A floor (read_b) is a bound, not a peer: it is in no comparison block (m_sweep_table shows it).
    auto others = db.query(R"sql(
      SELECT method, IFNULL(config_name, ''), status, median_ms, p10_ms, p90_ms, tflops, message
      FROM v_measurements
      WHERE run_id = ?1 AND device_id = ?2 AND problem_id = ?3
        AND (config_id IS NULL OR (method = 'coalesce_unfused' AND config_id = ?4))
        AND method NOT IN ()sql" + floor_methods() + ")",
                           {r[10], r[0], r[3], r[11]});
    std::vector<ComparisonEntry> rows;
    // A row compared with the best: method, config, status, median, p10, p90, TFLOP/s, message.
    auto compared = [&e](const std::vector<Value>& o) {
      ComparisonEntry x = e;
      x.method = as_text(o[0]);
      x.config = as_text(o[1]);
      x.status = as_text(o[2]);
      x.median_ms = opt_double(o[3]);
      x.p10_ms = opt_double(o[4]);
      x.p90_ms = opt_double(o[5]);
      x.tflops = opt_double(o[6]);
      x.message = as_text(o[7]);
      return x;
    };
    for (auto& o : others.rows) rows.push_back(compared(o));
    if (!filters.run) {
      // The peers come from runs of their own, so --run (one run's rows only) leaves them out.
      // Per method the latest run that measured it on this device; with --same-model (?3), where
      // this device has none, the latest run of another device of its model; in the best's timing
      // protocol (?4) only, so that no ratio puts two protocols together.
      auto peers = db.query(R"sql(
        WITH candidates AS (
          SELECT m.method, m.device_id, m.run_id,
                 ROW_NUMBER() OVER (PARTITION BY m.method
                                    ORDER BY m.device_id <> ?1, m.run_id DESC) AS choice
          FROM measurements m
          WHERE m.problem_id = ?2 AND m.protocol = ?4 AND m.method IN ()sql" + peer_methods("'", ", ") + R"sql()
            AND m.device_id IN (SELECT g.id FROM devices g JOIN devices d ON d.id = ?1
                                WHERE g.id = d.id OR (?3 AND )sql" + same_model_sql("g", "d") + R"sql())),
        latest AS (SELECT method, device_id, run_id FROM candidates WHERE choice = 1),
        picked AS (
          SELECT v.*, ROW_NUMBER() OVER (PARTITION BY v.method
                                         ORDER BY v.status <> 'ok', v.median_ms,
                                                  v.measurement_id) AS pick
          FROM v_measurements v JOIN latest l ON l.method = v.method AND l.run_id = v.run_id
                                             AND l.device_id = v.device_id
          WHERE v.problem_id = ?2)
        SELECT p.method, IFNULL(p.config_name, ''), p.status, p.median_ms, p.p10_ms, p.p90_ms,
               p.tflops, p.message, p.run_id, p.device_id, )sql" + device_label_sql("p") + R"sql(
        FROM picked p WHERE p.pick = 1)sql",
                            {r[0], r[3], integer(peers_scope == PeerScope::same_model ? 1 : 0), r[19]});
      for (auto& o : peers.rows) {
        rows.push_back(compared(o));
        rows.back().run = as_int(o[8]);
        if (as_int(o[9]) != e.device_id) {
          rows.back().measured_on_id = as_int(o[9]);
          rows.back().measured_on = as_text(o[10]);
        }
      }
    }
    std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
      int oa = db::method_rank(a.method), ob = db::method_rank(b.method);
      return oa != ob ? oa < ob : a.method < b.method;
    });
    out.insert(out.end(), rows.begin(), rows.end());
  }
  return out;
}

Document build_report(const db::Database& db, const Filters& filters,
                      const ReportOptions& options) {
  Document doc = make_document("report", "Coalesce report");
  doc.meta.emplace_back("database", options.database);
  doc.meta.emplace_back("schema_version", std::to_string(db.schema_version()));
  doc.meta.emplace_back("filters", filters.describe());
  doc.notes = {"Times are medians of cold samples (L2 flushed before each) in milliseconds; "
               "p10 and p90 bound the middle 80% of the samples. Every ratio compares rows of "
               "one run on one device."};
  if (options.peers == PeerScope::same_model) doc.meta.emplace_back("peers", "same model (--same-model)");
  auto entries = comparison_entries(db, filters, options.peers);
  if (std::any_of(entries.begin(), entries.end(), [](const auto& e) { return is_peer(e.method); }))
    doc.notes.back() += " The peers (" + peer_methods("", ", ") +
                        ") are the exception: they come from runs of their own on the same device.";
  // The runs and devices of cross-device peers join the environment tables even where the
  // filters (--device) leave them out, so every number shown has its run.
  std::set<std::int64_t> cross_runs, cross_devices;
  for (const ComparisonEntry& e : entries)
    if (e.cross_device()) {
      cross_runs.insert(e.run);
      cross_devices.insert(e.measured_on_id);
    }
  const bool cross = !cross_runs.empty();
  if (cross)
    doc.notes.back() += " With --same-model, a peer that the device never measured on the problem "
                        "comes from another device of the same model: the comparison marks each "
                        "such row cross-device (the plots draw it hollow and dashed), and no other "
                        "table uses it.";
  // What a reader came for first, then the detail, then the environment of every number.
  SqlFilter f = filter_sql(filters, "v");
  doc.tables.push_back(summary_table(entries, cross));
  if (!options.workloads.empty()) {
    std::string paths;
    for (const Workload& w : options.workloads) paths += (paths.empty() ? "" : ", ") + w.path;
    doc.meta.emplace_back("workloads", paths);
    for (Table& t : workload_tables(db, filters, options.workloads)) {
      if (cross && t.name == "workloads")
        t.notes.push_back("A section is one device: the peers measured on another device of the "
                          "model (--same-model, in the comparison) are not summed here.");
      doc.tables.push_back(std::move(t));
    }
  }
  if (Table sweep = m_sweep_table(m_sweep_groups(db, entries)); !sweep.rows.empty()) doc.tables.push_back(std::move(sweep));
  doc.tables.push_back(comparison_table(entries, options.peers));
  if (Table side = devices_table_side_by_side(entries); !side.rows.empty()) doc.tables.push_back(std::move(side));
  doc.tables.push_back(why_table(db, entries, f));
  if (Table profiles = profiles_table(db, entries, filters); !profiles.rows.empty())
    doc.tables.push_back(std::move(profiles));
  doc.tables.push_back(top_table(db, f, options.top));
  doc.tables.push_back(outcomes_table(db, f));
  doc.tables.push_back(runs_table(db, f, cross_runs));
  doc.tables.push_back(devices_table(db, f, cross_devices));
  doc.meta_at_end = true;
  return doc;
}

}  // namespace coalesce::report
