// `coalesce-report export`: the tuning table (tuning_table.hpp) from the results database, the
// best checked config per GPU model, dtype, epilogue and shape (docs/pytorch.md, "The tuning table").
#pragma once

#include <string>
#include <vector>

#include "report.hpp"
#include "tuning_table.hpp"

namespace coalesce::report {

/// Per GPU model and problem within `f`, the report by model's pick (its answer: the fastest ok
/// `coalesce` row of the most preferred protocol measured, any family), in the report's order.
std::vector<tuning::Entry> tuning_entries(const db::Database& db, const Filters& f);

/// The table's text: tuning::write_table with the database, the filters and the tool's revision.
std::string export_tuning_table(const db::Database& db, const Filters& f, const std::string& database);

}  // namespace coalesce::report
