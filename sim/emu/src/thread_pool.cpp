#include "thread_pool.h"

#include <utility>

namespace tessera::emu {

ThreadPool::ThreadPool(unsigned threads) {
  for (unsigned i = 1; i < threads; ++i) workers_.emplace_back([this] { work(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  start_cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::drain(const std::function<void(size_t)>& fn, size_t n) {
  for (size_t i; (i = next_.fetch_add(1)) < n;) {
    try {
      fn(i);
    } catch (...) {
      std::lock_guard lock(mu_);
      if (!error_) error_ = std::current_exception();
    }
  }
}

void ThreadPool::run(size_t n, const std::function<void(size_t)>& fn) {
  if (workers_.empty() || n <= 1) {
    for (size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  {
    std::lock_guard lock(mu_);
    fn_ = &fn;
    n_ = n;
    next_ = 0;
    open_ = true;
    ++generation_;
  }
  start_cv_.notify_all();
  drain(fn, n);
  // Every task is claimed now. Close the run: a worker still waking takes no part in it, so
  // the caller waits only for the workers that hold a task, never for a wake-up.
  std::unique_lock lock(mu_);
  open_ = false;
  done_cv_.wait(lock, [this] { return active_ == 0; });
  fn_ = nullptr;
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void ThreadPool::work() {
  uint64_t seen = 0;
  for (;;) {
    const std::function<void(size_t)>* fn;
    size_t n;
    {
      std::unique_lock lock(mu_);
      start_cv_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      if (!open_) continue;
      ++active_;
      fn = fn_;
      n = n_;
    }
    drain(*fn, n);
    std::lock_guard lock(mu_);
    if (--active_ == 0 && !open_) done_cv_.notify_one();
  }
}

}  // namespace tessera::emu
