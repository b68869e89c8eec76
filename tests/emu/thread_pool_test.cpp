// The emulator's thread pool (sim/emu/src/thread_pool.h): every task of a run runs exactly
// once and before run() returns, whatever the pool's size, even when runs follow each other
// faster than a worker wakes (a worker that wakes after its run has closed must not run that
// run's function, which is gone by then); a task's exception reaches run()'s caller after
// the other tasks have run, and the pool goes on working; a thread done with its own range of
// tasks takes those left in the others'.
#include <gtest/gtest.h>
#include "tessera/testutil/seed.h"

#include <atomic>
#include <chrono>
#include <memory>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include "thread_pool.h"

namespace {

using tessera::emu::ThreadPool;

TEST(ThreadPool, EveryTaskOnceInManyShortRuns) {
  const uint64_t seed = tessera::testutil::random_seed("thread pool runs");
  std::mt19937_64 rng(seed);
  for (unsigned threads : {1u, 2u, 3u, 5u}) {
    ThreadPool pool(threads);
    for (int round = 0; round < 3000; ++round) {
      const size_t n = rng() % 40;
      // Each run's counts live only as long as the run: a task run late, by a worker that
      // joined a closed run, would write freed memory (ASan) or count twice.
      auto counts = std::make_unique<std::vector<std::atomic<int>>>(n);
      const unsigned spin = static_cast<unsigned>(rng() % 200);
      pool.run(n, [&](size_t i) {
        std::atomic<unsigned> work{0};
        for (unsigned k = 0; k < spin; ++k) work.fetch_add(1, std::memory_order_relaxed);
        (*counts)[i].fetch_add(1);
      });
      for (size_t i = 0; i < n; ++i)
        ASSERT_EQ((*counts)[i].load(), 1)
            << "task " << i << " of " << n << ", run " << round << ", " << threads << " threads";
    }
  }
}

// Each thread starts on a range of its own; one that finishes it takes what is left of the
// others'. Task 0 (the caller's range) waits for every other task: they can all run only if
// the worker, done with its own range, takes the rest of the caller's.
TEST(ThreadPool, AThreadDoneWithItsRangeTakesTheOthersTasks) {
  ThreadPool pool(2);
  for (int round = 0; round < 20; ++round) {
    constexpr size_t kTasks = 64;
    std::vector<std::atomic<int>> counts(kTasks);
    std::atomic<size_t> others{0};
    bool waited_out = false;
    pool.run(kTasks, [&](size_t i) {
      counts[i].fetch_add(1);
      if (i != 0) {
        others.fetch_add(1);
        return;
      }
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      while (others.load() < kTasks - 1 && std::chrono::steady_clock::now() < until) std::this_thread::yield();
      waited_out = others.load() < kTasks - 1;
    });
    ASSERT_FALSE(waited_out) << "round " << round << ": only " << others.load() << " of the other tasks ran while task 0 waited";
    for (size_t i = 0; i < kTasks; ++i) ASSERT_EQ(counts[i].load(), 1) << "task " << i << ", round " << round;
  }
}

TEST(ThreadPool, ATaskThrowsTheRestRunAndThePoolGoesOn) {
  ThreadPool pool(3);
  for (int round = 0; round < 50; ++round) {
    std::vector<std::atomic<int>> counts(64);
    try {
      pool.run(counts.size(), [&](size_t i) {
        counts[i].fetch_add(1);
        if (i == 17 || i == 40) throw std::runtime_error("task " + std::to_string(i));
      });
      FAIL() << "run() returned without the tasks' exception";
    } catch (const std::runtime_error& e) {
      EXPECT_TRUE(std::string(e.what()) == "task 17" || std::string(e.what()) == "task 40") << e.what();
    }
    for (size_t i = 0; i < counts.size(); ++i) ASSERT_EQ(counts[i].load(), 1) << "task " << i;
    std::atomic<int> after{0};
    pool.run(10, [&](size_t) { after.fetch_add(1); });
    ASSERT_EQ(after.load(), 10);
  }
}

}  // namespace
