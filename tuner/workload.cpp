// Reading a workload file (see workload.hpp).
#include "tuner/workload.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string_view>

namespace coalesce {

namespace {

constexpr const char* kLineForm = "m,n,k,dtype,epilogue[,name][,count]";

std::string_view trimmed(std::string_view s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t");
  return s.substr(first, last - first + 1);
}

std::vector<std::string> fields_of(std::string_view line) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    out.emplace_back(trimmed(line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start)));
    if (comma == std::string_view::npos) return out;
    start = comma + 1;
  }
}

bool all_digits(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

template <class T>
std::string names_of(const std::vector<T>& values) {
  std::string out;
  for (const T& v : values) out += (out.empty() ? "" : ", ") + std::string(to_string(v));
  return out;
}

/// One line's reader: every refusal names the file and the line.
class LineReader {
 public:
  LineReader(const std::string& path, int line) : where_(path + ":" + std::to_string(line) + ": ") {}

  [[noreturn]] void fail(const std::string& what) const { throw WorkloadError(where_ + what); }

  /// A side of the problem, validated as a --shape's side is (parse_extents: 1 to kMaxExtent).
  int extent(const char* name, const std::string& text) const {
    const std::string expected =
        "expected a whole number from 1 to " + std::to_string(kMaxExtent) + ", as a --shape's side";
    if (text.empty()) fail(std::string(name) + " is empty: " + expected);
    std::optional<Problem> p;
    if (all_digits(text)) p = parse_extents(text);
    if (!p) fail(std::string(name) + " '" + text + "': " + expected);
    return p->m;
  }

  std::optional<Dtype> dtype(const std::string& text) const {
    if (text.empty()) return std::nullopt;
    if (auto d = parse_dtype(text)) return d;
    fail("dtype '" + text + "' is not a dtype (" + names_of(all_dtypes()) + "; empty: the tool's --dtype)");
  }

  std::optional<Epilogue> epilogue(const std::string& text) const {
    if (text.empty()) return std::nullopt;
    if (auto e = parse_epilogue(text)) return e;
    fail("epilogue '" + text + "' is not an epilogue (" + names_of(all_epilogues()) +
         "; empty: the tool's --epilogue)");
  }

  std::int64_t count(const std::string& text) const {
    if (text.empty()) return 1;
    std::int64_t v = 0;
    bool ok = all_digits(text);
    for (std::size_t i = 0; ok && i < text.size(); ++i) {
      v = v * 10 + (text[i] - '0');
      ok = v <= kMaxWorkloadCount;
    }
    if (!ok || v < 1)
      fail("count '" + text + "': expected a whole number from 1 to " + std::to_string(kMaxWorkloadCount) +
           " (how many times the workload runs the problem; empty: 1)");
    return v;
  }

 private:
  std::string where_;
};

}  // namespace

Problem WorkloadLine::problem(Dtype default_dtype, Epilogue default_epilogue) const {
  Problem p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.dtype = dtype.value_or(default_dtype);
  p.epilogue = epilogue.value_or(default_epilogue);
  return p;
}

std::vector<Problem> Workload::problems(Dtype default_dtype, Epilogue default_epilogue) const {
  std::vector<Problem> out;
  for (const WorkloadLine& l : lines) add_unique(out, l.problem(default_dtype, default_epilogue));
  return out;
}

void add_unique(std::vector<Problem>& problems, const Problem& p) {
  for (const Problem& q : problems)
    if (q == p) return;
  problems.push_back(p);
}

Workload parse_workload(std::istream& in, const std::string& path) {
  Workload w;
  w.path = path;
  const std::vector<std::string> header = fields_of(kWorkloadHeader);
  std::string text;
  bool first = true;
  for (int number = 1; std::getline(in, text); ++number) {
    std::string_view line = text;
    if (number == 1) {
      // Spreadsheets save "CSV UTF-8" with a byte-order mark: it is no part of the first field.
      // UTF-16 (Windows' "Unicode text") has a NUL in every other byte: say so, not "m '?m'".
      if (line.rfind("\xEF\xBB\xBF", 0) == 0) line.remove_prefix(3);
      else if (line.rfind("\xFF\xFE", 0) == 0 || line.rfind("\xFE\xFF", 0) == 0)
        throw WorkloadError(path + ": the file is UTF-16 text; save it as UTF-8 (or ASCII) CSV");
    }
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (const auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    if (trimmed(line).empty()) continue;
    const LineReader r(path, number);
    const std::vector<std::string> f = fields_of(line);
    if (f[0] == header[0]) {
      const bool is_header = first && f.size() >= 5 && f.size() <= header.size() &&
                             std::equal(f.begin(), f.end(), header.begin());
      if (!is_header)
        r.fail(first ? std::string("a header line reads ") + kWorkloadHeader + " (or its first five or six fields)"
                     : std::string("the header ") + kWorkloadHeader + " may only be the first line");
      first = false;
      continue;
    }
    first = false;
    if (f.size() < 5 || f.size() > 7)
      r.fail(std::string("expected ") + kLineForm + ", found " + std::to_string(f.size()) +
             (f.size() == 1 ? " field" : " fields"));
    WorkloadLine l;
    l.line = number;
    l.m = r.extent("m", f[0]);
    l.n = r.extent("n", f[1]);
    l.k = r.extent("k", f[2]);
    l.dtype = r.dtype(f[3]);
    l.epilogue = r.epilogue(f[4]);
    if (f.size() > 5) l.name = f[5];
    if (f.size() > 6) l.count = r.count(f[6]);
    w.lines.push_back(std::move(l));
  }
  if (in.bad()) throw WorkloadError(path + ": cannot read it");
  if (w.lines.empty())
    throw WorkloadError(path + ": no problem in it (each line " + kLineForm + "; '#' starts a comment)");
  return w;
}

Workload read_workload(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw WorkloadError(path + ": cannot read it (a directory)");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw WorkloadError(path + ": cannot read it (" + std::strerror(errno) + ")");
  return parse_workload(in, path);
}

}  // namespace coalesce
