// A small persistent pool for the emulator's compute phases: run(n, fn) calls fn(i) for
// every i < n across the pool and the calling thread, and returns when all are done.
// Tiles are independent between barriers, so results do not depend on the thread count.
#pragma once

#include <atomic>
#include <condition_variable>
#include <exception>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace tessera::emu {

class ThreadPool {
 public:
  explicit ThreadPool(unsigned threads);  // total threads, the caller included
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // If a task throws, the others still finish and run() rethrows the first exception.
  void run(size_t n, const std::function<void(size_t)>& fn);

 private:
  void work();
  void drain(const std::function<void(size_t)>& fn, size_t n);

  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable start_cv_, done_cv_;
  const std::function<void(size_t)>* fn_ = nullptr;
  size_t n_ = 0;
  std::atomic<size_t> next_{0};
  size_t active_ = 0;   // workers taking part in the current run
  bool open_ = false;   // whether a worker that wakes may still join the current run
  uint64_t generation_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;  // the first exception a task threw, rethrown by run()
};

}  // namespace tessera::emu
