// Rows of the results database built from the project's own types: the harness' DeviceInfo and
// a config of any family. Header-only, so coalesce_db does not depend on the CUDA harness.
#pragma once

#include <string>

#include "harness/device.hpp"
#include "kernels/core/family.hpp"
#include "schema/db.hpp"

namespace coalesce::db {

/// The `devices` row of a queried device.
inline DeviceRow device_row(const DeviceInfo& d) {
  DeviceRow row;
  row.uuid = d.uuid;
  row.name = d.name;
  row.arch = d.arch();
  row.cc_major = d.cc_major;
  row.cc_minor = d.cc_minor;
  row.sm_count = d.sm_count;
  row.l2_bytes = d.l2_bytes;
  row.global_mem_bytes = d.global_mem_bytes;
  row.max_sm_clock_mhz = d.max_sm_clock_mhz;
  row.fp32_lanes_per_sm = fp32_lanes_per_sm(d.cc_major, d.cc_minor);
  row.limits = d.limits;
  return row;
}

/// The `configs` row of a config for a problem's dtype and epilogue; the report reads `$.bm` and
/// `$.bn` from its params_json for the tile landscape (every family has them).
inline ConfigRow config_row(const Config& c, Dtype dtype, Epilogue epilogue, std::string source_hash) {
  return {c.family, config_name(c, dtype, epilogue), params_json(c), std::move(source_hash)};
}

}  // namespace coalesce::db
