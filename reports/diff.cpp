// `coalesce-report diff A.db B.db`: what got faster or slower from A to B (two commits, two
// GPUs), judged with the same [p10, p90] rule as the report.
#include <cstdio>
#include <iterator>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "report.hpp"
#include "schema/vocabulary.hpp"

namespace coalesce::report {

namespace {

using db::as_double;
using db::as_int;
using db::as_text;
using db::is_null;

/// What a row is matched on across the two databases.
struct Key {
  std::string device;
  std::int64_t flops_order;  // sorts problems by size
  int m, n, k;
  std::string dtype, epilogue;
  int method_rank;
  std::string method, family, config;
  auto tie() const {
    return std::tie(device, flops_order, m, n, k, dtype, epilogue, method_rank, method, family,
                    config);
  }
  bool operator<(const Key& o) const { return tie() < o.tie(); }
};

struct Row {
  std::string status;
  double median = 0, p10 = 0, p90 = 0;
};

/// Tuned methods first, then the baselines, then the peers, each in kMethods' order; unknown
/// methods last.
int method_rank(const std::string& method) {
  const int known = static_cast<int>(std::size(db::kMethods));
  const db::MethodInfo* m = db::find_method(method);
  if (!m) return 3 * known;
  const int group = m->origin == db::MethodOrigin::tuned ? 0 : m->origin == db::MethodOrigin::baseline ? 1 : 2;
  return group * known + db::method_rank(method);
}

/// The latest row (highest run, then id) of every key in `db` within the filters.
std::map<Key, Row> latest_rows(const db::Database& db, const Filters& filters, bool ignore_device,
                               const std::string& label) {
  SqlFilter f = filter_sql(filters, "v");
  if (ignore_device) {
    auto devices = db.query("SELECT count(DISTINCT v.device_id) FROM v_measurements v WHERE " +
                                f.where,
                            f.params);
    if (as_int(devices.rows[0][0]) > 1)
      throw std::invalid_argument("--ignore-device needs one device per database, and " + label +
                                  " has " + as_text(devices.rows[0][0]) +
                                  " (narrow it with --device)");
  }
  auto rs = db.query(R"sql(
    SELECT v.device_name, v.m, v.n, v.k, v.dtype, v.epilogue, v.method, IFNULL(v.family, ''),
           IFNULL(v.config_name, ''), v.status, v.median_ms, v.p10_ms, v.p90_ms
    FROM v_measurements v WHERE )sql" + f.where +
                         " ORDER BY v.run_id, v.measurement_id",
                     f.params);
  std::map<Key, Row> out;
  for (auto& r : rs.rows) {
    Key key{ignore_device ? std::string() : as_text(r[0]),
            as_int(r[1]) * as_int(r[2]) * as_int(r[3]),
            static_cast<int>(as_int(r[1])),
            static_cast<int>(as_int(r[2])),
            static_cast<int>(as_int(r[3])),
            as_text(r[4]),
            as_text(r[5]),
            method_rank(as_text(r[6])),
            as_text(r[6]),
            as_text(r[7]),
            as_text(r[8])};
    Row row{as_text(r[9])};
    if (!is_null(r[10])) row = {row.status, as_double(r[10]), as_double(r[11]), as_double(r[12])};
    out[key] = row;  // later runs replace earlier ones
  }
  return out;
}

Column col(std::string key, std::string header, int precision = -1, bool markdown = true) {
  return {std::move(key), std::move(header), precision, markdown};
}

}  // namespace

Document build_diff(const db::Database& a, const db::Database& b, const Filters& filters,
                    const DiffOptions& options) {
  auto rows_a = latest_rows(a, filters, options.ignore_device, options.a_label);
  auto rows_b = latest_rows(b, filters, options.ignore_device, options.b_label);

  Document doc = make_document("diff", "Coalesce diff");
  doc.meta.emplace_back("a", options.a_label);
  doc.meta.emplace_back("b", options.b_label);
  doc.meta.emplace_back("a_schema_version", std::to_string(a.schema_version()));
  doc.meta.emplace_back("b_schema_version", std::to_string(b.schema_version()));
  doc.meta.emplace_back("devices_matched_by", options.ignore_device ? "nothing (--ignore-device)"
                                                                    : "name");
  doc.meta.emplace_back("filters", filters.describe());
  doc.meta.emplace_back("rows", options.all ? "every compared row (--all)"
                                            : "changed beyond noise (--all: every row)");

  Table t;
  t.name = "diff";
  t.title = options.all ? "Every compared row from A to B" : "What changed beyond noise from A to B";
  t.empty_text = options.all ? "No row is in both databases." : "Nothing changed beyond noise.";
  t.columns = {col("device", "device"),         col("problem", "problem"),
               col("m", "M", -1, false),         col("n", "N", -1, false),
               col("k", "K", -1, false),         col("dtype", "dtype", -1, false),
               col("epilogue", "epilogue", -1, false),
               col("method", "method"),         col("family", "family"),
               col("config", "config"),         col("a_status", "A status"),
               col("a_median_ms", "A median (ms)", 4), col("a_p10_ms", "A p10", 4),
               col("a_p90_ms", "A p90", 4),      col("b_status", "B status"),
               col("b_median_ms", "B median (ms)", 4), col("b_p10_ms", "B p10", 4),
               col("b_p90_ms", "B p90", 4),      col("ratio", "B/A", 3),
               col("verdict", "B is")};
  t.group_by = {"device", "problem"};

  int faster = 0, slower = 0, same = 0, changed = 0, only_a = 0, only_b = 0;
  std::vector<double> ratios;  // B/A of the keys ok in both
  for (const auto& [key, ra] : rows_a) {
    auto it = rows_b.find(key);
    if (it == rows_b.end()) {
      ++only_a;
      continue;
    }
    const Row& rb = it->second;
    bool ok_a = ra.status == "ok", ok_b = rb.status == "ok";
    if (!ok_a && !ok_b) continue;  // failed or pruned in both: nothing to compare
    Value ratio, verdict;
    bool within_noise = false;
    if (ok_a && ok_b) {
      double r = rb.median / ra.median;
      ratio = r;
      ratios.push_back(r);
      Verdict v = compare_spread(rb.p10, rb.p90, ra.p10, ra.p90);
      verdict = std::string(to_string(v));
      within_noise = v == Verdict::same;
      (v == Verdict::faster ? faster : v == Verdict::slower ? slower : same)++;
    } else {
      verdict = std::string(ok_b ? "now ok" : "now " + rb.status);
      ++changed;
    }
    if (within_noise && !options.all) continue;
    auto timing = [](const Row& r, double Row::*field) {
      return r.status == "ok" ? Value(r.*field) : Value();
    };
    t.rows.push_back({key.device.empty() ? Value(std::string("(any)")) : Value(key.device),
                      problem_label(key.m, key.n, key.k, key.dtype, key.epilogue),
                      std::int64_t{key.m}, std::int64_t{key.n}, std::int64_t{key.k}, key.dtype,
                      key.epilogue, key.method, key.family, key.config, ra.status,
                      timing(ra, &Row::median), timing(ra, &Row::p10), timing(ra, &Row::p90),
                      rb.status, timing(rb, &Row::median), timing(rb, &Row::p10),
                      timing(rb, &Row::p90), ratio, verdict});
  }
  for (const auto& entry : rows_b)
    if (!rows_a.count(entry.first)) ++only_b;
  t.notes = {"Rows are matched by device, problem, method and config name; the latest row of each "
             "in either database counts. B/A = B's median ÷ A's median (below 1: B is faster). B "
             "is faster or slower only when the [p10, p90] intervals of A and B do not overlap; "
             "otherwise the change is within the measured noise."};
  if (!options.all && same > 0)
    t.notes.push_back(std::to_string(same) + " compared row" + (same == 1 ? "" : "s") +
                      " within noise " + (same == 1 ? "is" : "are") +
                      " not listed (--all lists every row).");

  Table s;
  s.name = "summary";
  s.title = "Summary";
  s.columns = {col("compared", "compared"),        col("faster", "faster"),
               col("slower", "slower"),            col("within_noise", "within noise"),
               col("status_changed", "status changed"), col("only_in_a", "only in A"),
               col("only_in_b", "only in B"),      col("geomean_ratio", "geometric mean B/A", 3)};
  Value geomean = ratios.empty() ? Value() : Value(geometric_mean(ratios));
  s.rows.push_back({std::int64_t{faster + slower + same}, std::int64_t{faster},
                    std::int64_t{slower}, std::int64_t{same}, std::int64_t{changed},
                    std::int64_t{only_a}, std::int64_t{only_b}, geomean});

  char line[400];
  std::snprintf(line, sizeof line,
                "%d compared: %d faster, %d slower, %d within noise; %d changed status; %d only "
                "in A, %d only in B; geometric mean B/A %s (below 1: B is faster).",
                faster + slower + same, faster, slower, same, changed, only_a, only_b,
                ratios.empty() ? "n/a" : format_value(geomean, 3, "").c_str());
  doc.notes.push_back(line);
  doc.tables.push_back(std::move(s));
  doc.tables.push_back(std::move(t));
  return doc;
}

std::vector<std::string> slower_by_more_than(const Document& diff, double percent) {
  std::vector<std::string> out;
  for (const Table& t : diff.tables) {
    if (t.name != "diff") continue;
    for (const auto& row : t.rows) {
      const Value& ratio = row[t.index("ratio")];
      if (is_null(ratio) || as_text(row[t.index("verdict")]) != to_string(Verdict::slower)) continue;
      if (as_double(ratio) <= 1.0 + percent / 100.0) continue;
      char r[32];
      std::snprintf(r, sizeof r, "%.3f", as_double(ratio));
      std::string config = as_text(row[t.index("config")]);
      out.push_back(as_text(row[t.index("device")]) + " " + as_text(row[t.index("problem")]) + " " +
                    as_text(row[t.index("method")]) + (config.empty() ? "" : " " + config) +
                    " (B/A " + r + ")");
    }
  }
  return out;
}

}  // namespace coalesce::report
