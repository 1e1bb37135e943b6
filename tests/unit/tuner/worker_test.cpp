// The parent's side of the measuring worker, driven by a stand-in worker (a shell script that
// speaks the same JSON lines): answers become Outcomes, a crash and a hang become launch_failed
// and timeout rows, a lost context ends the worker, and every fresh worker is set up again
// before its first measurement.
#include "harness/device.hpp"
#include "kernels/simt/family.hpp"
#include "tuner/worker.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace coalesce::tuner {
namespace {

namespace fs = std::filesystem;

// Answers by the request's symbol: "crash" dies by SIGSEGV, "hang" never answers, "fatal"
// reports a lost context and exits, "wrong" a wrong result, the floor read_b an unchecked timing,
// anything else a timing. Each setup is logged to $STANDIN_LOG; the first $STANDIN_FAIL_SETUPS of
// them fail.
constexpr const char* kStandIn = R"sh(#!/bin/sh
[ "$1" = worker ] || exit 64
while IFS= read -r line; do
  case "$line" in
    *'"op":"setup"'*)
      echo setup >> "$STANDIN_LOG"
      if [ -n "${STANDIN_FAIL_SETUPS:-}" ] && [ "$(wc -l < "$STANDIN_LOG")" -le "$STANDIN_FAIL_SETUPS" ]; then
        echo '{"status":"launch_failed","detail":"out of memory"}'
      else
        echo '{"status":"ok"}'
      fi ;;
    *'"op":"ping"'*) echo '{"status":"ok"}' ;;
    *'"symbol":"crash"'*) kill -SEGV $$ ;;
    *'"symbol":"hang"'*) exec sleep 600 ;;
    *'"symbol":"fatal"'*) echo '{"status":"launch_failed","detail":"an illegal memory access was encountered","fatal":true}'; exit 3 ;;
    *'"symbol":"wrong"'*) echo '{"status":"wrong_result","detail":"relative Frobenius error 0.5 exceeds 0.0001","rel_err":0.5,"max_abs_err":null}' ;;
    *'"method":"cublaslt_fused"'*) echo '{"status":"unavailable","detail":"cuBLASLt offers no algorithm"}' ;;
    *'"method":"read_b"'*) echo '{"status":"ok","checked":false,"median_ms":0.0078,"min_ms":0.0077,"max_ms":0.0081,"p10_ms":0.0077,"p90_ms":0.0079,"samples":300}' ;;
    *) echo '{"status":"ok","rel_err":1e-7,"max_abs_err":2e-6,"median_ms":1.5,"min_ms":1.4,"max_ms":1.9,"p10_ms":1.45,"p90_ms":1.6,"samples":40,"grid_blocks":256,"driver_registers":128}' ;;
  esac
done
)sh";

class StandInWorker : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("coalesce-worker-test-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    exe_ = dir_ / "standin";
    std::ofstream(exe_) << kStandIn;
    fs::permissions(exe_, fs::perms::owner_all);
    setenv("STANDIN_LOG", (dir_ / "setups").c_str(), 1);
    unsetenv("STANDIN_FAIL_SETUPS");
  }
  void TearDown() override { fs::remove_all(dir_); }
  int setups() const {
    std::ifstream in(dir_ / "setups");
    int n = 0;
    for (std::string line; std::getline(in, line);) ++n;
    return n;
  }
  static WorkerSetup problem() { return {0, Problem{256, 256, 256, Dtype::f32, Epilogue::bias_gelu}, 1}; }
  fs::path dir_, exe_;
  const Config config_ = from_simt(SimtConfig{});
};

TEST_F(StandInWorker, AnswersBecomeOutcomes) {
  WorkerProcess w(exe_, 5);
  w.setup(problem());
  EXPECT_EQ(setups(), 1);
  Outcome ok = w.kernel(dir_ / "k.cubin", "fine", config_);
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(*ok.median_ms, 1.5);
  EXPECT_EQ(ok.samples, 40);
  EXPECT_EQ(*ok.grid_blocks, 256);
  EXPECT_EQ(*ok.driver_registers, 128);
  // An infinite error figure arrives as null and is kept as infinity, never dropped.
  Outcome wrong = w.kernel(dir_ / "k.cubin", "wrong", config_);
  EXPECT_EQ(wrong.status, "wrong_result");
  EXPECT_EQ(*wrong.rel_err, 0.5);
  EXPECT_TRUE(std::isinf(*wrong.max_abs_err));
  EXPECT_FALSE(wrong.median_ms);
  std::string why;
  EXPECT_FALSE(w.baseline("cublaslt_fused", &why));
  EXPECT_EQ(why, "cuBLASLt offers no algorithm");
  EXPECT_TRUE(w.baseline("cublas_gemm", &why)->ok());
  // A floor is timed, not checked: ok with no error figures, never infinite ones.
  std::optional<Outcome> floor = w.baseline("read_b", &why);
  ASSERT_TRUE(floor);
  EXPECT_TRUE(floor->ok());
  EXPECT_EQ(*floor->median_ms, 0.0078);
  EXPECT_FALSE(floor->rel_err);
  EXPECT_FALSE(floor->max_abs_err);
  EXPECT_FALSE(floor->max_scaled_err);
  EXPECT_EQ(w.starts(), 1);
  EXPECT_EQ(setups(), 1);
}

TEST_F(StandInWorker, ACrashIsLaunchFailedAndTheNextWorkerIsSetUpAgain) {
  WorkerProcess w(exe_, 5);
  w.setup(problem());
  Outcome crash = w.kernel(dir_ / "k.cubin", "crash", config_);
  EXPECT_EQ(crash.status, "launch_failed");
  EXPECT_NE(crash.detail.find("died"), std::string::npos) << crash.detail;
  EXPECT_NE(crash.detail.find("Segmentation"), std::string::npos) << crash.detail;
  EXPECT_TRUE(w.kernel(dir_ / "k.cubin", "fine", config_).ok());
  EXPECT_EQ(w.starts(), 2);
  EXPECT_EQ(setups(), 2);
}

TEST_F(StandInWorker, AHangIsATimeoutAndTheWorkerIsReplaced) {
  WorkerProcess w(exe_, 1);
  w.setup(problem());
  const auto t0 = std::chrono::steady_clock::now();
  Outcome hang = w.kernel(dir_ / "k.cubin", "hang", config_);
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(hang.status, "timeout");
  EXPECT_GE(waited, 0.9);
  EXPECT_LT(waited, 5.0);
  EXPECT_TRUE(w.kernel(dir_ / "k.cubin", "fine", config_).ok());
  EXPECT_EQ(w.starts(), 2);
  EXPECT_EQ(setups(), 2);
}

TEST_F(StandInWorker, ALostContextEndsTheWorker) {
  WorkerProcess w(exe_, 5);
  w.setup(problem());
  Outcome fatal = w.kernel(dir_ / "k.cubin", "fatal", config_);
  EXPECT_EQ(fatal.status, "launch_failed");
  EXPECT_EQ(fatal.detail, "an illegal memory access was encountered");
  EXPECT_TRUE(w.kernel(dir_ / "k.cubin", "fine", config_).ok());
  EXPECT_EQ(w.starts(), 2);
  EXPECT_EQ(setups(), 2);
}

TEST_F(StandInWorker, AFailedSetupGetsASecondWorker) {
  setenv("STANDIN_FAIL_SETUPS", "1", 1);
  WorkerProcess w(exe_, 5);
  w.setup(problem());
  EXPECT_EQ(w.starts(), 2);
  EXPECT_TRUE(w.kernel(dir_ / "k.cubin", "fine", config_).ok());
}

TEST_F(StandInWorker, AProblemNoWorkerCanSetUpStopsTheSweep) {
  setenv("STANDIN_FAIL_SETUPS", "2", 1);
  WorkerProcess w(exe_, 5);
  try {
    w.setup(problem());
    FAIL() << "set-up succeeded";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("out of memory"), std::string::npos) << e.what();
  }
  EXPECT_EQ(setups(), 2);
}

TEST_F(StandInWorker, AWorkerThatCannotStartStopsTheSweep) {
  WorkerProcess w(dir_ / "does-not-exist", 5);
  EXPECT_THROW(w.setup(problem()), std::runtime_error);
}

// The real worker (`coalesce-tune worker`, tuner/worker.cpp) through its protocol as far as it
// goes on a machine without a GPU: the requests that need no device are answered as on the GPU
// host, the set-up (the first that needs one) is answered no_device with the reason, the worker
// stays up, and it leaves at the end of its input with status 0. The stand-in workers above and
// in the sweep tests answer only what lies beyond. With a GPU visible the set-up is answered ok.
TEST(RealWorker, AnswersItsProtocolUpToTheDevice) {
  const fs::path dir = fs::temp_directory_path() / ("coalesce-real-worker-" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "requests") << R"({"op":"ping"}
{"op":"baseline","method":"eager"}
{"op":"kernel","cubin":"k.cubin","symbol":"k","config":"c"}
not a request
{"op":"setup","device":0,"m":64,"n":64,"k":64,"dtype":"f32","epilogue":"bias_gelu","seed":1}
{"op":"ping"}
)";
  const std::string run = "'" COALESCE_TUNE "' worker < '" + (dir / "requests").string() + "' > '" +
                          (dir / "replies").string() + "' 2> '" + (dir / "stderr").string() + "'";
  const int status = std::system(run.c_str());
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  std::vector<nlohmann::json> replies;
  std::ifstream in(dir / "replies");
  for (std::string line; std::getline(in, line);) {
    replies.push_back(nlohmann::json::parse(line, nullptr, false));
    EXPECT_FALSE(replies.back().is_discarded()) << "not one JSON object a line: " << line;
  }
  fs::remove_all(dir);
  ASSERT_EQ(replies.size(), 6u) << "one answer per request";
  EXPECT_EQ(replies[0], nlohmann::json({{"status", "ok"}}));
  for (int i : {1, 2}) {
    EXPECT_EQ(replies[i].value("status", ""), "error") << replies[i];
    EXPECT_EQ(replies[i].value("detail", ""), "no problem was set up") << replies[i];
  }
  EXPECT_EQ(replies[3].value("status", ""), "error") << replies[3];
  EXPECT_NE(replies[3].value("detail", "").find("parse error"), std::string::npos) << replies[3];
  if (device_count() > 0) {
    EXPECT_EQ(replies[4].value("status", ""), "ok") << replies[4];
  } else {
    EXPECT_EQ(replies[4].value("status", ""), "no_device") << replies[4];
    EXPECT_EQ(replies[4].value("detail", "").rfind("no CUDA device: ", 0), 0u) << replies[4];
  }
  EXPECT_EQ(replies[5], nlohmann::json({{"status", "ok"}})) << "the worker stays up after the set-up";
}

// The parent's side with the real worker and no GPU: the set-up stops at once with NoDeviceError
// (the tools' status 3), without starting a second worker to try again.
TEST(RealWorker, NoDeviceStopsTheParentWithoutARestart) {
  WorkerProcess w(COALESCE_TUNE, 60);
  const WorkerSetup s{0, Problem{64, 64, 64, Dtype::f32, Epilogue::bias_gelu}, 1};
  if (device_count() > 0) {
    EXPECT_NO_THROW(w.setup(s));
    return;
  }
  try {
    w.setup(s);
    ADD_FAILURE() << "the set-up succeeded without a GPU";
  } catch (const NoDeviceError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("no CUDA device: ", 0), 0u) << e.what();
  }
  EXPECT_EQ(w.starts(), 1);
}

}  // namespace
}  // namespace coalesce::tuner
