// The cold timer and the method runner: sane statistics, the stopping rule's minimum, a flush
// buffer of twice L2, times that scale with the work, and run_method's verdicts.
#include <chrono>
#include <string>

#include "gpu_test.hpp"
#include "harness/cuda_check.hpp"
#include "harness/method.hpp"
#include "harness/rungs.hpp"
#include "harness/timing.hpp"
#include "harness/workspace.hpp"

namespace {

using namespace coalesce;

TimingSettings short_settings() {
  TimingSettings s;
  s.min_samples = 20;
  s.max_samples = 200;
  s.budget_ms = 500;
  s.first_warmup_ms = 200;
  s.warmup_ms = 10;
  return s;
}

// Times the reg4x4 rung at 1024^3 under `settings` and checks what any cold measurement must
// give: a flush buffer of at least twice L2, ordered and complete statistics, a warm-up, and the
// last sample's output the kernel's, not the NaN reset.
void expect_a_sane_measurement(const TimingSettings& settings) {
  Stream stream;
  Workspace ws({1024, 1024, 1024, Dtype::f32, Epilogue::bias_gelu}, 1, stream.get());
  ColdTimer timer(0, settings, stream.get());
  int l2 = 0;
  COALESCE_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  EXPECT_GE(timer.flush_bytes(), 2u * static_cast<std::size_t>(l2));

  const Method m = rung_method(Rung::reg4x4, ws);
  const Timing t = timer.measure(m.launch, [&ws](cudaStream_t s) { ws.poison_output(s); }, describe(m));
  const SampleStats& s = t.stats;
  EXPECT_GE(s.count, settings.min_samples);
  EXPECT_LE(s.count, settings.max_samples);
  EXPECT_EQ(static_cast<std::size_t>(s.count), t.samples_ms.size());
  EXPECT_GT(s.min, 0.0);
  EXPECT_LE(s.min, s.p10);
  EXPECT_LE(s.p10, s.median);
  EXPECT_LE(s.median, s.p90);
  EXPECT_LE(s.p90, s.max);
  EXPECT_GE(t.warmup_launches, 1);
  EXPECT_GT(t.warmup_gpu_ms, 0.0);
  EXPECT_TRUE(ws.check(m.reference()).passed);
}

TEST(ColdTimer, StatisticsAreOrderedAndComplete) {
  COALESCE_REQUIRE_GPU();
  expect_a_sane_measurement(short_settings());
}

// The read flush (L2FlushMode::read): the same buffer of twice L2, read through it instead of
// overwritten.
TEST(ColdTimer, TheReadFlushTimesLikeTheWriteFlush) {
  COALESCE_REQUIRE_GPU();
  TimingSettings settings = short_settings();
  settings.l2_flush = L2FlushMode::read;
  expect_a_sane_measurement(settings);
}

// A rest after each sample (TimingSettings::sample_gap_ms): the same sane statistics, and the
// timed loop takes at least the rests' wall time.
TEST(ColdTimer, TheSampleGapRestsTheGpuBetweenSamples) {
  COALESCE_REQUIRE_GPU();
  TimingSettings settings = short_settings();
  settings.sample_gap_ms = 5;
  settings.max_samples = 20;  // exactly the 20 minimum: 100 ms of rests at least
  expect_a_sane_measurement(settings);
  Stream stream;
  Workspace ws({512, 512, 512, Dtype::f32, Epilogue::none}, 4, stream.get());
  ColdTimer timer(0, settings, stream.get());
  const Method m = rung_method(Rung::tiled, ws);
  const auto start = std::chrono::steady_clock::now();
  const Timing t = timer.measure(m.launch, [&ws](cudaStream_t s) { ws.poison_output(s); }, describe(m));
  const double wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(t.stats.count, 20);
  EXPECT_GE(wall_ms, 20 * 5.0);
}

// The GPU spin before each sample (TimingSettings::spin_cycles, the shared timing protocol): the
// spin itself lasts its cycles at no more than the top SM clock; behind it the statistics are
// as sane, the timed loop takes at least the spins' time, and the window does not hold the spin:
// a 512³ kernel's median stays far below one spin.
TEST(ColdTimer, TheSpinRunsBeforeEachSampleOutsideTheWindow) {
  COALESCE_REQUIRE_GPU();
  int clock_khz = 0;
  COALESCE_CUDA(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  ASSERT_GT(clock_khz, 0);
  constexpr long long kCycles = 10'000'000;  // 5 ms at 1.98 GHz
  const double spin_ms = static_cast<double>(kCycles) / clock_khz;
  Stream stream;
  {
    Event start, stop;
    COALESCE_CUDA(cudaEventRecord(start.get(), stream.get()));
    gpu_spin(kCycles, stream.get());
    COALESCE_CUDA(cudaEventRecord(stop.get(), stream.get()));
    COALESCE_CUDA(cudaEventSynchronize(stop.get()));
    float ms = 0;
    COALESCE_CUDA(cudaEventElapsedTime(&ms, start.get(), stop.get()));
    EXPECT_GE(ms, 0.95 * spin_ms);
  }
  TimingSettings settings = short_settings();
  settings.spin_cycles = kCycles;
  settings.max_samples = 20;  // exactly the 20 minimum: 20 spins
  EXPECT_EQ(protocol_of(settings), "flush_spin");
  expect_a_sane_measurement(settings);
  Workspace ws({512, 512, 512, Dtype::f32, Epilogue::none}, 4, stream.get());
  ColdTimer timer(0, settings, stream.get());
  const Method m = rung_method(Rung::tiled, ws);
  const auto start = std::chrono::steady_clock::now();
  const Timing t = timer.measure(m.launch, [&ws](cudaStream_t s) { ws.poison_output(s); }, describe(m));
  const double wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(t.stats.count, 20);
  EXPECT_GE(wall_ms, 0.95 * 20 * spin_ms);
  EXPECT_LT(t.stats.median, 0.5 * spin_ms) << "the spin was inside the timed window";
}

// Twice the work measures about twice the time: the events bracket the launch and nothing else.
TEST(ColdTimer, TwoLaunchesTakeAboutTwiceOne) {
  COALESCE_REQUIRE_GPU();
  Stream stream;
  Workspace ws({2048, 2048, 2048, Dtype::f32, Epilogue::none}, 2, stream.get());
  ColdTimer timer(0, short_settings(), stream.get());
  const Method m = rung_method(Rung::reg4x4, ws);
  auto reset = [&ws](cudaStream_t s) { ws.poison_output(s); };
  const double once = timer.measure(m.launch, reset, "once").stats.median;
  const double twice = timer.measure([&](cudaStream_t s) { m.launch(s); m.launch(s); }, reset, "twice").stats.median;
  EXPECT_GT(twice / once, 1.6);
  EXPECT_LT(twice / once, 2.4);
}

TEST(RunMethod, TimesARightKernelAndRefusesToTimeAWrongOne) {
  COALESCE_REQUIRE_GPU();
  Stream stream;
  Workspace ws({512, 512, 512, Dtype::f32, Epilogue::bias_gelu}, 3, stream.get());
  ColdTimer timer(0, short_settings(), stream.get());
  const Method right = rung_method(Rung::tiled, ws);
  const MethodResult ok = run_method(right, ws, timer);
  EXPECT_EQ(ok.status, Status::ok) << ok.detail;
  ASSERT_TRUE(ok.timing);
  ASSERT_TRUE(ok.check);
  EXPECT_TRUE(ok.check->passed);

  Method wrong = right;
  wrong.config = "tiled judged against the epilogue-free reference";
  wrong.reference_epilogue = Epilogue::none;  // the kernel applies bias+GELU: a wrong answer
  const MethodResult bad = run_method(wrong, ws, timer);
  EXPECT_EQ(bad.status, Status::wrong_result);
  EXPECT_FALSE(bad.timing);
  EXPECT_FALSE(bad.detail.empty());
}

__global__ void idle() {}

// A launch the device refuses (more threads than a block may have) is an error naming the
// method, not a crash, and the next method still runs.
TEST(RunMethod, ALaunchErrorIsReportedWithTheMethodsName) {
  COALESCE_REQUIRE_GPU();
  Stream stream;
  Workspace ws({64, 64, 64, Dtype::f32, Epilogue::none}, 4, stream.get());
  ColdTimer timer(0, short_settings(), stream.get());
  Method broken;
  broken.method = "coalesce";
  broken.family = "planted";
  broken.config = "four_thousand_threads";
  broken.launch = [](cudaStream_t s) {
    idle<<<1, 4096, 0, s>>>();
    COALESCE_CUDA_CTX(cudaGetLastError(), "four_thousand_threads");
  };
  const MethodResult r = run_method(broken, ws, timer);
  EXPECT_EQ(r.status, Status::error);
  EXPECT_NE(r.detail.find("four_thousand_threads"), std::string::npos) << r.detail;
  EXPECT_EQ(run_method(rung_method(Rung::naive, ws), ws, timer).status, Status::ok);
}

}  // namespace
