// Stored sweeps and training rows (history.hpp).
#include "history.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
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

std::size_t StoredSweep::measured_ok() const {
  return static_cast<std::size_t>(
      std::count_if(configs.begin(), configs.end(), [](const StoredConfig& c) { return c.median_ms.has_value(); }));
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
    s.exhaustive = s.exhaustive && s.measured_ok() >= kMinTrainingConfigs && first_run[k] == s.run;
  }
  return sweeps;
}

std::size_t write_sweeps_file(const std::vector<StoredSweep>& sweeps, std::ostream& out) {
  out << kSweepsFileMagic << "\n"
      << "# The model-guided strategy's training sweeps (docs/tuner.md, \"Strategies\"), written by "
         "coalesce-tune history.\n"
      << "# sweep RUN DEVICE M N K DTYPE EPILOGUE FAMILY PROTOCOL SM_COUNT EXHAUSTIVE, then CONFIG MEDIAN_MS per "
         "config measured ok\n";
  std::size_t written = 0;
  for (const StoredSweep& s : sweeps) {
    if (!s.teaches()) continue;
    out << "sweep\t" << s.run << "\t" << s.device << "\t" << s.problem.m << "\t" << s.problem.n << "\t" << s.problem.k
        << "\t" << to_string(s.problem.dtype) << "\t" << to_string(s.problem.epilogue) << "\t" << s.family << "\t"
        << (s.protocol.empty() ? "-" : s.protocol) << "\t" << s.sm_count << "\t" << (s.exhaustive ? 1 : 0) << "\n";
    for (const StoredConfig& c : s.configs) {
      if (!c.median_ms) continue;
      char median[32];
      std::snprintf(median, sizeof median, "%.6g", *c.median_ms);
      out << c.name << "\t" << median << "\n";
    }
    ++written;
  }
  return written;
}

bool is_sweeps_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string first;
  return in && std::getline(in, first) && first == kSweepsFileMagic;
}

std::vector<StoredSweep> read_sweeps_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path.string() + ": cannot be read");
  std::vector<StoredSweep> sweeps;
  std::string line;
  long long number = 0;
  auto bad = [&](const std::string& why) {
    return std::runtime_error(path.string() + ":" + std::to_string(number) + ": " + why);
  };
  while (std::getline(in, line)) {
    ++number;
    if (number == 1) {
      if (line != kSweepsFileMagic) throw bad("not a stored-sweeps file (its first line is not '" +
                                              std::string(kSweepsFileMagic) + "')");
      continue;
    }
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    std::istringstream fields(line);
    for (std::string field; std::getline(fields, field, '\t');) f.push_back(field);
    if (f[0] == "sweep") {
      if (f.size() != 12) throw bad("a sweep line has 12 tab-separated fields, this one " + std::to_string(f.size()));
      StoredSweep s;
      try {
        s.run = std::stoll(f[1]);
        s.device = std::stoll(f[2]);
        s.problem.m = std::stoi(f[3]);
        s.problem.n = std::stoi(f[4]);
        s.problem.k = std::stoi(f[5]);
        s.sm_count = std::stoi(f[10]);
      } catch (const std::exception&) {
        throw bad("a sweep line's run, device, M, N, K and SM count are whole numbers");
      }
      const auto dtype = parse_dtype(f[6]);
      const auto epilogue = parse_epilogue(f[7]);
      if (!dtype || !epilogue) throw bad("'" + f[6] + " " + f[7] + "' is not a dtype and an epilogue");
      if (s.problem.m < 1 || s.problem.n < 1 || s.problem.k < 1 || s.sm_count < 1)
        throw bad("M, N, K and the SM count must be at least 1");
      s.problem.dtype = *dtype;
      s.problem.epilogue = *epilogue;
      s.family = f[8];
      s.protocol = f[9] == "-" ? "" : f[9];
      s.exhaustive = f[11] == "1";
      sweeps.push_back(std::move(s));
      continue;
    }
    if (sweeps.empty()) throw bad("a config line before the first sweep line");
    if (f.size() != 2) throw bad("a config line is NAME<TAB>MEDIAN_MS");
    StoredConfig c;
    c.name = f[0];
    char* end = nullptr;
    const double median = std::strtod(f[1].c_str(), &end);
    if (end == f[1].c_str() || *end != '\0' || !(median > 0) || !std::isfinite(median))
      throw bad("'" + f[1] + "' is not a median in ms (a number above 0)");
    c.median_ms = median;
    StoredSweep& s = sweeps.back();
    if (auto named = parse_config_name(c.name)) c.config = named->config;
    else s.unparsed = true;
    s.configs.push_back(std::move(c));
  }
  if (number == 0) throw std::runtime_error(path.string() + ": empty, not a stored-sweeps file");
  return sweeps;
}

std::vector<TrainingRow> training_rows(const db::Database& db, std::string_view family) {
  return training_rows(stored_sweeps(db), family, [](const StoredSweep&) { return false; });
}

}  // namespace coalesce::tuner
