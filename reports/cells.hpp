// The conversions every report table makes between the database's values and its cells: one
// copy for the history (report.cpp) and the report by model (by_model.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "schema/db.hpp"

namespace coalesce::report::cells {

/// A nullable REAL as an optional.
inline std::optional<double> opt_double(const db::Value& v) {
  if (db::is_null(v)) return std::nullopt;
  return db::as_double(v);
}
/// An optional as a cell: empty where it has no value.
inline db::Value value_of(const std::optional<double>& d) { return d ? db::Value(*d) : db::Value(); }
inline db::Value text(std::string s) { return db::Value(std::move(s)); }
inline db::Value integer(std::int64_t n) { return db::Value(n); }

}  // namespace coalesce::report::cells
