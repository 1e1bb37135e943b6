// The compile pool (tuner/pool.hpp): jobs run and return their results, and a thread that cannot
// start is an exception after the started ones are joined, not std::terminate (issue 45: `sweep
// -j 40000` aborted with "terminate called without an active exception").
#include "tuner/pool.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <system_error>

namespace coalesce::tuner {
namespace {

TEST(ThreadPool, RunsEveryJobAndReturnsItsResult) {
  ThreadPool pool(3);
  std::vector<std::future<int>> results;
  for (int i = 0; i < 20; ++i) results.push_back(pool.submit([i] { return i * i; }));
  for (int i = 0; i < 20; ++i) EXPECT_EQ(results[i].get(), i * i);
}

// This process's address space in bytes (/proc/self/status, VmSize in kB).
long long address_space_bytes() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmSize:", 0) == 0) return std::stoll(line.substr(7)) * 1024;
  return -1;
}

TEST(ThreadPool, AThreadThatCannotStartIsAnExceptionNotAnAbort) {
  // In a child, the address space is capped a few thread stacks above what it holds, so some
  // threads start and a later one cannot: the child exits 0 if the constructor threw and joined
  // them, 1 if every thread started (the cap did not bite), and dies by SIGABRT if it terminated.
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const long long used = address_space_bytes();
    if (used < 0) _exit(3);
    const rlimit cap{static_cast<rlim_t>(used + (64 << 20)), static_cast<rlim_t>(used + (64 << 20))};
    if (setrlimit(RLIMIT_AS, &cap) != 0) _exit(3);
    try {
      ThreadPool pool(40000);
    } catch (const std::system_error&) {
      _exit(0);
    }
    _exit(1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_FALSE(WIFSIGNALED(status)) << "the child died by signal " << WTERMSIG(status) << " (6: std::terminate)";
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: every thread started under the cap; 3: the cap could not be set";
}

}  // namespace
}  // namespace coalesce::tuner
