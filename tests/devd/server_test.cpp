// tessera-devd under misuse, in this process on loopback with short timeouts: garbage,
// truncated and oversized frames, a wrong token, a client that sends one byte and stops, a
// client killed in the middle of a DMA, a queue that times out. Each gets an error and a
// closed connection, no lease is leaked, and a well-behaved client on the same server runs
// MatVec16 correctly (against its reference) through it all.
#include "tessera/devd/server.h"

#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "examples.h"
#include "runtime_fixture.h"
#include "tessera/arch/device_regs.h"
#include "tessera/arch/tile_map.h"
#include "tessera/devd/protocol.h"
#include "tessera/passes/passes.h"
#include "tessera/testutil/streamed_matmul.h"
#include "tessera/registry/registry.h"
#include "tessera/runtime/engine.h"
#include "to_executable.h"

namespace tessera::testing {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;

constexpr const char* kToken = "server-test-token-0123456789";

class DevdServer : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = std::filesystem::temp_directory_path() /
          ("tessera-devd-server-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    token_file = (dir / "token").string();
    std::ofstream(token_file) << kToken << "\n";
    ::chmod(token_file.c_str(), 0600);
    devd::ServerOptions o;
    o.devices = {{"emu0", "emu-native"}, {"emu1", "emu-native"}};
    o.token = kToken;
    o.max_frame = 1u << 20;
    o.handshake_timeout = 500ms;
    o.frame_timeout = 500ms;
    o.idle_timeout = 2000ms;
    o.log = nullptr;
    adjust(o);
    if (tls()) {
      cert = (dir / "cert.pem").string();
      make_certificate(cert, (dir / "key.pem").string(), "127.0.0.1");
      o.tls_cert = cert;
      o.tls_key = (dir / "key.pem").string();
    }
    server = std::make_unique<devd::Server>(o);
    thread = std::thread([this] { server->run(); });
  }
  void TearDown() override {
    server->stop();
    thread.join();
    std::filesystem::remove_all(dir);
  }

  std::string uri(const std::string& name = "") const {
    return "remote://127.0.0.1:" + std::to_string(server->port()) +
           (name.empty() ? "" : "/" + name);
  }
  virtual bool tls() const { return false; }
  virtual void adjust(devd::ServerOptions&) const {}
  // A self-signed certificate for `ip` (its subjectAltName), made by the openssl command.
  static void make_certificate(const std::string& cert, const std::string& key,
                               const std::string& ip) {
    const std::string cmd = "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=" + ip +
                            " -addext subjectAltName=IP:" + ip + " -keyout " + key + " -out " +
                            cert + " >/dev/null 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  }
  std::unique_ptr<device::Device> open(const std::string& name = "",
                                       std::chrono::milliseconds lease = 10s,
                                       const std::string& ca = "") {
    registry::Options o;
    o.token_file = token_file;
    o.tls_ca_file = ca.empty() ? cert : ca;
    o.lease_timeout = lease;
    return registry::open(uri(name), o);
  }
  // MatVec16 on a device of the server, checked against its reference.
  void run_matvec(const std::string& name = "") {
    auto d = open(name);
    d->configure("small", std::as_bytes(std::span(firmware_bytes())));
    handbuilt::MatVec16 mv{11};
    const exe::Executable e = handbuilt::matvec16_executable(mv, small(), firmware_bytes());
    runtime::Engine engine(*d, e);
    engine.load();
    std::vector<float> x = mv.x, y(64);
    engine.connect_stream("x", std::span(x));
    engine.connect_stream("y", std::span(y));
    engine.run("matvec");
    EXPECT_EQ(bits(y), bits(mv.reference()));
  }
  // Waits up to 5 s for `n` leases held.
  bool leases_become(unsigned n) {
    for (int i = 0; i < 500 && server->leases_held() != n; ++i) std::this_thread::sleep_for(10ms);
    return server->leases_held() == n;
  }

  std::filesystem::path dir;
  std::string token_file, cert;  // cert: the server's, when tls()
  std::unique_ptr<devd::Server> server;
  std::thread thread;
};

// A raw TCP client, for what the real client never sends.
class Raw {
 public:
  explicit Raw(uint16_t port) : Raw(port, htonl(INADDR_LOOPBACK)) {
    if (connect_error_ != 0) ADD_FAILURE() << "connect: " << std::strerror(connect_error_);
  }
  // To an IPv4 address (network order); connect_error() says whether that failed.
  Raw(uint16_t port, in_addr_t addr) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    timeval tv{5, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = addr;
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) connect_error_ = errno;
  }
  int connect_error() const { return connect_error_; }
  ~Raw() { close(); }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  void send(std::span<const std::byte> b) {
    ASSERT_EQ(::send(fd_, b.data(), b.size(), MSG_NOSIGNAL), ssize_t(b.size()));
  }
  void send(const devd::Request& r) { send(devd::encode(r, 0xffffffffu)); }
  // The next reply, or nothing if the server closed the connection.
  std::optional<devd::Reply> receive() {
    std::array<std::byte, 4> h;
    if (!read(h)) return {};
    std::vector<std::byte> body(devd::frame_length(h, 1u << 24));
    if (!read(body)) return {};
    return devd::parse_reply(body);
  }
  // True when the server has closed the connection (EOF within 5 s).
  bool closed_by_server() {
    std::byte b;
    return ::recv(fd_, &b, 1, 0) == 0;
  }
  void hello(const std::string& token = kToken) {
    devd::Hello h;
    h.token = token;
    send(devd::Request{h});
    auto r = receive();
    ASSERT_TRUE(r && std::holds_alternative<devd::Welcome>(*r));
  }

 private:
  bool read(std::span<std::byte> b) {
    size_t at = 0;
    while (at < b.size()) {
      const ssize_t n = ::recv(fd_, b.data() + at, b.size() - at, 0);
      if (n <= 0) return false;
      at += size_t(n);
    }
    return true;
  }
  int fd_ = -1;
  int connect_error_ = 0;
};

devd::ErrorCode error_code(const std::optional<devd::Reply>& r) {
  if (!r || !std::holds_alternative<devd::Error>(*r)) return devd::ErrorCode{0};
  return std::get<devd::Error>(*r).code;
}

// Weight streaming on a remote device: the executable's device memory goes over with
// DRAM_WRITE at load, each read from it is DRAM_TO_TILES in its host sync. y = x B with B's
// 64 x 96 values streamed in chunks: the same bits as on a local emulator, close to x B in
// doubles, and only x and y cross to the host.
TEST_F(DevdServer, StreamedWeightsRunOnARemoteDevice) {
  graph::Graph g(small());
  graph::Program body = graph::Sequence();
  const testutil::StreamedMatMul mm = testutil::add_streamed_matmul(g, body, 2, 64, 96, 24, 32768);
  const uint32_t m = mm.m, k = mm.k, n = mm.n;
  body.add(graph::HostRead(g.add_stream("y", exe::DType::kF32, {m, n}), mm.y));
  g.add_program("main", std::move(body));
  const exe::Executable e = passes::compile(
      g, passes::firmware_options(std::string(TESSERA_TILE_BIN_DIR) + "/runtime/tessera-firmware.elf", &small()));
  ASSERT_GE(mm.chunks, 3u);
  ASSERT_FALSE(e.device_memory.empty());

  auto run = [&](device::Device& d) {
    d.configure("small", std::as_bytes(std::span(firmware_bytes())));
    runtime::Engine engine(d, e);
    engine.load();
    std::vector<float> in = mm.x_values, out(m * n);
    engine.connect_stream("x", std::span(in));
    engine.connect_stream("y", std::span(out));
    engine.run("main");
    EXPECT_EQ(engine.reports().back().host_bytes, 4u * (m * k + m * n));
    EXPECT_EQ(engine.reports().back().device_memory_bytes, e.device_memory.size());
    return out;
  };
  auto remote = open();
  const std::vector<float> got = run(*remote);
  auto local = registry::open("emu-native");
  EXPECT_EQ(bits(got), bits(run(*local))) << "the remote device and the local emulator differ";
  mm.expect_product(got, 1e-5, "remote");
  // Misuse (a read out of a host sync, a write past the device memory) is the device's refusal;
  // the connection stays.
  const device::DmaSegment seg{0, arch::kSramBase + 0x8000, 4, uint64_t{1} << 40};
  EXPECT_THROW(remote->dram_to_tiles(std::span(&seg, 1)), device::DeviceError);
  EXPECT_THROW(remote->dram_write(uint64_t{1} << 40, std::as_bytes(std::span(mm.x_values))), device::DeviceError);
  std::vector<std::byte> back(e.device_memory.size() + 4);
  EXPECT_THROW(remote->dram_read(0, back), device::DeviceError) << "4 bytes past what was written";
  EXPECT_EQ(bits(run(*remote)), bits(got)) << "the device stays usable";
  // Device memory read back over DRAM_READ, in frames: the image the engine wrote (a run
  // that writes nothing back leaves it as it was).
  back.resize(e.device_memory.size());
  remote->dram_read(0, back);
  EXPECT_EQ(0, std::memcmp(back.data(), e.device_memory.data(), back.size()));
}

TEST_F(DevdServer, GarbageGetsAnErrorAndAClosedConnection) {
  Raw raw(server->port());
  const std::string http =
      "GET / HTTP/1.1\r\nHost: x\r\n\r\n";  // "GET " = 542393671 bytes announced
  raw.send(std::as_bytes(std::span(http)));
  const auto r = raw.receive();
  EXPECT_EQ(error_code(r), devd::ErrorCode::kProtocol);
  EXPECT_THAT(std::get<devd::Error>(*r).message, HasSubstr("over the limit"));
  EXPECT_TRUE(raw.closed_by_server());
  run_matvec();
  EXPECT_GE(server->stats().protocol_errors, 1u);
}

TEST_F(DevdServer, AMalformedBodyGetsAnErrorAndAClosedConnection) {
  Raw raw(server->port());
  raw.hello();
  const std::vector<std::byte> junk{std::byte{1}, std::byte{0}, std::byte{0}, std::byte{0},
                                    std::byte{0x42}};
  raw.send(junk);  // a 1-byte frame: type 0x42
  EXPECT_EQ(error_code(raw.receive()), devd::ErrorCode::kProtocol);
  EXPECT_TRUE(raw.closed_by_server());
  run_matvec();
}

TEST_F(DevdServer, AnOversizedFrameIsRefusedFromItsHeader) {
  Raw raw(server->port());
  raw.hello();
  const uint32_t n = (1u << 20) + 1;
  const std::vector<std::byte> h{std::byte(n), std::byte(n >> 8), std::byte(n >> 16),
                                 std::byte(n >> 24)};
  raw.send(h);  // no body follows: the header alone is refused
  const auto r = raw.receive();
  EXPECT_EQ(error_code(r), devd::ErrorCode::kProtocol);
  EXPECT_THAT(std::get<devd::Error>(*r).message, HasSubstr("1048577 bytes announced"));
  EXPECT_TRUE(raw.closed_by_server());
}

TEST_F(DevdServer, BeforeHelloOnlyAHelloSizedFrameIsAccepted) {
  // 64 KiB announced by a peer that has not said HELLO: within --max-frame, but refused from
  // the header alone (nothing allocated for it), as is one byte over the largest HELLO.
  for (const uint32_t n : {64u << 10, devd::kMaxHelloFrame + 1}) {
    Raw raw(server->port());
    const std::vector<std::byte> h{std::byte(n), std::byte(n >> 8), std::byte(n >> 16),
                                   std::byte(n >> 24)};
    raw.send(h);
    const auto r = raw.receive();
    ASSERT_EQ(error_code(r), devd::ErrorCode::kProtocol) << n;
    EXPECT_THAT(std::get<devd::Error>(*r).message,
                HasSubstr(std::to_string(n) + " bytes announced, over the limit of " +
                          std::to_string(devd::kMaxHelloFrame)));
    EXPECT_TRUE(raw.closed_by_server());
  }
  // The largest HELLO there is passes (a wrong token of 256 characters: refused for that).
  Raw raw(server->port());
  devd::Hello h;
  h.token = std::string(devd::kMaxToken, 'x');
  const auto frame = devd::encode(devd::Request{h});
  ASSERT_EQ(frame.size(), devd::kFrameHeader + devd::kMaxHelloFrame);
  raw.send(frame);
  EXPECT_EQ(error_code(raw.receive()), devd::ErrorCode::kAuth);
  run_matvec();
}

TEST_F(DevdServer, AWrongTokenIsRefused) {
  {
    Raw raw(server->port());
    devd::Hello h;
    h.token = "not-the-token-at-all-0000";
    raw.send(devd::Request{h});
    EXPECT_EQ(error_code(raw.receive()), devd::ErrorCode::kAuth);
    EXPECT_TRUE(raw.closed_by_server());
  }
  {  // Anything before HELLO.
    Raw raw(server->port());
    raw.send(devd::Request{devd::Lease{"emu0", 0}});
    EXPECT_EQ(error_code(raw.receive()), devd::ErrorCode::kAuth);
    EXPECT_TRUE(raw.closed_by_server());
  }
  // Through the registry: an error naming the refusal.
  std::ofstream(token_file) << "a-wrong-token-of-enough-length\n";
  EXPECT_THAT([&] { open(); },
              ::testing::ThrowsMessage<device::DeviceError>(HasSubstr("wrong token")));
  EXPECT_EQ(server->stats().auth_failures, 3u);
  EXPECT_EQ(server->leases_held(), 0u);
}

TEST_F(DevdServer, TruncatedAndSlowFramesTimeOutAndReleaseTheLease) {
  // One byte of a header, then silence: closed after the handshake timeout.
  Raw slow(server->port());
  slow.send(std::vector<std::byte>{std::byte{9}});
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_TRUE(slow.closed_by_server());
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 3s);
  // A leased client that starts a frame and stalls: closed after the frame timeout, its lease
  // released.
  Raw stall(server->port());
  stall.hello();
  stall.send(devd::Request{devd::Lease{"emu0", 0}});
  ASSERT_TRUE(std::holds_alternative<devd::Leased>(*stall.receive()));
  EXPECT_EQ(server->leases_held(), 1u);
  auto frame = devd::encode(devd::Request{devd::Wait{1, 10}});
  frame.resize(frame.size() - 3);  // truncated
  stall.send(frame);
  EXPECT_TRUE(stall.closed_by_server());
  EXPECT_TRUE(leases_become(0));
  run_matvec("emu0");
  EXPECT_GE(server->stats().timeouts, 2u);
}

TEST_F(DevdServer, AClientKilledMidDmaReleasesItsLeaseAndTheDeviceIsReset) {
  // A client configures emu0 and writes a pattern into tile 0's SRAM; the pattern must not
  // survive into the next lease.
  const uint32_t addr = arch::kSramBase + 0x10000;
  {
    auto d = open("emu0");
    d->configure("small", std::as_bytes(std::span(firmware_bytes())));
    std::vector<std::byte> pattern(64, std::byte{0xa5});
    const device::DmaSegment seg{0, addr, 64, 0};
    d->write_reg(arch::kDevRegControl, device::kControlReset);
    d->dma_write(std::span(&seg, 1), pattern);
    std::vector<std::byte> back(64);
    d->dma_read(std::span(&seg, 1), back);
    ASSERT_EQ(back, pattern);
  }
  ASSERT_TRUE(leases_become(0));
  // Killed in the middle of a DMA frame: half a megabyte announced, a little sent.
  {
    Raw raw(server->port());
    raw.hello();
    raw.send(devd::Request{devd::Lease{"emu0", 0}});
    ASSERT_TRUE(std::holds_alternative<devd::Leased>(*raw.receive()));
    devd::DmaWrite w{{{0, addr, 512 * 1024, 0}}, std::vector<std::byte>(512 * 1024, std::byte{1})};
    auto frame = devd::encode(devd::Request{w}, 1u << 20);
    frame.resize(4096);
    raw.send(frame);
    raw.close();  // killed
  }
  ASSERT_TRUE(leases_become(0));
  // The next client gets emu0 at once, reset: a new machine whose SRAM is zero.
  auto d = open("emu0", 2s);
  d->configure("small", std::as_bytes(std::span(firmware_bytes())));
  std::vector<std::byte> back(64, std::byte{0xff});
  const device::DmaSegment seg{0, addr, 64, 0};
  d->dma_read(std::span(&seg, 1), back);
  EXPECT_EQ(back, std::vector<std::byte>(64));
  d.reset();
  run_matvec("emu0");
}

TEST_F(DevdServer, LeasesAreExclusiveAndOthersQueueWithATimeout) {
  auto holder = open("emu0");
  EXPECT_EQ(server->leases_held(), 1u);
  // Another client for emu0 waits 300 ms and is told the device stayed busy.
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_THAT([&] { open("emu0", 300ms); },
              ::testing::ThrowsMessage<device::DeviceError>(HasSubstr("stayed leased")));
  EXPECT_GE(std::chrono::steady_clock::now() - t0, 300ms);
  // Any free device: emu1.
  run_matvec();
  // A queued client gets emu0 once the holder goes.
  std::thread release([&] {
    std::this_thread::sleep_for(300ms);
    holder.reset();
  });
  run_matvec("emu0");
  release.join();
  EXPECT_TRUE(leases_become(0));
  // An unknown device is named.
  EXPECT_THAT([&] { open("emu7"); }, ::testing::ThrowsMessage<device::DeviceError>(
                                         HasSubstr("no device 'emu7' (devices: emu0, emu1)")));
}

TEST_F(DevdServer, DeviceErrorsKeepTheConnection) {
  auto d = open();
  // Not configured yet: the device refuses, the connection stays.
  EXPECT_THAT([&] { d->read_reg(0); },
              ::testing::ThrowsMessage<device::DeviceError>(HasSubstr("not configured")));
  d->configure("small", std::as_bytes(std::span(firmware_bytes())));
  EXPECT_EQ(d->read_reg(0), 0x54535241u);  // ID
  const device::DmaSegment outside{0, 0xfff00000, 4, 0};
  std::vector<std::byte> b(4);
  EXPECT_THAT([&] { d->dma_read(std::span(&outside, 1), b); },
              ::testing::Throws<device::DeviceError>());
  EXPECT_EQ(d->read_reg(0), 0x54535241u);
}

TEST_F(DevdServer, ASilentClientIsClosedAfterTheIdleTimeoutAndItsLeaseReleased) {
  Raw raw(server->port());
  raw.hello();
  raw.send(devd::Request{devd::Lease{"emu0", 0}});
  ASSERT_TRUE(std::holds_alternative<devd::Leased>(*raw.receive()));
  EXPECT_EQ(server->leases_held(), 1u);
  // Silent after a whole frame: the idle timeout (2 s here), not the frame timeout (0.5 s).
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_TRUE(raw.closed_by_server());
  const auto waited = std::chrono::steady_clock::now() - t0;
  EXPECT_GE(waited, 1900ms);
  EXPECT_LT(waited, 4500ms);
  EXPECT_TRUE(leases_become(0));
  EXPECT_GE(server->stats().timeouts, 1u);
  run_matvec("emu0");
}

// At most `max_clients` connections: one more is closed at once, before it says anything.
class DevdTwoClients : public DevdServer {
 protected:
  void adjust(devd::ServerOptions& o) const override { o.max_clients = 2; }
};

TEST_F(DevdTwoClients, AConnectionBeyondTheLimitIsClosedAtOnce) {
  {
    Raw a(server->port()), b(server->port());
    a.hello();
    b.hello();
    Raw c(server->port());
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_TRUE(c.closed_by_server());
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 400ms);  // not the handshake timeout
    EXPECT_EQ(server->stats().refused, 1u);
  }
  std::this_thread::sleep_for(200ms);  // the server sees a and b go
  run_matvec();
  EXPECT_EQ(server->stats().refused, 1u);
}

// The first IPv4 address of this host that is not loopback (0 when there is none).
in_addr_t non_loopback_address() {
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return 0;
  in_addr_t found = 0;
  for (ifaddrs* i = list; i && !found; i = i->ifa_next) {
    if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET) continue;
    const in_addr_t a = reinterpret_cast<const sockaddr_in*>(i->ifa_addr)->sin_addr.s_addr;
    if ((ntohl(a) >> 24) != 127) found = a;
  }
  ::freeifaddrs(list);
  return found;
}

// The default listens on loopback only: the host's other address refuses the connection
// (and with --listen 0.0.0.0 the same address is served, so the check can fail).
TEST(DevdListen, LoopbackOnlyByDefault) {
  const in_addr_t outside = non_loopback_address();
  if (!outside) GTEST_SKIP() << "this host has no IPv4 address but loopback";
  for (const bool everywhere : {false, true}) {
    devd::ServerOptions o;
    o.devices = {{"emu0", "emu-native"}};
    o.token = kToken;
    o.log = nullptr;
    if (everywhere) o.listen = "0.0.0.0";
    devd::Server server(o);
    std::thread t([&] { server.run(); });
    {
      Raw inside(server.port());
      Raw other(server.port(), outside);
      if (everywhere) {
        EXPECT_EQ(other.connect_error(), 0) << std::strerror(other.connect_error());
      } else {
        EXPECT_EQ(other.connect_error(), ECONNREFUSED) << std::strerror(other.connect_error());
      }
    }
    server.stop();
    t.join();
  }
}

// TLS: the client trusts the server's certificate and checks its address against it; a
// plain client, and a client trusting another certificate, are refused.
class DevdTls : public DevdServer {
 protected:
  bool tls() const override { return true; }
};

TEST_F(DevdTls, ATrustingClientRunsOverTls) {
  run_matvec();
  run_matvec("emu1");
  EXPECT_EQ(server->stats().auth_failures, 0u);
  EXPECT_TRUE(leases_become(0));
}

TEST_F(DevdTls, PlainAndUntrustingClientsAreRefused) {
  // Plain TCP against TLS: the server closes; the client names the lost connection.
  {
    registry::Options o;
    o.token_file = token_file;
    o.io_timeout = 3s;
    EXPECT_THAT([&] { registry::open(uri(), o); }, ::testing::Throws<std::exception>());
  }
  // A client that trusts another certificate.
  const std::string other = (dir / "other.pem").string();
  make_certificate(other, (dir / "other-key.pem").string(), "127.0.0.1");
  EXPECT_THAT([&] { open("", 10s, other); },
              ::testing::ThrowsMessage<std::runtime_error>(HasSubstr("TLS handshake failed")));
  // A certificate for another address.
  const std::string wrong = (dir / "wrong.pem").string();
  make_certificate(wrong, (dir / "wrong-key.pem").string(), "10.1.2.3");
  EXPECT_THAT([&] { open("", 10s, wrong); },
              ::testing::ThrowsMessage<std::runtime_error>(HasSubstr("TLS handshake failed")));
  EXPECT_EQ(server->leases_held(), 0u);
  run_matvec();
}

}  // namespace
}  // namespace tessera::testing
