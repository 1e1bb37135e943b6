// The recorder behind `coalesce-tune record-profile` (record_profile.hpp). The profile and the
// flags are checked whole before the database is opened, and the device, problem and config
// looked up before anything is written; docs/tuner.md ("Recording a profile") documents the
// object and where each column comes from.
#include "record_profile.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <istream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <regex>
#include <span>
#include <string_view>
#include <vector>

#include "schema/db.hpp"
#include "schema/vocabulary.hpp"

namespace coalesce::tuner {

namespace {

namespace fs = std::filesystem;
// Ordered, so that metrics_json keeps the profiler's order of its metrics.
using Json = nlohmann::ordered_json;

/// A unit the profiler prints and the factor that turns it into a column's unit.
struct Scale {
  std::string_view unit;  ///< as ncu prints it, compared without case ("Ghz", "usecond")
  double factor;
};

constexpr Scale kToMicroseconds[] = {{"ns", 1e-3}, {"nsecond", 1e-3}, {"us", 1},      {"usecond", 1},
                                     {"ms", 1e3},  {"msecond", 1e3},  {"s", 1e6},     {"second", 1e6}};
constexpr Scale kToMegahertz[] = {{"hz", 1e-6},          {"khz", 1e-3},          {"mhz", 1},
                                  {"ghz", 1e3},          {"cycle/second", 1e-6}, {"cycle/usecond", 1},
                                  {"cycle/nsecond", 1e3}};
constexpr Scale kToPercent[] = {{"%", 1}};
constexpr Scale kToCount[] = {{"", 1}, {"register/thread", 1}};

/// A first-class column of `profiles`: the metrics it is read from (the first one the page holds
/// wins) and the units it converts from.
struct Figure {
  const char* column;
  std::vector<const char*> metrics;
  std::span<const Scale> units;
};

// The metric names as run D's pages print them (results/logs/runD/ncu, `ncu --set full`). The
// tensor pipe is the roll-up over every tensor instruction (HMMA and Hopper's GMMA); a page
// without it gives the HMMA pipe's, which on run D's pages reads the same for every kernel.
const Figure kDuration{"duration_us", {"gpu__time_duration.sum"}, kToMicroseconds};
const Figure kSmClock{"sm_clock_mhz", {"sm__cycles_elapsed.avg.per_second"}, kToMegahertz};
const Figure kTensorPipe{"tensor_pipe_active_pct",
                         {"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
                          "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"},
                         kToPercent};
const Figure kOccupancy{"achieved_occupancy_pct", {"sm__warps_active.avg.pct_of_peak_sustained_active"}, kToPercent};
const Figure kRegisters{"registers", {"launch__registers_per_thread"}, kToCount};

/// The metric ncu names the profiled GPU by; checked against the device the flags name.
constexpr const char* kDeviceNameMetric = "device__attribute_display_name";

bool same_unit(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

/// The profile as read from stdin, checked.
struct Page {
  std::string kernel, tool, tool_version;
  std::optional<std::string> profiled_at;
  Json metrics, units;
};

[[noreturn]] void bad(const std::string& what) { throw ProfileInputError("the profile on stdin: " + what); }

std::string text_field(const Json& j, const char* key, bool required) {
  if (!j.contains(key)) {
    if (required) bad("\"" + std::string(key) + "\" is missing");
    return "";
  }
  if (!j.at(key).is_string()) bad("\"" + std::string(key) + "\" must be a string");
  std::string s = j.at(key).get<std::string>();
  if (required && s.empty()) bad("\"" + std::string(key) + "\" must not be empty");
  return s;
}

Page read_page(std::istream& in) {
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  Json j = Json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) bad("not one JSON object (scripts/ncu_summary.py --db writes it)");
  for (auto it = j.begin(); it != j.end(); ++it) {
    static const std::vector<std::string> known = {"kernel", "tool", "tool_version", "profiled_at", "metrics", "units"};
    if (std::find(known.begin(), known.end(), it.key()) == known.end()) bad("unknown field \"" + it.key() + "\"");
  }
  Page p;
  p.kernel = text_field(j, "kernel", true);
  p.tool = text_field(j, "tool", true);
  p.tool_version = text_field(j, "tool_version", false);
  if (j.contains("profiled_at")) {
    std::string at = text_field(j, "profiled_at", true);
    static const std::regex utc(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z)");
    if (!std::regex_match(at, utc))
      bad("\"profiled_at\" '" + at + "' is not a UTC time like 2026-11-30T13:10:40Z");
    p.profiled_at = at;
  }
  if (!j.contains("metrics") || !j.at("metrics").is_object() || j.at("metrics").empty())
    bad("\"metrics\" must be a JSON object of metric name -> number or text, with at least one metric");
  p.metrics = j.at("metrics");
  for (auto it = p.metrics.begin(); it != p.metrics.end(); ++it)
    if (!it.value().is_number() && !it.value().is_string())
      bad("metric \"" + it.key() + "\" must be a number or a text, not " + it.value().dump());
  p.units = j.value("units", Json::object());
  if (!p.units.is_object()) bad("\"units\" must be a JSON object of metric name -> unit");
  for (auto it = p.units.begin(); it != p.units.end(); ++it) {
    if (!it.value().is_string()) bad("the unit of \"" + it.key() + "\" must be a text");
    if (!p.metrics.contains(it.key())) bad("\"units\" names \"" + it.key() + "\", which is not among the metrics");
  }
  return p;
}

/// The figure in its column's unit, or nullopt when the page lacks every metric it is read from.
std::optional<double> figure(const Page& p, const Figure& f) {
  for (const char* metric : f.metrics) {
    if (!p.metrics.contains(metric)) continue;
    const Json& v = p.metrics.at(metric);
    if (!v.is_number()) bad("metric \"" + std::string(metric) + "\" is " + v.dump() + ", not a number");
    const std::string unit = p.units.value(metric, "");
    std::string known;
    for (const Scale& s : f.units) {
      if (same_unit(unit, s.unit)) return v.get<double>() * s.factor;
      known += (known.empty() ? "" : ", ") + (s.unit.empty() ? std::string("none") : std::string(s.unit));
    }
    bad("metric \"" + std::string(metric) + "\"" + (unit.empty() ? " has no unit" : " is in '" + unit + "'") +
        ", which " + f.column + " cannot be read from (" + known + ")");
  }
  return std::nullopt;
}

std::string problem_text(const Problem& p) {
  return shape_string(p) + " " + std::string(to_string(p.dtype)) + " " + std::string(to_string(p.epilogue));
}

std::string method_names() {
  std::string out;
  for (const db::MethodInfo& m : db::kMethods) out += (out.empty() ? "" : ", ") + std::string(m.name);
  return out;
}

/// The flags against the vocabulary and the page, before anything is opened.
void check_target(const ProfileTarget& t, const Page& page) {
  const db::MethodInfo* m = db::find_method(t.method);
  if (!m) throw ProfileInputError("--method '" + t.method + "' is not a method (" + method_names() + ")");
  if (m->origin == db::MethodOrigin::baseline && !t.config.empty())
    throw ProfileInputError("--method " + t.method + " is a library baseline, which has no config: drop --config");
  if (m->origin != db::MethodOrigin::baseline && t.config.empty())
    throw ProfileInputError("--method " + t.method + " runs a config: name it with --config");
  if (!t.source_hash.empty() && t.config.empty())
    throw ProfileInputError("--source-hash picks a config: it needs --config");
  // The sweep names each kernel after its config (kernels/core/family.hpp): another name means
  // ncu's -k filter caught another kernel.
  if (t.method == "coalesce" && page.kernel != t.config)
    throw ProfileInputError("the page's kernel is " + page.kernel + ", not the config's kernel " + t.config +
                            " (a coalesce kernel is named after its config)");
}

/// The config the flags name, which must have been measured for the problem; `where` names the
/// database in messages (`db` may be a private copy of it).
db::ConfigId find_config(const db::Database& db, const std::string& where, const ProfileTarget& t,
                         db::ProblemId problem) {
  auto rs = db.query(R"sql(
    SELECT id, source_hash FROM configs
    WHERE name = ?1 AND source_hash <> '' AND substr(source_hash, 1, length(?2)) = ?2 ORDER BY id)sql",
                     {t.config, t.source_hash});
  const std::string named = t.config + (t.source_hash.empty() ? "" : " with a source hash starting " + t.source_hash);
  if (rs.rows.empty()) throw ProfileRefused("no config " + named + " in " + where);
  if (rs.rows.size() > 1) {
    std::string hashes;
    for (const auto& row : rs.rows) hashes += (hashes.empty() ? "" : ", ") + db::as_text(row[1]).substr(0, 12);
    throw ProfileRefused("config " + named + " is stored with " + std::to_string(rs.rows.size()) +
                         " source hashes in " + where + " (" + hashes +
                         "): say which one was profiled with --source-hash");
  }
  const db::ConfigId id = db::as_int(rs.rows[0][0]);
  auto measured = db.query("SELECT EXISTS (SELECT 1 FROM measurements WHERE config_id = ?1 AND problem_id = ?2)",
                           {id, problem});
  if (db::as_int(measured.rows[0][0]) == 0)
    throw ProfileRefused("config " + named + " has no measurement of " + problem_text(t.problem) + " in " + where +
                         ": a profile goes beside the rows it explains");
  return id;
}

/// Fills `row`'s device, problem and config from the database; throws ProfileRefused when it
/// lacks one of them or the page's GPU is another.
void check_against(const db::Database& db, const fs::path& db_path, const ProfileTarget& t, const Page& page,
                   db::ProfileRow& row) {
  const std::string where = db_path.string();
  const std::optional<db::DeviceId> device = db.find_device(t.device);
  if (!device)
    throw ProfileRefused("no device " + t.device + " in " + where + ": a profile belongs to a GPU the database holds");
  row.device = *device;
  if (page.metrics.contains(kDeviceNameMetric) && page.metrics.at(kDeviceNameMetric).is_string()) {
    const std::string seen = page.metrics.at(kDeviceNameMetric).get<std::string>();
    const std::string stored =
        db::as_text(db.query("SELECT name FROM devices WHERE id = ?1", {*device}).rows.at(0).at(0));
    if (seen != stored)
      throw ProfileRefused("the page's GPU is " + seen + ", and " + t.device + " in " + where + " is " + stored);
  }
  const Problem& p = t.problem;
  auto problem = db.query("SELECT id FROM problems WHERE m = ?1 AND n = ?2 AND k = ?3 AND dtype = ?4 AND epilogue = ?5",
                          {std::int64_t{p.m}, std::int64_t{p.n}, std::int64_t{p.k}, std::string(to_string(p.dtype)),
                           std::string(to_string(p.epilogue))});
  if (problem.rows.empty())
    throw ProfileRefused("no problem " + problem_text(p) + " in " + where +
                         ": a profile goes beside the rows it explains");
  row.problem = db::as_int(problem.rows[0][0]);
  if (!t.config.empty()) row.config = find_config(db, where, t, row.problem);
}

/// The id of the profile stored under `row`'s key with the same figures, if any; throws
/// ProfileRefused when one is stored there with other figures.
std::optional<std::int64_t> stored_already(const db::Database& db, const fs::path& db_path, const db::ProfileRow& row,
                                           const std::string& what) {
  auto stored = db.query(R"sql(
    SELECT id, tool IS ?6 AND tool_version IS ?7 AND profiled_at IS ?8 AND json(metrics_json) = json(?9)
               AND json(units_json) = json(?10)
    FROM profiles
    WHERE device_id = ?1 AND problem_id = ?2 AND method = ?3 AND config_id IS ?4 AND kernel = ?5)sql",
                         {row.device, row.problem, row.method,
                          row.config ? db::Value(*row.config) : db::Value(), row.kernel, row.tool, row.tool_version,
                          row.profiled_at ? db::Value(*row.profiled_at) : db::Value(), row.metrics_json,
                          row.units_json});
  if (stored.rows.empty()) return std::nullopt;
  const std::int64_t id = db::as_int(stored.rows[0][0]);
  if (db::as_int(stored.rows[0][1]) == 0)
    throw ProfileRefused("a profile of " + what + " is stored in " + db_path.string() + " already (profile " +
                         std::to_string(id) + ") with other figures: not stored");
  return id;
}

}  // namespace

int record_profile(const fs::path& db_path, const ProfileTarget& t, std::istream& in, std::ostream& out) {
  const Page page = read_page(in);
  check_target(t, page);
  db::ProfileRow row;
  row.method = t.method;
  row.kernel = page.kernel;
  row.tool = page.tool;
  row.tool_version = page.tool_version;
  row.profiled_at = page.profiled_at;
  row.duration_us = figure(page, kDuration);
  row.sm_clock_mhz = figure(page, kSmClock);
  row.tensor_pipe_active_pct = figure(page, kTensorPipe);
  row.achieved_occupancy_pct = figure(page, kOccupancy);
  if (auto registers = figure(page, kRegisters)) {
    if (*registers != std::floor(*registers) || *registers < 1 || *registers > 65536)
      bad("metric \"launch__registers_per_thread\" is " + std::to_string(*registers) + ", not a register count");
    row.registers = static_cast<int>(*registers);
  }
  row.metrics_json = page.metrics.dump();
  row.units_json = page.units.dump();

  // A store never creates a database: the file must hold the device, problem and config. Every
  // check runs on a read-only connection first, so a refusal leaves every byte of the file as it
  // was (a connection opened for writing rewrites its header, and one of an older schema migrates
  // the file: issue 45). A database of an older schema is checked through a migrated private
  // copy; only a profile that will be stored migrates the file itself.
  const bool current = db::schema_version_of(db_path) == db::latest_schema_version();
  const std::string what = page.kernel + " (" + t.method + ") of " + problem_text(t.problem) + " on " + t.device;
  {
    std::optional<db::MigratedCopy> copy;
    if (!current) copy.emplace(db_path);
    const auto reader = db::Database::open(copy ? copy->path() : db_path, db::Mode::read_only);
    check_against(reader, db_path, t, page, row);
    if (std::optional<std::int64_t> id = stored_already(reader, db_path, row, what)) {
      out << "already stored: profile " << *id << " in " << db_path.string() << ": " << what << '\n';
      return 0;
    }
  }
  auto db = db::Database::open(db_path, db::Mode::read_write);
  check_against(db, db_path, t, page, row);
  if (std::optional<db::ProfileId> id = db.insert_profile(row)) {
    out << "stored profile " << *id << " in " << db_path.string() << ": " << what << '\n';
    return 0;
  }
  // Stored between the two connections.
  const std::int64_t id = stored_already(db, db_path, row, what).value();
  out << "already stored: profile " << id << " in " << db_path.string() << ": " << what << '\n';
  return 0;
}

}  // namespace coalesce::tuner
