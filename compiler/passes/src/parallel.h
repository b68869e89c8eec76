// Independent per-item work of a pass spread over the host's cores: items are dealt out in
// order from a shared counter, each writes only its own results, so the output is the same
// on any number of threads. An exception from an item is rethrown after all threads join:
// the one of the lowest item, as a sequential loop would have thrown it.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace tessera::passes {

template <typename Fn>
void parallel_for(uint32_t n, Fn&& fn) {
  const uint32_t threads = std::min<uint32_t>(n, std::max(1u, std::thread::hardware_concurrency()));
  std::atomic<uint32_t> next{0};
  uint32_t failed_at = UINT32_MAX;
  std::exception_ptr failure;
  std::mutex lock;  // guards failed_at and failure
  auto work = [&] {
    for (uint32_t i; (i = next.fetch_add(1)) < n;) {
      try {
        fn(i);
      } catch (...) {
        const std::lock_guard<std::mutex> hold(lock);
        if (i < failed_at) failed_at = i, failure = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  for (uint32_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace tessera::passes
