#include "thread_pool.h"

#include <algorithm>
#include <utility>

namespace tessera::emu {

namespace {

// How long a thread polls before it sleeps on a condition variable: 20,000 pauses, about
// 0.4 ms on the Zen 5 host measured (a pause's length differs between CPUs). In native mode
// a compute phase's tasks follow the last within microseconds, and a sleeping thread's
// wake-up took tens of them on the hosts measured (a VM's futex), which the other thread
// spent alone.
constexpr int kSpins = 20000;

inline void pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

}  // namespace

ThreadPool::ThreadPool(unsigned threads) : ranges_(new Range[std::max(1u, threads)]), threads_(std::max(1u, threads)) {
  for (unsigned i = 1; i < threads; ++i) workers_.emplace_back([this, i] { work(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  start_cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::drain(const std::function<void(size_t)>& fn, unsigned self) {
  for (unsigned k = 0; k < threads_; ++k) {
    Range& r = ranges_[(self + k) % threads_];
    for (size_t i; (i = r.next.fetch_add(1, std::memory_order_relaxed)) < r.end;) {
      try {
        fn(i);
      } catch (...) {
        std::lock_guard lock(mu_);
        if (!error_) error_ = std::current_exception();
      }
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
    for (unsigned j = 0; j < threads_; ++j) {
      ranges_[j].next.store(n * j / threads_, std::memory_order_relaxed);
      ranges_[j].end = n * (j + 1) / threads_;
    }
    open_ = true;
    ++generation_;
  }
  start_cv_.notify_all();
  drain(fn, 0);
  // Every task is claimed now. Close the run: a worker still waking takes no part in it, so
  // the caller waits only for the workers that hold a task, never for a wake-up.
  for (int i = 0; i < kSpins && active_.load(std::memory_order_acquire) != 0; ++i) pause();
  std::unique_lock lock(mu_);
  open_ = false;
  done_cv_.wait(lock, [this] { return active_ == 0; });
  fn_ = nullptr;
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void ThreadPool::work(unsigned self) {
  uint64_t seen = 0;
  for (;;) {
    const std::function<void(size_t)>* fn;
    for (int i = 0; i < kSpins && generation_.load(std::memory_order_acquire) == seen; ++i) pause();
    {
      std::unique_lock lock(mu_);
      start_cv_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      if (!open_) continue;
      ++active_;
      fn = fn_;
    }
    drain(*fn, self);
    std::lock_guard lock(mu_);
    if (--active_ == 0 && !open_) done_cv_.notify_one();
  }
}

}  // namespace tessera::emu
