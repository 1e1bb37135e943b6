// A fixed set of threads running submitted jobs in submission order: the compiles that run on
// every CPU core ahead of the GPU's single measuring lane.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

namespace coalesce::tuner {

class ThreadPool {
 public:
  /// Starts `threads` workers (at least one). Throws std::system_error when one cannot start
  /// (the host's thread or memory limit), after joining those that did: a std::thread destroyed
  /// unjoined would end the process with std::terminate (issue 45: `sweep -j 40000`).
  explicit ThreadPool(unsigned threads) {
    if (threads == 0) threads = 1;
    try {
      for (unsigned i = 0; i < threads; ++i) workers_.emplace_back([this] { serve(); });
    } catch (...) {
      stop();
      throw;
    }
  }
  /// Drops the jobs not yet started (their futures report a broken promise), lets the running
  /// ones finish, then joins: a sweep that stops early does not compile the rest first.
  ~ThreadPool() { stop(); }
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  /// Queues `job`; its result (or exception) arrives through the future.
  template <class F>
  auto submit(F job) -> std::future<decltype(job())> {
    auto task = std::make_shared<std::packaged_task<decltype(job())()>>(std::move(job));
    auto result = task->get_future();
    {
      std::lock_guard lock(mutex_);
      queue_.emplace_back([task] { (*task)(); });
    }
    wake_.notify_one();
    return result;
  }

 private:
  void stop() {
    {
      std::lock_guard lock(mutex_);
      closing_ = true;
      queue_.clear();
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
  }
  void serve() {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [this] { return closing_ || !queue_.empty(); });
        if (queue_.empty()) return;
        job = std::move(queue_.front());
        queue_.pop_front();
      }
      job();
    }
  }
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> queue_;
  bool closing_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace coalesce::tuner
