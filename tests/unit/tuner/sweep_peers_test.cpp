// `coalesce-tune sweep --peers` without a GPU: the stand-in worker answers the sweep's
// measurements, a fake torch package decides whether PyTorch imports, and a fake peers script
// (fake_torch_peers.py, through --peers-script) records the command line the sweep built and one
// row through the real `coalesce-tune record`, which the sweep merges into its database.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/unit/tuner/sweep_support.hpp"

namespace coalesce::sweep_test {
namespace {

namespace fs = std::filesystem;

const std::string kStandIn = std::string("COALESCE_TEST_STANDIN_WORKER=") + STANDIN_WORKER;

class SweepPeers : public ::testing::Test {
 protected:
  static fs::path cache() {
    return fs::temp_directory_path() / ("coalesce-sweep-peers-cache-" + std::to_string(getpid()));
  }
  static void TearDownTestSuite() { fs::remove_all(cache()); }
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("coalesce-sweep-peers-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "torch");
    db_ = dir_ / "sweep.db";
    log_ = dir_ / "peers.log";
  }
  void TearDown() override { fs::remove_all(dir_); }

  /// A torch package on PYTHONPATH whose import runs `body` (an empty one imports).
  void fake_torch(const std::string& body) { std::ofstream(dir_ / "torch" / "__init__.py") << body; }

  std::vector<std::string> args(std::vector<std::string> more) const {
    std::vector<std::string> a = {"sweep", "--shape", "256", "--strategy", "random", "--budget", "2", "--seed", "11",
                                  "--family", "simt", "--db", db_.string(), "--cache-dir", cache().string()};
    a.insert(a.end(), more.begin(), more.end());
    return a;
  }
  Exit sweep(std::vector<std::string> more, std::vector<std::string> env = {}) const {
    env.push_back(kStandIn);
    env.push_back("PYTHONPATH=" + dir_.string());
    env.push_back("FAKE_PEERS_LOG=" + log_.string());
    return run(COALESCE_TUNE, args(std::move(more)), env, true);
  }
  /// The fake script's command lines, one per invocation, each as its JSON text.
  std::vector<std::string> invocations() const {
    std::vector<std::string> out;
    std::ifstream in(log_);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  }

  fs::path dir_, db_, log_;
};

/// `"--name", "value"` as the fake script's JSON list writes them.
std::string pair(const std::string& name, const std::string& value) {
  return "\"" + name + "\", \"" + value + "\"";
}

// Where python3 cannot import torch (these machines), --peers says so in one line and the sweep
// otherwise completes: exit 0, every row of its own, no peer run.
TEST_F(SweepPeers, WithoutTorchThePeersAreSkippedInOneLine) {
  fake_torch("raise ImportError(\"No module named 'torch'\")\n");
  const Exit e = sweep({"--peers", "--peers-script", FAKE_PEERS});
  ASSERT_EQ(e.code, 0) << e.out << e.err;
  std::vector<std::string> said;
  std::istringstream err(e.err);
  for (std::string line; std::getline(err, line);)
    if (line.find("peers") != std::string::npos) said.push_back(line);
  ASSERT_EQ(said.size(), 1u) << e.err;
  EXPECT_EQ(said[0], "coalesce-tune: peers skipped: PyTorch is not importable (ImportError: No module named 'torch')");
  EXPECT_TRUE(invocations().empty());
  EXPECT_EQ(count(db_, "SELECT COUNT(*) FROM runs WHERE status = 'completed' AND tool = 'coalesce-tune'"), 1);
  EXPECT_EQ(count(db_, "SELECT COUNT(*) FROM runs WHERE tool <> 'coalesce-tune'"), 0);
  EXPECT_EQ(count(db_, "SELECT COUNT(*) FROM measurements WHERE method = 'coalesce' AND status = 'ok'"), 2);
}

// With torch importable the script runs after the problem's sweep: once for eager,
// torch.compile's default mode and Triton, once for max-autotune, each given a database of its
// own, this program to record through, the problem, the device and the sweep's sampling and
// spin (the shared protocol by default); its row is merged into the sweep's database in that
// protocol, and its database is gone.
TEST_F(SweepPeers, ThePeersRunAfterTheProblemInTheSweepsProtocolAndAreMerged) {
  fake_torch("");
  const Exit e = sweep({"--peers", "--peers-script", FAKE_PEERS});
  ASSERT_EQ(e.code, 0) << e.out << e.err;
  const std::vector<std::string> calls = invocations();
  ASSERT_EQ(calls.size(), 2u) << e.out;
  for (const std::string& call : calls) {
    for (const std::string& expected :
         {pair("--tune", COALESCE_TUNE), pair("--shape", "256x256x256"), pair("--dtype", "f32"),
          pair("--epilogue", "bias_gelu"), pair("--device", "0"), pair("--spin-cycles", "500000"),
          pair("--min-samples", "20"), pair("--max-samples", "1000")})
      EXPECT_NE(call.find(expected), std::string::npos) << expected << " not in " << call;
    EXPECT_EQ(call.find(db_.string()), std::string::npos) << "the script records into a database of its own";
    EXPECT_EQ(call.find("--sample-gap-ms"), std::string::npos) << call;
  }
  EXPECT_NE(calls[0].find("\"--method\", \"torch_eager\", \"--method\", \"torch_compile\", \"--method\", \"triton\", "
                          "\"--compile-mode\", \"default\""),
            std::string::npos)
      << calls[0];
  EXPECT_NE(calls[1].find("\"--method\", \"torch_compile\", \"--compile-mode\", \"max-autotune-no-cudagraphs\""),
            std::string::npos)
      << calls[1];
  // The script's database (its --db) is removed after the merge.
  const std::string db_arg = "\"--db\", \"";
  const std::size_t at = calls[0].find(db_arg) + db_arg.size();
  EXPECT_FALSE(fs::exists(fs::path(calls[0].substr(at, calls[0].find('"', at) - at)).parent_path()));

  EXPECT_NE(e.out.find("peers of 256x256x256 f32 bias_gelu (flush_spin): "), std::string::npos) << e.out;
  EXPECT_EQ(count(db_, "SELECT COUNT(*) FROM devices"), 1);
  EXPECT_EQ(count(db_, "SELECT COUNT(*) FROM runs r JOIN v_run_protocols g ON g.run_id = r.id "
                       "WHERE r.tool = 'torch_peers.py' AND r.status = 'completed' AND g.protocol = 'flush_spin'"),
            2);
  EXPECT_EQ(count(db_, "SELECT COUNT(*) FROM v_measurements WHERE method = 'torch_eager' AND status = 'ok' "
                       "AND protocol = 'flush_spin' AND samples = 20"),
            1);
  EXPECT_EQ(count(db_, "SELECT COUNT(*) FROM v_measurements WHERE method = 'torch_compile' AND status = 'ok' "
                       "AND config_name LIKE '%max_autotune%'"),
            1);
  // The sweep's own rows are of the same protocol.
  EXPECT_EQ(count(db_, "SELECT COUNT(DISTINCT protocol) FROM measurements"), 1);
}

// --peers-modes chooses the peers; --spin-cycles 0 and the sample counts go to the script, whose
// rows fall in the sweep's protocol (flush_b2b); a script that fails costs its peers only.
TEST_F(SweepPeers, ModesSpinAndSamplesGoToTheScript) {
  fake_torch("");
  const Exit e = sweep({"--peers", "--peers-script", FAKE_PEERS, "--peers-modes", "triton,torch_eager", "--spin-cycles",
                        "0", "--min-samples", "25", "--max-samples", "40"},
                       {"FAKE_PEERS_EXIT=1"});
  ASSERT_EQ(e.code, 0) << e.out << e.err;
  const std::vector<std::string> calls = invocations();
  ASSERT_EQ(calls.size(), 1u) << e.out;
  EXPECT_NE(calls[0].find("\"--method\", \"torch_eager\", \"--method\", \"triton\", \"--compile-mode\", \"default\""),
            std::string::npos)
      << calls[0];
  for (const std::string& expected :
       {pair("--spin-cycles", "0"), pair("--min-samples", "25"), pair("--max-samples", "40")})
    EXPECT_NE(calls[0].find(expected), std::string::npos) << expected << " not in " << calls[0];
  EXPECT_NE(e.err.find("fake_torch_peers.py exited with status 1; the sweep goes on"), std::string::npos) << e.err;
  EXPECT_EQ(count(db_, "SELECT COUNT(*) FROM v_measurements WHERE method = 'torch_eager' AND protocol = 'flush_b2b' "
                       "AND samples = 25"),
            1);
  EXPECT_EQ(count(db_, "SELECT COUNT(DISTINCT protocol) FROM measurements"), 1);
}

// Bad usage of the peers' options: one line, status 2, no database.
TEST_F(SweepPeers, BadPeersOptionsAreRefusedBeforeAnythingIsWritten) {
  struct Case {
    std::vector<std::string> args;
    std::string said;
  };
  const std::vector<Case> cases = {
      {{"--peers-modes", "triton"}, "--peers-modes chooses the peers of --peers; give that too"},
      {{"--peers-script", FAKE_PEERS}, "--peers-script names the script of --peers; give that too"},
      {{"--peers", "--peers-modes", "torch_eager,pytorch"},
       "--peers-modes 'torch_eager,pytorch': 'pytorch' is not a peer (torch_eager, torch_compile, "
       "torch_compile_max_autotune, triton, or all)"},
      {{"--peers", "--peers-script", (dir_ / "missing.py").string()}, "is not a file"},
      {{"--peers", "--dry-run"}, "--peers times the peers on the GPU; a --dry-run measures nothing"},
      {{"--peers", "--l2-flush", "read"}, "the peers flush L2 by writing"},
      {{"--spin-cycles", "-5"}, "--spin-cycles"},
  };
  for (const Case& c : cases) {
    const Exit e = sweep(c.args);
    EXPECT_EQ(e.code, 2) << c.said << "\n" << e.err;
    EXPECT_NE(e.err.find(c.said), std::string::npos) << e.err;
    EXPECT_EQ(std::count(e.err.begin(), e.err.end(), '\n'), 1) << e.err;
    EXPECT_FALSE(fs::exists(db_)) << c.said;
  }
}

}  // namespace
}  // namespace coalesce::sweep_test
