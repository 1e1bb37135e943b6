// Stored sweeps and training rows (history.hpp).
#include "history.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace coalesce::tuner {

std::string StoredSweep::key() const {
  return "run " + std::to_string(run) + " " + std::to_string(problem.m) + "x" + std::to_string(problem.n) + "x" +
         std::to_string(problem.k) + " " + std::string(to_string(problem.dtype)) + " " +
         std::string(to_string(problem.epilogue)) + " " + family;
}

std::optional<double> StoredSweep::best_ms() const {
  std::optional<double> best;
  for (const StoredConfig& c : configs)
    if (c.median_ms && (!best || *c.median_ms < *best)) best = c.median_ms;
  return best;
}

std::vector<StoredSweep> stored_sweeps(const db::Database& db) {
  // Legal candidates: every row but those pruned before compiling (a pruned row with a build was
  // compiled, then refused by ptxas' figures: the sweep spent a compile on it).
  const db::ResultSet rs = db.query(
      "SELECT m.run_id, m.device_id, p.m, p.n, p.k, p.dtype, p.epilogue, c.family, c.name, m.status, m.median_ms, "
      "m.protocol, d.sm_count, r.status, r.resume_key "
      "FROM measurements m JOIN configs c ON c.id = m.config_id JOIN problems p ON p.id = m.problem_id "
      "JOIN devices d ON d.id = m.device_id JOIN runs r ON r.id = m.run_id "
      "WHERE m.method = 'coalesce' AND (m.status <> 'pruned' OR m.build_id IS NOT NULL) "
      "ORDER BY m.run_id, m.problem_id, c.family, m.protocol, m.id");
  std::vector<StoredSweep> sweeps;
  std::vector<bool> run_exhaustive;
  for (const auto& row : rs.rows) {
    const long long run = db::as_int(row[0]), device = db::as_int(row[1]);
    Problem problem;
    problem.m = static_cast<int>(db::as_int(row[2]));
    problem.n = static_cast<int>(db::as_int(row[3]));
    problem.k = static_cast<int>(db::as_int(row[4]));
    const auto dtype = parse_dtype(db::as_text(row[5]));
    const auto epilogue = parse_epilogue(db::as_text(row[6]));
    if (!dtype || !epilogue) continue;
    problem.dtype = *dtype;
    problem.epilogue = *epilogue;
    const std::string family = db::as_text(row[7]), protocol = db::as_text(row[11]);
    if (sweeps.empty() || sweeps.back().run != run || sweeps.back().family != family ||
        sweeps.back().protocol != protocol || !(sweeps.back().problem == problem)) {
      StoredSweep s;
      s.run = run;
      s.device = device;
      s.problem = problem;
      s.family = family;
      s.protocol = protocol;
      s.sm_count = static_cast<int>(db::as_int(row[12]));
      const std::string key = db::as_text(row[14]);
      s.exhaustive = db::as_text(row[13]) == "completed" && key.find(";strategy=exhaustive") != std::string::npos &&
                     key.find(";config=") == std::string::npos && key.find(";time_budget=") == std::string::npos;
      sweeps.push_back(std::move(s));
    }
    StoredSweep& s = sweeps.back();
    StoredConfig c;
    c.name = db::as_text(row[8]);
    if (auto named = parse_config_name(c.name)) c.config = named->config;
    else s.unparsed = true;
    if (db::as_text(row[9]) == "ok") c.median_ms = db::as_double(row[10]);
    s.configs.push_back(std::move(c));
  }
  // A run that resumed past configs an earlier run measured holds only part of its space.
  std::map<std::tuple<long long, std::string, std::string, std::string>, long long> first_run;
  for (const StoredSweep& s : sweeps) {
    const auto k = std::make_tuple(s.device, s.key().substr(s.key().find(' ', 4)), s.family, s.protocol);
    auto [it, fresh] = first_run.emplace(k, s.run);
    if (!fresh) it->second = std::min(it->second, s.run);
  }
  for (StoredSweep& s : sweeps) {
    const auto k = std::make_tuple(s.device, s.key().substr(s.key().find(' ', 4)), s.family, s.protocol);
    std::size_t ok = 0;
    for (const StoredConfig& c : s.configs) ok += c.median_ms.has_value();
    s.exhaustive = s.exhaustive && ok >= kMinTrainingConfigs && first_run[k] == s.run;
  }
  return sweeps;
}

std::vector<TrainingRow> training_rows(const db::Database& db, std::string_view family) {
  return training_rows(stored_sweeps(db), family, [](const StoredSweep&) { return false; });
}

}  // namespace coalesce::tuner
