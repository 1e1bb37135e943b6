// Merging results databases by natural keys, so that the databases of Slurm array tasks (one
// per task) become one (`coalesce-report merge`, docs/reports.md). Rows are matched by what
// identifies them in any database (a device by its UUID, a problem by its shape and types, a
// measurement by the schema's uniqueness rules), never by id: an input's rows that the output
// lacks are copied with their ids remapped, rows the output holds with the same values are
// skipped, and a row whose key the output holds with other values is a conflict, reported and
// not taken.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "schema/db.hpp"

namespace coalesce::db {

/// What one table of an input brought into the output.
struct MergeCount {
  std::string table;           ///< e.g. "measurements"
  std::string noun;            ///< one row of it in a message, e.g. "measurement"
  std::int64_t added = 0;      ///< rows the output lacked, copied
  std::int64_t present = 0;    ///< rows the output holds with the same values
  std::int64_t conflicts = 0;  ///< rows whose key the output holds with other values: not taken
  std::int64_t left_out = 0;   ///< rows that refer to a row not taken (a conflicting run, ...)
  /// Of the present rows, those whose per-occurrence figures (a build's ptxas figures) differ
  /// from the output's: no conflict, the output keeps its own.
  std::int64_t kept_own = 0;
};

/// One column of a conflicting row: its value in the input and in the output.
struct MergeDifference {
  std::string column;
  std::string input_value, output_value;  ///< as SQL prints them; texts quoted, long ones cut
};

/// A row of an input whose natural key the output holds with other values.
struct MergeConflict {
  std::string table;  ///< e.g. "measurements"
  /// The natural key spelled out, e.g. "coalesce simt_... of 1024x1024x1024 f32 bias_gelu on GPU-...".
  std::string key;
  std::vector<MergeDifference> differences;  ///< every column that differs
  std::filesystem::path stored_from;  ///< where the output's row came from: an earlier input, or the output
};

/// What one input brought.
struct MergeResult {
  std::filesystem::path input;
  int schema_version = 0;          ///< the input's; an older one was read through a migrated copy
  std::vector<MergeCount> tables;  ///< every table, parents before the rows that refer to them
  std::vector<MergeConflict> conflicts;

  std::int64_t added() const;
  std::int64_t present() const;
};

/// A merge stopped by its caller's `stop` (Ctrl-C): nothing of its input is in the output.
class MergeInterrupted : public Error {
 public:
  using Error::Error;
};

/// Merges databases into `out` (open read-write), one input at a time, each in one transaction.
class Merger {
 public:
  /// Reads `out`'s schema and checks that every table of it has a natural key here (throws
  /// std::logic_error naming the table: a migration added a table this file does not know).
  explicit Merger(Database& out);
  Merger(const Merger&) = delete;
  Merger& operator=(const Merger&) = delete;
  ~Merger();

  /// Merges `input`: every row that can be taken, or nothing (the transaction is rolled back
  /// and Error thrown, naming the input). The input is only read, once, by SQLite's online
  /// backup into a private copy in the temporary directory; the merge reads the copy, migrated
  /// to the current schema first (which also marks a run left `running` as `interrupted`, as
  /// any writer's open would). Throws what schema_version_of() throws for a file that is not a
  /// Coalesce database or of a newer schema, before anything is written.
  ///
  /// `stop`, when given, is asked before the input is read and between tables: once it answers
  /// true, the transaction is rolled back and MergeInterrupted thrown, so `out` holds nothing of
  /// `input` (`coalesce-report merge` asks whether Ctrl-C was pressed).
  MergeResult merge(const std::filesystem::path& input, const std::function<bool()>& stop = {});

 private:
  struct Table;
  /// The ids one input added to a table (ids are handed out in order, so a range).
  struct Added {
    std::int64_t first = 0, last = 0;
    std::filesystem::path input;
  };

  // The steps of one table (merge.cpp says what each holds).
  void stage(const Table& table, const std::filesystem::path& input);
  void classify(const Table& table);
  std::int64_t insert_new(const Table& table);
  MergeCount outcomes(const Table& table) const;
  void add_conflicts(const Table& table, MergeResult& result) const;
  std::filesystem::path stored_from(const std::string& table, std::int64_t id) const;

  Database& out_;
  std::vector<Table> tables_;
  std::map<std::string, std::vector<Added>> added_;  // per table, the earlier inputs' rows
};

/// The progress line of one input, e.g. "1 device, 2 runs, 812 measurements new; 8 math peaks
/// already present; 0 conflicts".
std::string summary(const MergeResult& result);

/// One line naming a conflict: the table, the key, up to three differing columns with their
/// values in the input and in `out`, and which earlier input the stored row came from, e.g.
/// "b.db: conflict in runs, run started ... on h1 (GPU-...): git_revision 'b0' vs 'a1' (b.db vs
/// out.db, stored from a.db); not taken".
std::string describe(const MergeConflict& conflict, const MergeResult& result,
                     const std::filesystem::path& out);

}  // namespace coalesce::db
