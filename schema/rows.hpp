// Rows of the results database built from the project's own types: the harness' DeviceInfo and
// a simt config. Header-only, so coalesce_db does not depend on the CUDA harness.
#pragma once

#include <cstdio>
#include <string>

#include "harness/device.hpp"
#include "kernels/names.hpp"
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

/// A simt config's parameters as the JSON object stored in `configs.params_json`; the report
/// reads `$.bm` and `$.bn` from it for the tile landscape.
inline std::string simt_params_json(const SimtConfig& c) {
  char buf[220];
  std::snprintf(buf, sizeof buf,
                "{\"bm\":%d,\"bn\":%d,\"bk\":%d,\"wm\":%d,\"wn\":%d,\"tm\":%d,\"tn\":%d,"
                "\"stages\":%d,\"vec\":%d,\"group_m\":%d,\"min_blocks\":%d}",
                c.bm, c.bn, c.bk, c.wm, c.wn, c.tm, c.tn, c.stages, c.vec, c.group_m, c.min_blocks);
  return buf;
}

/// The `configs` row of a simt config for a problem's dtype and epilogue.
inline ConfigRow simt_config_row(const SimtConfig& c, Dtype dtype, Epilogue epilogue,
                                 std::string source_hash) {
  return {"simt", config_name(c, dtype, epilogue), simt_params_json(c), std::move(source_hash)};
}

}  // namespace coalesce::db
