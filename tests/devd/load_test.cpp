// The loopback load test: a tessera-devd in this process serving two emu-native devices, and
// N clients in parallel, each leasing a device (the rest queue), running MNIST inference
// (mnist-mlp with the PyTorch reference's weights) on R slices of the test digits. Every
// client's logits and predictions must be bit-identical to the local emulator's on the same
// slice, and none may be lost. Printed beside the local device: throughput, and the latency
// a host sync gains over the network.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bit>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <thread>

#include "tessera/arch/tile_map.h"
#include "tessera/data/dataset.h"
#include "tessera/devd/server.h"
#include "tessera/exe/elf.h"
#include "tessera/graph/graph.h"
#include "tessera/models/mlp.h"
#include "tessera/passes/passes.h"
#include "tessera/registry/registry.h"
#include "tessera/runtime/engine.h"

namespace tessera::testing {
namespace {

using Clock = std::chrono::steady_clock;
constexpr uint32_t kBatch = 40, kBatches = 10, kImages = kBatch * kBatches;  // one run: 400 digits
constexpr uint32_t kSlices = 5;  // the 2,000 test digits
constexpr int kClients = 4, kRunsPerClient = 3;
constexpr const char* kToken = "load-test-token-0123456789abcdef";

std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

exe::Executable compile_mlp() {
  passes::CompileOptions o;
  o.firmware = read_bytes(std::string(TESSERA_TILE_BIN_DIR) + "/runtime/tessera-firmware.elf");
  const exe::ElfImage fw = exe::parse_elf(o.firmware, "firmware");
  o.layout = exe::firmware_layout(fw);
  graph::Graph g(*arch::find_target("small"));
  models::build_mlp_inference(g, models::read_mlp_weights(TESSERA_MNIST_REFERENCE_DIR),
                              {kBatch, kBatches, o.layout.firmware_end - arch::kSramBase});
  return passes::compile(g, o);
}

struct Result {
  std::vector<uint32_t> logits;  // bit patterns
  std::vector<uint32_t> preds;
};

// A loaded Engine on a device, running slices of the test digits.
class Client {
 public:
  Client(device::Device& d, const exe::Executable& e, const data::Dataset& test)
      : engine_(d, e), test_(test) {
    d.configure(e.target, std::as_bytes(std::span(e.firmware)));
    engine_.load();
    engine_.connect_stream("x", std::span(x_));
    engine_.connect_stream("logits", std::span(logits_));
    engine_.connect_stream("preds", std::span(preds_));
  }
  Result run(uint32_t slice) {
    std::memcpy(x_.data(), test_.images.data() + size_t{slice} * kImages * 784, x_.size() * 4);
    engine_.run("infer", std::chrono::minutes(5));
    Result r;
    for (float f : logits_) r.logits.push_back(std::bit_cast<uint32_t>(f));
    r.preds = preds_;
    return r;
  }
  uint32_t host_syncs() const { return engine_.reports().back().host_syncs; }

 private:
  runtime::Engine engine_;
  const data::Dataset& test_;
  std::vector<float> x_ = std::vector<float>(size_t{kImages} * 784),
                     logits_ = std::vector<float>(size_t{kImages} * 10);
  std::vector<uint32_t> preds_ = std::vector<uint32_t>(kImages);
};

TEST(DevdLoad, ParallelClientsGetTheLocalEmulatorsBits) {
  const data::Dataset test = data::load_mnist_split(TESSERA_MNIST_DIR, TESSERA_MNIST_SPLIT).test;
  ASSERT_EQ(test.labels.size(), size_t{kSlices} * kImages);
  const exe::Executable e = compile_mlp();

  // The local emulator: every slice, timed.
  std::vector<Result> want(kSlices);
  double local_seconds = 0;
  uint32_t syncs = 0;
  {
    auto d = registry::open("emu-native");
    Client c(*d, e, test);
    c.run(0);  // warm-up
    const auto t0 = Clock::now();
    for (uint32_t s = 0; s < kSlices; ++s) want[s] = c.run(s);
    local_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    syncs = c.host_syncs();
  }

  // The server.
  const auto dir =
      std::filesystem::temp_directory_path() / ("tessera-devd-load-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string token_file = (dir / "token").string();
  std::ofstream(token_file) << kToken << "\n";
  ::chmod(token_file.c_str(), 0600);
  devd::ServerOptions so;
  so.devices = {{"emu0", "emu-native"}, {"emu1", "emu-native"}};
  so.token = kToken;
  so.log = nullptr;
  devd::Server server(so);
  std::thread serving([&] { server.run(); });
  registry::Options ro;
  ro.token_file = token_file;
  ro.lease_timeout = std::chrono::minutes(5);
  const std::string uri = "remote://127.0.0.1:" + std::to_string(server.port());

  // One client alone: the latency a host sync gains, and one round trip (a register read).
  double remote_seconds = 0, round_trip = 0;
  {
    auto d = registry::open(uri, ro);
    Client c(*d, e, test);
    const auto r0 = Clock::now();
    for (int i = 0; i < 1000; ++i) ASSERT_EQ(d->read_reg(0), 0x54535241u);  // ID
    round_trip = std::chrono::duration<double>(Clock::now() - r0).count() / 1000;
    c.run(0);
    const auto t0 = Clock::now();
    for (uint32_t s = 0; s < kSlices; ++s)
      EXPECT_EQ(c.run(s).logits, want[s].logits) << "slice " << s;
    remote_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  }

  // N clients in parallel on two devices: the others queue for a lease.
  std::mutex mu;
  int runs_done = 0, mismatches = 0;
  std::vector<std::string> errors;
  const auto t0 = Clock::now();
  std::vector<std::thread> clients;
  for (int k = 0; k < kClients; ++k)
    clients.emplace_back([&, k] {
      try {
        auto d = registry::open(uri, ro);
        Client c(*d, e, test);
        for (int r = 0; r < kRunsPerClient; ++r) {
          const uint32_t s = static_cast<uint32_t>(k + r) % kSlices;
          const Result got = c.run(s);
          std::lock_guard lock(mu);
          ++runs_done;
          if (got.logits != want[s].logits || got.preds != want[s].preds) ++mismatches;
        }
      } catch (const std::exception& ex) {
        std::lock_guard lock(mu);
        errors.push_back(ex.what());
      }
    });
  for (auto& t : clients) t.join();
  const double parallel_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  server.stop();
  serving.join();
  std::filesystem::remove_all(dir);

  EXPECT_TRUE(errors.empty()) << (errors.empty() ? "" : errors.front());
  EXPECT_EQ(runs_done, kClients * kRunsPerClient) << "runs lost";
  EXPECT_EQ(mismatches, 0) << "results that differ from the local emulator's";
  EXPECT_EQ(server.leases_held(), 0u);

  const double local_ips = kSlices * kImages / local_seconds,
               remote_ips = kSlices * kImages / remote_seconds;
  const double parallel_ips = kClients * kRunsPerClient * kImages / parallel_seconds;
  std::printf("load test: mnist-mlp, %u digits and %u host syncs per run, emu-native devices\n",
              kImages, syncs);
  std::printf("  local emu-native, 1 client:        %7.0f images/s, %.2f ms per run\n", local_ips,
              1e3 * local_seconds / kSlices);
  std::printf("  remote loopback, 1 client:         %7.0f images/s, %.2f ms per run\n", remote_ips,
              1e3 * remote_seconds / kSlices);
  std::printf(
      "  remote loopback, %d clients, 2 devices: %7.0f images/s (%d runs, all bit-identical)\n",
      kClients, parallel_ips, runs_done);
  std::printf(
      "  added latency per host sync: %.1f us (3 round trips: wait, DMA, doorbell; one round trip "
      "%.1f us)\n",
      1e6 * (remote_seconds - local_seconds) / kSlices / syncs, 1e6 * round_trip);
}

}  // namespace
}  // namespace tessera::testing
