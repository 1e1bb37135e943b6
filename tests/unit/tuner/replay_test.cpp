// `coalesce-tune replay` (tuner/replay.cpp, tuner/history.cpp) on a fixture database whose
// answers are known: which stored sweeps are exhaustive, and how many evaluations the exhaustive
// strategy needs to reach each sweep's best.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "kernels/mma/family.hpp"
#include "schema/db.hpp"
#include "schema/rows.hpp"
#include "tests/unit/schema/test_util.hpp"
#include "tuner/history.hpp"
#include "tuner/replay.hpp"

namespace coalesce::tuner {
namespace {

using db::testing::h200;
using db::testing::ok_row;
using db::testing::run_info;
using db::testing::TempDir;

const Problem k4096{4096, 4096, 4096, Dtype::bf16, Epilogue::bias_gelu};
const Problem k2048{2048, 2048, 2048, Dtype::bf16, Epilogue::bias_gelu};

std::vector<Config> mma_configs(const Problem& p, std::size_t n) {
  std::vector<Config> out;
  for (const Candidate& c : enumerate(mma_family(), p, Target{}).candidates)
    if (!c.pruned() && out.size() < n) out.push_back(c.config);
  return out;
}

std::string exhaustive_key(const Problem& p) {
  return "family=mma;problems=" + std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k) +
         ":bf16:bias_gelu,;strategy=exhaustive;git=0123456789ab";
}

/// Five runs of the mma family: two exhaustive sweeps (4096³ and 2048³, 40 configs measured ok
/// after one that failed to compile; the best, at half the others' time, is the 18th and 31st
/// config measured ok), and three that are not: a random sweep, an interrupted exhaustive one
/// and an exhaustive one with too few configs measured ok to say anything.
struct Fixture {
  TempDir dir;
  std::filesystem::path path = dir / "lab.db";
  Fixture() {
    auto db = db::Database::open(path, db::Mode::read_write);
    const db::DeviceId dev = db.upsert_device(h200());
    auto sweep = [&](const Problem& p, const std::string& key, std::size_t configs, std::size_t best,
                     db::RunStatus status) {
      const db::RunId run = db.begin_run(run_info(dev, key));
      const db::ProblemId prob = db.upsert_problem(p);
      const std::vector<Config> cs = mma_configs(p, configs + 1);
      db::MeasurementRow failed;
      failed.run = run;
      failed.device = dev;
      failed.problem = prob;
      failed.method = "coalesce";
      failed.config = db.upsert_config(db::config_row(cs[0], p.dtype, p.epilogue, "hash"));
      failed.status = db::Status::compile_failed;
      failed.message = "stand-in compile failure";
      db.insert_measurement(failed);
      for (std::size_t i = 0; i < configs; ++i) {
        const db::ConfigId c = db.upsert_config(db::config_row(cs[i + 1], p.dtype, p.epilogue, "hash"));
        db.insert_measurement(ok_row(run, dev, prob, "coalesce", c, i == best ? 0.5 : 1.0 + 0.01 * static_cast<double>(i)));
      }
      db.end_run(run, status);
    };
    sweep(k4096, exhaustive_key(k4096), 40, 17, db::RunStatus::completed);
    sweep(k2048, exhaustive_key(k2048), 40, 30, db::RunStatus::completed);
    const Problem k1024{1024, 1024, 1024, Dtype::bf16, Epilogue::bias_gelu};
    sweep(k1024, "family=mma;problems=1024x1024x1024:bf16:bias_gelu,;strategy=random;budget=20;seed=1;git=x", 20, 3,
          db::RunStatus::completed);
    const Problem k512{512, 512, 512, Dtype::bf16, Epilogue::bias_gelu};
    sweep(k512, exhaustive_key(k512), 30, 3, db::RunStatus::interrupted);
    const Problem k256{256, 256, 256, Dtype::bf16, Epilogue::bias_gelu};
    sweep(k256, exhaustive_key(k256), 5, 3, db::RunStatus::completed);
  }
};

TEST(StoredSweeps, ExhaustiveMeansCompletedWholeAndUnrestricted) {
  Fixture f;
  const std::vector<StoredSweep> sweeps = stored_sweeps(db::Database::open(f.path, db::Mode::read_only));
  ASSERT_EQ(sweeps.size(), 5u);
  std::vector<bool> exhaustive;
  for (const StoredSweep& s : sweeps) exhaustive.push_back(s.exhaustive);
  EXPECT_EQ(exhaustive, (std::vector<bool>{true, true, false, false, false}));
  EXPECT_EQ(sweeps[0].configs.size(), 41u);  // the compile failure is a legal candidate without a time
  EXPECT_FALSE(sweeps[0].configs[0].median_ms.has_value());
  EXPECT_EQ(sweeps[0].best_ms(), 0.5);
  EXPECT_EQ(sweeps[0].key(), "run 1 4096x4096x4096 bf16 bias_gelu mma");
}

TEST(StoredSweeps, TrainingRowsLeaveOutWhatTheyAreTold) {
  Fixture f;
  const std::vector<StoredSweep> sweeps = stored_sweeps(db::Database::open(f.path, db::Mode::read_only));
  // The random sweep teaches too (20 configs ok); the 5-config one does not; neither does the
  // sweep left out.
  const auto rows = training_rows(sweeps, "mma", [&](const StoredSweep& s) { return &s == &sweeps[0]; });
  std::size_t from_first = 0;
  for (const TrainingRow& r : rows) from_first += r.group == sweeps[0].key();
  EXPECT_EQ(from_first, 0u);
  EXPECT_EQ(rows.size(), 40u + 20u + 30u);  // 2048³, the random 1024³, the interrupted 512³
  EXPECT_TRUE(training_rows(sweeps, "wgmma", [](const StoredSweep&) { return false; }).empty());
}

// The stored-sweeps file (`coalesce-tune history`) carries the sweeps that teach the model, and
// its training rows are the database's.
TEST(SweepsFile, RoundTripsTheSweepsThatTeach) {
  Fixture f;
  const std::vector<StoredSweep> sweeps = stored_sweeps(db::Database::open(f.path, db::Mode::read_only));
  const std::filesystem::path file = f.dir / "history.tsv";
  {
    std::ofstream out(file);
    EXPECT_EQ(write_sweeps_file(sweeps, out), 4u);  // every sweep but the 5-config one
  }
  EXPECT_TRUE(is_sweeps_file(file));
  EXPECT_FALSE(is_sweeps_file(f.path));
  const std::vector<StoredSweep> read = read_sweeps_file(file);
  ASSERT_EQ(read.size(), 4u);
  for (std::size_t i = 0; i < read.size(); ++i) {
    SCOPED_TRACE(sweeps[i].key());
    EXPECT_EQ(read[i].key(), sweeps[i].key());
    EXPECT_EQ(read[i].exhaustive, sweeps[i].exhaustive);
    EXPECT_EQ(read[i].sm_count, sweeps[i].sm_count);
    EXPECT_FALSE(read[i].unparsed);
  }
  EXPECT_EQ(read[0].configs.size(), 40u);  // the compile failure taught nothing and is not written
  EXPECT_EQ(read[0].best_ms(), 0.5);
  const auto from_db = training_rows(sweeps, "mma", [](const StoredSweep&) { return false; });
  const auto from_file = training_rows(read, "mma", [](const StoredSweep&) { return false; });
  ASSERT_EQ(from_file.size(), from_db.size());
  for (std::size_t i = 0; i < from_db.size(); ++i) {
    EXPECT_EQ(config_name(from_file[i].config, from_file[i].problem.dtype, from_file[i].problem.epilogue),
              config_name(from_db[i].config, from_db[i].problem.dtype, from_db[i].problem.epilogue));
    EXPECT_NEAR(from_file[i].rel_log_ms, from_db[i].rel_log_ms, 1e-5);
  }
}

TEST(SweepsFile, RefusesWhatItCannotRead) {
  TempDir dir;
  auto refused = [&](const std::string& text) -> std::string {
    const std::filesystem::path file = dir / "bad.tsv";
    std::ofstream(file) << text;
    try {
      read_sweeps_file(file);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "read";
  };
  const std::string magic = std::string(kSweepsFileMagic) + "\n";
  const std::string header = "sweep\t1\t1\t64\t64\t64\tbf16\tbias_gelu\tmma\tflush_b2b\t132\t1\n";
  EXPECT_NE(refused("sweep\t1\n").find(":1: not a stored-sweeps file"), std::string::npos);
  EXPECT_NE(refused(magic + "sweep\t1\t1\n").find(":2: a sweep line has 12"), std::string::npos);
  EXPECT_NE(refused(magic + "name\t0.5\n").find(":2: a config line before the first sweep"), std::string::npos);
  EXPECT_NE(refused(magic + header + "name\t-1\n").find(":3: '-1' is not a median"), std::string::npos);
  EXPECT_NE(refused(magic + header + "name\t0.5x\n").find(":3: '0.5x' is not a median"), std::string::npos);
  EXPECT_NE(refused(magic + "sweep\t1\t1\t64\t64\t64\tf64\tbias_gelu\tmma\t-\t132\t1\n").find("f64 bias_gelu' is not"),
            std::string::npos);
  EXPECT_NE(refused("").find("empty"), std::string::npos);
  // A name no family parses marks the sweep unparsed, as the database's do: it teaches nothing.
  const std::filesystem::path file = dir / "old.tsv";
  std::ofstream(file) << magic << header << "mma_bf16_from_an_older_space\t0.5\n";
  const std::vector<StoredSweep> read = read_sweeps_file(file);
  ASSERT_EQ(read.size(), 1u);
  EXPECT_TRUE(read[0].unparsed);
}

TEST(Replay, ExhaustiveNeedsTheBestsPosition) {
  Fixture f;
  ReplayOptions o;
  o.dbs = {f.path};
  o.strategy = "exhaustive";
  o.seeds = 1;
  std::ostringstream out;
  EXPECT_EQ(run_replay(o, out), 0);
  const std::string text = out.str();
  EXPECT_NE(text.find("2 exhaustive sweeps"), std::string::npos) << text;
  // 41 legal, 5% of it is 2; the best is the 19th and 32nd evaluation, for every gap.
  EXPECT_NE(text.find("| run 1 4096x4096x4096 bf16 bias_gelu mma (flush_b2b) | 41 | 2 | 19 / 19 / 19 | 0/1 |"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("| run 2 2048x2048x2048 bf16 bias_gelu mma (flush_b2b) | 41 | 2 | 32 / 32 / 32 | 0/1 |"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("sweep × seed pairs within 2% with at most 5% of the space: 0 of 2"), std::string::npos) << text;
}

TEST(Replay, RandomAndModelRunEverySeed) {
  Fixture f;
  for (const char* strategy : {"random", "model"}) {
    ReplayOptions o;
    o.dbs = {f.path};
    o.strategy = strategy;
    o.seeds = 5;
    std::ostringstream out;
    EXPECT_EQ(run_replay(o, out), 0) << strategy;
    EXPECT_NE(out.str().find("sweep × seed pairs within 2% with at most 5% of the space: "), std::string::npos);
    EXPECT_NE(out.str().find(" of 10 ("), std::string::npos) << out.str();
  }
}

TEST(Replay, NothingToReplayIsStatusOne) {
  Fixture f;
  ReplayOptions o;
  o.dbs = {f.path};
  o.strategy = "exhaustive";
  o.family = "wgmma";
  std::ostringstream out;
  EXPECT_EQ(run_replay(o, out), 1);
  EXPECT_NE(out.str().find("No exhaustive sweep to replay."), std::string::npos);
}

}  // namespace
}  // namespace coalesce::tuner
