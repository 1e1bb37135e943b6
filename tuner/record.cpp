// The recorder behind `coalesce-tune record` (see record.hpp). Each line is checked in full
// before anything of it is written; docs/tuner.md documents the format field by field.
#include "record.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <istream>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "harness/check.hpp"
#include "harness/stats.hpp"
#include "harness/timing.hpp"
#include "kernels/core/epilogues.hpp"
#include "kernels/core/problem.hpp"
#include "schema/db.hpp"
#include "schema/vocabulary.hpp"

namespace coalesce::tuner {

namespace {

namespace fs = std::filesystem;
// Ordered, so that params_json and harness_json keep the peer's key order.
using Json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

/// The lower-case identifiers the schema accepts for vocabulary columns ([a-z][a-z0-9_]*).
bool is_identifier(const std::string& s) {
  if (s.empty() || s[0] < 'a' || s[0] > 'z') return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; });
}

/// The peer methods, for messages: "torch_eager, torch_compile, triton".
std::string peer_methods() {
  std::string out;
  for (const db::MethodInfo& m : db::kMethods)
    if (m.origin == db::MethodOrigin::peer) out += (out.empty() ? "" : ", ") + std::string(m.name);
  return out;
}

/// One JSON object of the feed with its line number: typed access to its fields, every refusal
/// a FeedError naming the line and the field ("problem.m").
class Fields {
 public:
  Fields(long line, const Json& object, std::string prefix = "")
      : line_(line), j_(object), prefix_(std::move(prefix)) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw FeedError("line " + std::to_string(line_) + ": " + what);
  }
  std::string name(const std::string& key) const { return "\"" + prefix_ + key + "\""; }
  bool has(const char* key) const { return j_.contains(key); }

  /// Refuses any field not in `known`: a misspelt optional field would otherwise vanish.
  void only(std::initializer_list<std::string> known, const std::string& what) const {
    for (auto it = j_.begin(); it != j_.end(); ++it)
      if (std::find(known.begin(), known.end(), it.key()) == known.end())
        fail("unknown field " + name(it.key()) + " in " + what);
  }

  const Json& at(const char* key) const {
    if (!has(key)) fail(name(key) + " is missing");
    return j_.at(key);
  }
  /// A required string; `nonempty` refuses "".
  std::string text(const char* key, bool nonempty = true) const {
    const Json& v = at(key);
    if (!v.is_string()) fail(name(key) + " must be a string");
    std::string s = v.get<std::string>();
    if (nonempty && s.empty()) fail(name(key) + " must not be empty");
    return s;
  }
  std::string text_or(const char* key, std::string fallback) const {
    return has(key) ? text(key, false) : std::move(fallback);
  }
  std::string identifier(const char* key) const {
    std::string s = text(key);
    if (!is_identifier(s))
      fail(name(key) + " '" + s + "' is not a lower-case identifier ([a-z][a-z0-9_]*)");
    return s;
  }
  /// A required integer in [min, max].
  long long integer(const char* key, long long min, long long max = INT_MAX) const {
    const Json& v = at(key);
    bool fits = v.is_number_integer() && !(v.is_number_unsigned() && v.get<unsigned long long>() > LLONG_MAX);
    long long n = fits ? v.get<long long>() : 0;
    if (!fits || n < min || n > max) {
      std::string range = min == 1 && max >= INT_MAX   ? "a positive integer"
                          : min == 0 && max >= INT_MAX ? "a non-negative integer"
                                                       : "an integer from " + std::to_string(min) + " to " +
                                                             std::to_string(max);
      fail(name(key) + " must be " + range);
    }
    return n;
  }
  std::optional<long long> integer_or_none(const char* key, long long min, long long max = INT_MAX) const {
    if (!has(key)) return std::nullopt;
    return integer(key, min, max);
  }
  /// A required finite number, at least `min` (above it when `strict`).
  double number(const char* key, double min, bool strict = false) const {
    const Json& v = at(key);
    double x = v.is_number() ? v.get<double>() : NAN;
    if (!std::isfinite(x) || x < min || (strict && x == min))
      fail(name(key) + " must be a " + (strict ? "positive" : "non-negative") + " number");
    return x;
  }
  Fields object(const char* key) const {
    const Json& v = at(key);
    if (!v.is_object()) fail(name(key) + " must be a JSON object");
    return Fields(line_, v, prefix_ + key + ".");
  }
  const Json& json() const { return j_; }
  long line() const { return line_; }

 private:
  long line_;
  const Json& j_;
  std::string prefix_;
};

/// What identifies a peer's row: device × problem × method × config (name and source hash).
struct Key {
  Problem problem;
  std::string method, config, source_hash;
};

Problem read_problem(const Fields& line) {
  Fields p = line.object("problem");
  p.only({"m", "n", "k", "dtype", "epilogue"}, "the problem");
  Problem out;
  out.m = static_cast<int>(p.integer("m", 1));
  out.n = static_cast<int>(p.integer("n", 1));
  out.k = static_cast<int>(p.integer("k", 1));
  std::string dtype = p.text("dtype");
  auto d = parse_dtype(dtype);
  if (!d) p.fail(p.name("dtype") + " '" + dtype + "' is not a dtype");
  out.dtype = *d;
  std::string epilogue = p.text("epilogue");
  auto e = parse_epilogue(epilogue);
  if (!e) p.fail(p.name("epilogue") + " '" + epilogue + "' is not an epilogue (" + epilogue_names() + ")");
  out.epilogue = *e;
  return out;
}

Key read_key(const Fields& line) {
  Key k;
  k.problem = read_problem(line);
  k.method = line.text("method");
  const db::MethodInfo* m = db::find_method(k.method);
  if (!m) line.fail("\"method\" '" + k.method + "' is not a method (record takes " + peer_methods() + ")");
  if (m->origin != db::MethodOrigin::peer)
    line.fail("\"method\" '" + k.method + "' is measured by coalesce-tune sweep; record takes the peer methods (" +
              peer_methods() + ")");
  k.config = line.identifier("config");
  k.source_hash = line.text("source_hash");
  return k;
}

ErrorFigures read_figures(const Fields& line, const char* key, const Problem& p) {
  Fields e = line.object(key);
  e.only({"rel_frobenius", "max_abs_err", "max_abs_ref", "max_scaled_err", "non_finite", "count"}, "error figures");
  ErrorFigures f;
  f.rel_frobenius = e.number("rel_frobenius", 0);
  f.max_abs_err = e.number("max_abs_err", 0);
  f.max_abs_ref = e.number("max_abs_ref", 0);
  f.max_scaled_err = e.number("max_scaled_err", 0);
  f.count = e.integer("count", 0, LLONG_MAX);
  f.non_finite = e.integer("non_finite", 0, f.count);
  // C's elements: M·N, or M·N/2 where a gated epilogue writes one column per gate/up pair.
  const long long columns = output_columns(epilogue_spec(p.epilogue).reads, p.n);
  const long long outputs = static_cast<long long>(p.m) * columns;
  if (f.count != outputs)
    e.fail(e.name("count") + " is " + std::to_string(f.count) + ", not the number of C's elements, M·" +
           (columns == p.n ? "N" : "N/2") + " = " + std::to_string(outputs));
  return f;
}

std::vector<double> read_samples(const Fields& line) {
  const Json& v = line.at("samples_ms");
  if (!v.is_array()) line.fail("\"samples_ms\" must be an array of positive numbers (milliseconds)");
  std::vector<double> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    double x = v[i].is_number() ? v[i].get<double>() : NAN;
    if (!std::isfinite(x) || x <= 0)
      line.fail("\"samples_ms\" must hold positive numbers (milliseconds); element " + std::to_string(i) + " is " +
                v[i].dump());
    out.push_back(x);
  }
  return out;
}

/// "a; b" of the non-empty parts.
std::string joined(std::initializer_list<std::string> parts) {
  std::string out;
  for (const std::string& p : parts)
    if (!p.empty()) out += (out.empty() ? "" : "; ") + p;
  return out;
}

class Recorder {
 public:
  Recorder(fs::path path, std::ostream& out) : path_(std::move(path)), out_(out) {}

  bool started() const { return started_; }
  std::optional<db::RunId> run() const { return run_; }

  /// Handles one non-blank line; true when it was the `end` line.
  bool line(long number, const std::string& text) {
    Json j;
    try {
      j = Json::parse(text);
    } catch (const Json::parse_error& e) {
      throw FeedError("line " + std::to_string(number) + ": not valid JSON (at byte " + std::to_string(e.byte) + ")");
    }
    if (!j.is_object()) throw FeedError("line " + std::to_string(number) + ": not a JSON object");
    Fields f(number, j);
    const std::string kind = f.text("kind");
    if (!started_) {
      if (kind != "run")
        f.fail("the first line must be the run header (\"kind\": \"run\"), not a '" + kind + "' line");
      header(f);
      return false;
    }
    if (kind == "run") f.fail("a second run header: one feed records one run");
    if (kind == "measured") probe(f);
    else if (kind == "sample") sample(f);
    else if (kind == "measurement") measurement(f);
    else if (kind == "end") {
      end(f);
      return true;
    } else {
      f.fail("\"kind\" '" + kind + "' is not a line kind (run, measured, sample, measurement, end)");
    }
    return false;
  }

  /// Ends an opened run with `status` (a cut or refused feed); never throws.
  void abandon(db::RunStatus status) noexcept {
    if (!run_) return;
    try {
      db_->end_run(*run_, status);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "coalesce-tune: %s\n", e.what());
    }
  }

 private:
  void reply(Json j) { out_ << j.dump() << '\n' << std::flush; }

  // {"kind": "run", ...}: the run and device as the peer saw them. The database is opened by
  // the first line that reads or writes it, so a feed refused before that leaves the file as
  // it was, byte for byte.
  void header(const Fields& f) {
    f.only({"kind", "tool", "tool_version", "git_revision", "command_line", "host", "resume_key", "driver_version",
            "driver_release", "runtime_version", "toolkit", "device", "harness"},
           "the run header");
    info_.tool = f.text("tool");
    info_.tool_version = f.text("tool_version");
    info_.git_revision = f.text("git_revision");
    info_.command_line = f.text("command_line");
    info_.host = f.text("host", false);
    info_.resume_key = f.text("resume_key");
    info_.driver_version = static_cast<int>(f.integer_or_none("driver_version", 0).value_or(0));
    info_.driver_release = f.text_or("driver_release", "");
    info_.runtime_version = static_cast<int>(f.integer_or_none("runtime_version", 0).value_or(0));
    info_.toolkit = f.text_or("toolkit", "");
    device_row_ = read_device(f);
    info_.harness_json = read_harness(f);
    started_ = true;
    nlohmann::json settings = settings_;
    reply({{"line", f.line()}, {"kind", "run"}, {"harness", Json::parse(settings.dump())}});
  }

  /// The database, opened (under the writer lease) on first use, with the header's device.
  db::Database& database() {
    if (db_) return *db_;
    db_.emplace(db::Database::open(path_, db::Mode::read_write));
    // A device already stored (by coalesce-tune or an earlier feed) stays as stored: the
    // tools' own query of the GPU is the reference, and a peer's view must not overwrite it.
    device_ = db_->find_device(device_row_.uuid).value_or(0);
    if (!device_) device_ = db_->upsert_device(device_row_);
    info_.device = device_;
    return *db_;
  }

  db::DeviceRow read_device(const Fields& header) const {
    Fields d = header.object("device");
    d.only({"uuid", "name", "cc_major", "cc_minor", "sm_count", "l2_bytes", "global_mem_bytes", "max_sm_clock_mhz",
            "limits"},
           "the device");
    db::DeviceRow row;
    row.uuid = d.text("uuid");
    row.name = d.text("name");
    row.cc_major = static_cast<int>(d.integer("cc_major", 0));
    row.cc_minor = static_cast<int>(d.integer("cc_minor", 0));
    row.arch = "sm_" + std::to_string(row.cc_major * 10 + row.cc_minor);
    row.sm_count = static_cast<int>(d.integer("sm_count", 1));
    row.l2_bytes = d.integer("l2_bytes", 0, LLONG_MAX);
    row.global_mem_bytes = d.integer("global_mem_bytes", 0, LLONG_MAX);
    row.max_sm_clock_mhz = static_cast<int>(d.integer_or_none("max_sm_clock_mhz", 0).value_or(0));
    row.fp32_lanes_per_sm = db::fp32_lanes_per_sm(row.cc_major, row.cc_minor);
    Fields l = d.object("limits");
    l.only({"smem_per_block_optin", "smem_per_sm", "max_threads_per_block", "max_threads_per_sm", "regs_per_sm",
            "max_regs_per_thread", "max_blocks_per_sm"},
           "the device limits");
    DeviceLimits& lim = row.limits;
    lim.smem_per_block_optin = static_cast<int>(l.integer("smem_per_block_optin", 1));
    lim.smem_per_sm = static_cast<int>(l.integer("smem_per_sm", 1));
    lim.max_threads_per_block = static_cast<int>(l.integer("max_threads_per_block", 1));
    lim.max_threads_per_sm = static_cast<int>(l.integer("max_threads_per_sm", 1));
    lim.regs_per_sm = static_cast<int>(l.integer("regs_per_sm", 1));
    lim.max_regs_per_thread = static_cast<int>(l.integer("max_regs_per_thread", 1));
    lim.max_blocks_per_sm = static_cast<int>(l.integer("max_blocks_per_sm", 1));
    return row;
  }

  // The harness settings: TimingSettings' fields (absent ones keep the C++ defaults) decide the
  // stopping rule of `sample` lines and the fewest samples a row may have; the stored object
  // is the complete settings plus whatever else the peer reports (library versions, ...).
  std::string read_harness(const Fields& header) {
    Json given = Json::object();
    if (header.has("harness")) given = header.object("harness").json();
    try {
      nlohmann::json::parse(given.dump()).get_to(settings_);
    } catch (const nlohmann::json::exception&) {
      const nlohmann::json defaults = TimingSettings{};
      std::string keys;
      for (const auto& [key, value] : defaults.items()) keys += (keys.empty() ? "" : ", ") + key;
      header.fail("\"harness\" holds a timing setting that is not a number (" + keys + ")");
    }
    const TimingSettings& s = settings_;
    if (s.min_samples < 1 || s.max_samples < s.min_samples || !(s.max_rel_std_error > 0) || !(s.budget_ms >= 0) ||
        !(s.l2_flush_factor > 0) || !(s.first_warmup_ms >= 0) || !(s.warmup_ms >= 0))
      header.fail(
          "\"harness\" settings are out of range: min_samples >= 1, max_samples >= min_samples, "
          "max_rel_std_error > 0, l2_flush_factor > 0, budget and warm-up times >= 0");
    Json stored = Json::parse(nlohmann::json(settings_).dump());
    for (auto it = given.begin(); it != given.end(); ++it)
      if (!stored.contains(it.key())) stored[it.key()] = it.value();
    return stored.dump();
  }

  /// The run and status of the stored row of `k` on this device in this run's timing protocol
  /// (protocol_of its harness settings), if any.
  std::optional<std::pair<db::RunId, std::string>> stored(const Key& k) {
    db::Database& db = database();  // first: it looks the device up
    db::ResultSet rs = db.query(R"sql(
      SELECT run_id, status FROM v_measurements
      WHERE device_id = ?1 AND m = ?2 AND n = ?3 AND k = ?4 AND dtype = ?5 AND epilogue = ?6
        AND method = ?7 AND config_name = ?8 AND source_hash = ?9 AND protocol = ?10)sql",
                                  {db::Value(device_), db::Value(std::int64_t{k.problem.m}),
                                   db::Value(std::int64_t{k.problem.n}), db::Value(std::int64_t{k.problem.k}),
                                   db::Value(std::string(to_string(k.problem.dtype))),
                                   db::Value(std::string(to_string(k.problem.epilogue))), db::Value(k.method),
                                   db::Value(k.config), db::Value(k.source_hash),
                                   db::Value(protocol_of(settings_))});
    if (rs.rows.empty()) return std::nullopt;
    return std::make_pair(db::as_int(rs.rows[0][0]), db::as_text(rs.rows[0][1]));
  }

  // {"kind": "measured", ...}: whether a row of this key is stored, so a peer skips it.
  void probe(const Fields& f) {
    f.only({"kind", "problem", "method", "config", "source_hash"}, "a measured line");
    const Key k = read_key(f);
    Json r = {{"line", f.line()}, {"kind", "measured"}};
    if (auto s = stored(k)) {
      r["measured"] = true;
      r["run"] = s->first;
      r["status"] = s->second;
    } else {
      r["measured"] = false;
    }
    reply(std::move(r));
  }

  // {"kind": "sample", "ms": x}: one sample of the measurement in progress; the answer is the
  // harness' stopping rule over its samples so far.
  void sample(const Fields& f) {
    f.only({"kind", "ms"}, "a sample line");
    const double ms = f.number("ms", 0, true);
    if (pending_.empty()) sampling_since_ = Clock::now();
    pending_.push_back(ms);
    const double elapsed_ms = std::chrono::duration<double, std::milli>(Clock::now() - sampling_since_).count();
    const StoppingRule rule{settings_.min_samples, settings_.max_samples, settings_.max_rel_std_error,
                            settings_.budget_ms};
    stop_ = should_stop(rule, summarize(pending_), elapsed_ms);
    reply({{"line", f.line()},
           {"kind", "sample"},
           {"samples", pending_.size()},
           {"stop", stop_ ? Json(std::string(to_string(*stop_))) : Json()}});
  }

  // {"kind": "measurement", ...}: one row, judged, summarized and stored.
  void measurement(const Fields& f) {
    f.only({"kind", "problem", "method", "family", "config", "params", "source_hash", "status", "message",
            "samples_ms", "errors", "errors_after", "reference", "roundings", "sm_clock_before_mhz",
            "sm_clock_after_mhz", "grid_blocks"},
           "a measurement line");
    const Key k = read_key(f);
    db::ConfigRow config{f.identifier("family"), k.config, "{}", k.source_hash};
    if (f.has("params")) config.params_json = f.object("params").json().dump();

    // The samples are those of the line or those fed by `sample` lines since the last
    // measurement, never both; either way the measurement in progress ends here.
    std::vector<double> samples = std::exchange(pending_, {});
    const std::optional<StopReason> stop = std::exchange(stop_, std::nullopt);
    const bool fed = !samples.empty();
    if (f.has("samples_ms")) {
      if (fed)
        f.fail("samples given twice: \"samples_ms\" and " + std::to_string(samples.size()) +
               " sample lines before it");
      samples = read_samples(f);
    }

    db::MeasurementRow row;
    row.method = k.method;
    const std::string note = f.text_or("message", "");
    if (f.has("status")) {
      const std::string status = f.text("status");
      auto s = db::parse_status(status);
      if (!s || (*s != db::Status::compile_failed && *s != db::Status::launch_failed && *s != db::Status::timeout))
        f.fail("\"status\" '" + status +
               "' is not one a peer reports (compile_failed, launch_failed, timeout; ok and wrong_result "
               "are the judge's)");
      for (const char* measured : {"samples_ms", "errors", "errors_after", "reference"})
        if (f.has(measured)) f.fail("a " + status + " line carries no \"" + measured + "\"");
      if (note.empty()) f.fail("a " + status + " line needs a \"message\" saying what failed");
      row.status = *s;
      row.message = note;
    } else {
      judge_and_time(f, k.problem, samples, fed, stop, note, row);
    }
    row.sm_clock_before_mhz = f.integer_or_none("sm_clock_before_mhz", 1);
    row.sm_clock_after_mhz = f.integer_or_none("sm_clock_after_mhz", 1);
    row.grid_blocks = f.integer_or_none("grid_blocks", 1, LLONG_MAX);

    Json r = {{"line", f.line()}, {"kind", "measurement"}};
    if (auto s = stored(k)) {
      r["stored"] = false;
      r["run"] = s->first;
      r["status"] = s->second;
      reply(std::move(r));
      return;
    }
    std::optional<db::MeasurementId> id;
    row.device = device_;
    try {
      row.run = open_run();
      db_->in_transaction([&] {
        row.problem = db_->upsert_problem(k.problem);
        row.config = db_->upsert_config(config);
        id = db_->insert_measurement(row);
      });
    } catch (const db::Error& e) {
      throw db::Error("line " + std::to_string(f.line()) + ": " + e.what());
    }
    if (id) ++stored_;
    r["stored"] = id.has_value();
    r["run"] = row.run;
    r["status"] = std::string(to_string(row.status));
    if (row.timing) {
      r["median_ms"] = row.timing->median_ms;
      r["samples"] = row.timing->samples;
      r["tflops"] = k.problem.flops() / (row.timing->median_ms * 1e9);
    }
    r["message"] = row.message;
    reply(std::move(r));
  }

  // The verdict on the error figures (harness/check.hpp with the dtype's tolerance), then the
  // statistics of the samples of a right result (harness/stats.hpp). A wrong result keeps its
  // figures and drops its samples: it is never a timing.
  void judge_and_time(const Fields& f, const Problem& p, const std::vector<double>& samples, bool fed,
                      std::optional<StopReason> stop, const std::string& note, db::MeasurementRow& row) const {
    const std::string reference = f.text_or("reference", "erf");
    if (reference != "erf" && reference != "tanh")
      f.fail("\"reference\" '" + reference + "' is not a GELU form (erf, tanh)");
    if (reference == "tanh" && epilogue_spec(p.epilogue).activation != Activation::gelu_erf)
      f.fail("\"reference\" tanh applies to the bias_gelu epilogue only");
    const std::string against = reference == "tanh" ? "checked against the tanh GELU" : "";
    const int roundings = static_cast<int>(f.has("roundings") ? f.integer("roundings", 1, 8) : 1);
    const Tolerance tolerance = tolerance_for(p, roundings);

    const ErrorFigures before = read_figures(f, "errors", p);
    const std::optional<ErrorFigures> after =
        f.has("errors_after") ? std::optional(read_figures(f, "errors_after", p)) : std::nullopt;
    CheckResult check = judge(before, tolerance);
    std::string why = check.why;
    if (check.passed && after) {
      check = judge(*after, tolerance);
      if (!check.passed) why = "wrong after repeated runs (a race?): " + check.why;
    }
    row.rel_err = check.errors.rel_frobenius;
    row.max_abs_err = check.errors.max_abs_err;
    row.max_scaled_err = check.errors.max_scaled_err;
    if (!check.passed) {
      row.status = db::Status::wrong_result;
      row.message = joined({why, against, note});
      return;
    }
    if (samples.empty())
      f.fail("a result that passed its check needs its samples: \"samples_ms\" or sample lines before it");
    if (static_cast<int>(samples.size()) < settings_.min_samples)
      f.fail(std::to_string(samples.size()) + (samples.size() == 1 ? " sample" : " samples") +
             ", fewer than the harness' min_samples (" +
             std::to_string(settings_.min_samples) + ")");
    if (fed && !stop)
      f.fail("the sampling had not stopped: the last sample line was answered \"stop\": null");
    const SampleStats s = summarize(samples);
    row.status = db::Status::ok;
    row.timing = db::Timing{s.median, s.min, s.max, s.p10, s.p90, s.count};
    row.message = joined({note, against, stop ? "stop: " + std::string(to_string(*stop)) : ""});
  }

  // {"kind": "end", "status": ...}: the run's final status.
  void end(const Fields& f) {
    f.only({"kind", "status"}, "an end line");
    const std::string status = f.text("status");
    db::RunStatus s;
    if (status == "completed") s = db::RunStatus::completed;
    else if (status == "interrupted") s = db::RunStatus::interrupted;
    else if (status == "failed") s = db::RunStatus::failed;
    else f.fail("\"status\" '" + status + "' is not how a run ends (completed, interrupted, failed)");
    if (run_) db_->end_run(*run_, s);
    reply({{"line", f.line()}, {"kind", "end"}, {"run", run_ ? Json(*run_) : Json()}, {"stored", stored_}});
  }

  /// The run, opened when the first row is about to be stored (a feed that finds everything
  /// stored leaves no empty run): the unfinished run of the same resume key, or a new one.
  db::RunId open_run() {
    if (run_) return *run_;
    db::Database& db = database();  // first: it looks the device up
    if (auto unfinished = db.find_unfinished_run(info_.resume_key, device_)) {
      db.resume_run(*unfinished);
      run_ = *unfinished;
    } else {
      run_ = db.begin_run(info_);
    }
    return *run_;
  }

  fs::path path_;
  std::ostream& out_;
  bool started_ = false;  // the header was read
  std::optional<db::Database> db_;
  db::DeviceRow device_row_;
  db::RunInfo info_;
  TimingSettings settings_;
  db::DeviceId device_ = 0;
  std::optional<db::RunId> run_;
  int stored_ = 0;
  std::vector<double> pending_;  // samples fed for the measurement in progress
  std::optional<StopReason> stop_;
  Clock::time_point sampling_since_;
};

}  // namespace

int run_record(const fs::path& db_path, std::istream& in, std::ostream& out) {
  Recorder recorder(db_path, out);
  std::string text;
  long number = 0;
  bool ended = false;
  try {
    while (std::getline(in, text)) {
      ++number;
      if (!text.empty() && text.back() == '\r') text.pop_back();
      if (text.find_first_not_of(" \t") == std::string::npos) continue;
      if (ended) throw FeedError("line " + std::to_string(number) + ": nothing may follow the end line");
      ended = recorder.line(number, text);
    }
    if (!recorder.started()) throw FeedError("line 1: the feed is empty: its first line must be the run header");
  } catch (...) {
    recorder.abandon(db::RunStatus::failed);
    throw;
  }
  if (ended) return 0;
  recorder.abandon(db::RunStatus::interrupted);
  if (auto run = recorder.run())
    std::fprintf(stderr,
                 "coalesce-tune: the feed ended without an end line: run %lld is left interrupted (the same "
                 "feed resumes it)\n",
                 static_cast<long long>(*run));
  else
    std::fprintf(stderr, "coalesce-tune: the feed ended without an end line; nothing was stored\n");
  return 1;
}

}  // namespace coalesce::tuner
