// `coalesce-report export` (export.hpp).
#include "export.hpp"

#include "by_model.hpp"
#include "coalesce/version.h"

namespace coalesce::report {

std::vector<tuning::Entry> tuning_entries(const db::Database& db, const Filters& f) {
  const std::vector<GpuModel> models = gpu_models(db, f);
  const std::vector<ModelEntry> entries = model_entries(db, f, models);
  std::vector<tuning::Entry> out;
  for (const ModelEntry* e : answer_entries(entries)) {
    const GpuModel& model = models[e->model];
    tuning::Entry t;
    t.gpu_model = model.name;
    t.arch = model.arch;
    t.sm_count = model.sm_count;
    t.max_sm_clock_mhz = model.max_sm_clock_mhz;
    t.dtype = e->dtype;
    t.epilogue = e->epilogue;
    t.m = e->m;
    t.n = e->n;
    t.k = e->k;
    t.config_name = e->config;
    t.family = e->family;
    t.median_us = e->median_ms * 1000.0;
    t.protocol = e->protocol;
    t.run = e->run;
    out.push_back(std::move(t));
  }
  return out;
}

std::string export_tuning_table(const db::Database& db, const Filters& f, const std::string& database) {
  return tuning::write_table(tuning_entries(db, f),
                             {"from " + database + " (filters: " + f.describe() + ")",
                              std::string("coalesce-report ") + COALESCE_VERSION + " (git " + COALESCE_GIT_REVISION +
                                  "); the format: docs/pytorch.md"});
}

}  // namespace coalesce::report
