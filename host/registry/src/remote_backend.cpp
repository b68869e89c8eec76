// remote://HOST:PORT[/NAME]: a device leased from a tessera-devd (docs/devd.md). Each call is
// one request and one reply; a DMA larger than a frame goes as chunks, all sent before any
// reply is read, so it costs one round trip. Every wait is bounded (Options::io_timeout);
// a lost connection or a refused request is a DeviceError naming the server.
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <cstdlib>
#include <optional>

#include "tessera/devd/protocol.h"
#include "tessera/devd/token.h"
#include "tessera/device/dma_chunks.h"
#include "tessera/registry/registry.h"

namespace tessera::registry {

namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using namespace std::chrono_literals;

class RemoteDevice final : public device::Device {
 public:
  RemoteDevice(const DeviceUri& uri, const Options& o) : where_(uri.text), o_(o) {
    const RemoteAddress a = parse_remote(uri);
    std::string token_file = o.token_file;
    if (token_file.empty())
      if (const char* env = std::getenv("TESSERA_DEVD_TOKEN_FILE")) token_file = env;
    if (token_file.empty())
      throw std::runtime_error(where_ +
                               ": no token: give --token-file FILE or set TESSERA_DEVD_TOKEN_FILE");
    const std::string token = devd::read_token_file(token_file, false);
    std::string ca = o.tls_ca_file;
    if (ca.empty())
      if (const char* env = std::getenv("TESSERA_DEVD_TLS_CA")) ca = env;
    connect(a.host, a.port, ca);
    devd::Hello h;
    h.token = token;
    const auto w = [&] {
      try {
        return call<devd::Welcome>(devd::Request{h}, "HELLO");
      } catch (const device::DeviceError& e) {
        if (tls_ || std::string(e.what()).find("connection was lost") == std::string::npos) throw;
        throw device::DeviceError(std::string(e.what()) +
                                  " (a server with TLS closes plain connections: give --tls-ca)");
      }
    }();
    max_frame_ = w.max_frame;
    const auto l = call<devd::Leased>(
        devd::Request{devd::Lease{a.name, static_cast<uint32_t>(o.lease_timeout.count())}}, "LEASE",
        o.lease_timeout + o.io_timeout);
    where_ = "remote device '" + l.name + "' at " + a.host + ":" + std::to_string(a.port);
  }

  ~RemoteDevice() override {
    boost::system::error_code ignored;
    sock().close(ignored);  // the server releases the lease
  }

  void configure(std::string_view target, std::span<const std::byte> firmware) override {
    call<devd::Done>(
        devd::Request{devd::Configure{std::string(target), {firmware.begin(), firmware.end()}}},
        "CONFIGURE");
  }
  uint32_t read_reg(uint32_t offset) override {
    device::RegOp op = device::RegOp::read(offset);
    reg_batch(std::span(&op, 1));
    return op.value;
  }
  void write_reg(uint32_t offset, uint32_t value) override {
    device::RegOp op = device::RegOp::write(offset, value);
    reg_batch(std::span(&op, 1));
  }
  void reg_batch(std::span<device::RegOp> ops) override {
    for (size_t at = 0; at < ops.size(); at += devd::kMaxRegOps) {
      const auto part = ops.subspan(at, std::min<size_t>(devd::kMaxRegOps, ops.size() - at));
      const auto v =
          call<devd::RegValues>(devd::Request{devd::Regs{{part.begin(), part.end()}}}, "REGS");
      if (v.values.size() != part.size())
        fail("REGS: " + std::to_string(v.values.size()) + " values for " +
             std::to_string(part.size()) + " operations");
      for (size_t i = 0; i < part.size(); ++i) part[i].value = v.values[i];
    }
  }
  void dma_write(std::span<const device::DmaSegment> segments,
                 std::span<const std::byte> host) override {
    for (const auto& s : segments)
      if (s.host_offset + s.bytes > host.size())
        throw device::DeviceError("dma_write: a segment of tile " + std::to_string(s.tile) +
                                  " reaches past the host buffer");
    std::vector<devd::Request> reqs;
    for (const auto& chunk : chunks(segments)) {
      devd::DmaWrite w;
      for (const auto& s : chunk) {
        w.segments.push_back(s);
        w.data.insert(w.data.end(), host.begin() + s.host_offset,
                      host.begin() + s.host_offset + s.bytes);
      }
      reqs.push_back(std::move(w));
    }
    pipeline(reqs, "DMA_WRITE", [](const devd::Reply&, size_t) {});
  }
  void dma_read(std::span<const device::DmaSegment> segments, std::span<std::byte> host) override {
    for (const auto& s : segments)
      if (s.host_offset + s.bytes > host.size())
        throw device::DeviceError("dma_read: a segment of tile " + std::to_string(s.tile) +
                                  " reaches past the host buffer");
    const auto cs = chunks(segments);
    std::vector<devd::Request> reqs;
    reqs.reserve(cs.size());
    for (const auto& chunk : cs) reqs.emplace_back(std::in_place_type<devd::DmaRead>, chunk);
    pipeline(reqs, "DMA_READ", [&](const devd::Reply& r, size_t i) {
      const auto* d = std::get_if<devd::DmaData>(&r);
      if (!d || d->data.size() != device::dma_bytes(cs[i]))
        fail("DMA_READ: a reply of the wrong size");
      size_t at = 0;
      for (const auto& s : cs[i]) {
        std::memcpy(host.data() + s.host_offset, d->data.data() + at, s.bytes);
        at += s.bytes;
      }
    });
  }
  // Device memory: the bytes in frames of at most half the frame limit, one round trip.
  void dram_write(uint64_t offset, std::span<const std::byte> data) override {
    const size_t per = std::min<uint64_t>(max_frame_ - 64, 1u << 20) / 2;
    std::vector<devd::Request> reqs;
    for (size_t at = 0; at < data.size(); at += per) {
      const auto part = data.subspan(at, std::min(per, data.size() - at));
      reqs.emplace_back(devd::DramWrite{offset + at, {part.begin(), part.end()}});
    }
    pipeline(reqs, "DRAM_WRITE", [](const devd::Reply&, size_t) {});
  }
  void dram_to_tiles(std::span<const device::DmaSegment> segments) override {
    pipeline(dram_segments<devd::DramToTiles>(segments), "DRAM_TO_TILES", [](const devd::Reply&, size_t) {});
  }
  void tiles_to_dram(std::span<const device::DmaSegment> segments) override {
    pipeline(dram_segments<devd::TilesToDram>(segments), "TILES_TO_DRAM", [](const devd::Reply&, size_t) {});
  }
  void dram_read(uint64_t offset, std::span<std::byte> out) override {
    const size_t per = std::min<uint64_t>(max_frame_ - 64, 1u << 20);
    std::vector<devd::Request> reqs;
    for (size_t at = 0; at < out.size(); at += per)
      reqs.emplace_back(devd::DramRead{offset + at, static_cast<uint32_t>(std::min(per, out.size() - at))});
    pipeline(reqs, "DRAM_READ", [&](const devd::Reply& r, size_t i) {
      const auto* d = std::get_if<devd::DmaData>(&r);
      const size_t at = i * per;
      if (!d || d->data.size() != std::min(per, out.size() - at)) fail("DRAM_READ: a reply of the wrong size");
      std::memcpy(out.data() + at, d->data.data(), d->data.size());
    });
  }
  uint32_t wait_event(uint32_t mask, std::chrono::milliseconds timeout) override {
    // The server bounds one WAIT; ask again until an event or the timeout.
    const auto end = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          end - std::chrono::steady_clock::now());
      const auto slice = std::clamp(left, 0ms, std::chrono::milliseconds(1000));
      const auto e =
          call<devd::Events>(devd::Request{devd::Wait{mask, static_cast<uint32_t>(slice.count())}},
                             "WAIT", o_.io_timeout + slice);
      if (e.events || left <= slice) return e.events;
    }
  }
  std::string error_detail() const override {
    try {
      return const_cast<RemoteDevice*>(this)
          ->call<devd::Detail>(devd::Request{devd::ErrorDetail{}}, "ERROR_DETAIL")
          .text;
    } catch (const std::exception&) {
      return {};
    }
  }

 private:
  [[noreturn]] void fail(const std::string& why) {
    broken_ = why;
    boost::system::error_code ignored;
    sock().close(ignored);
    throw device::DeviceError(where_ + ": " + why);
  }

  // Runs the io_context until `done` or the timeout; on a timeout the connection is closed.
  void run_until(const bool& done, std::chrono::milliseconds timeout, const char* what) {
    ioc_.restart();
    ioc_.run_for(timeout);
    if (!done) {
      boost::system::error_code ignored;
      sock().close(ignored);
      ioc_.restart();
      ioc_.run();  // let the cancelled operations finish
      fail(std::string(what) + ": no answer within " + std::to_string(timeout.count()) + " ms");
    }
  }

  tcp::socket& sock() { return stream_.next_layer(); }
  template <class F>
  void io(F&& f) {
    if (tls_)
      f(stream_);
    else
      f(stream_.next_layer());
  }

  void connect(const std::string& host, uint16_t port, const std::string& ca) {
    tcp::resolver resolver(ioc_);
    boost::system::error_code ec;
    const auto eps = resolver.resolve(host, std::to_string(port), ec);
    if (ec) throw std::runtime_error(where_ + ": cannot resolve '" + host + "': " + ec.message());
    bool done = false;
    asio::async_connect(sock(), eps, [&](boost::system::error_code e, const tcp::endpoint&) {
      ec = e;
      done = true;
    });
    try {
      run_until(done, o_.io_timeout, "connect");
    } catch (const device::DeviceError& e) {
      throw std::runtime_error(e.what());
    }
    if (ec) throw std::runtime_error(where_ + ": cannot connect: " + ec.message());
    sock().set_option(tcp::no_delay(true));
    if (ca.empty()) return;
    // TLS: the server's certificate must chain to `ca` and name `host`.
    tls_ = true;
    ssl_.set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                     asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
                     asio::ssl::context::no_tlsv1_1);
    ssl_.load_verify_file(ca, ec);
    if (ec) throw std::runtime_error(where_ + ": TLS CA file '" + ca + "': " + ec.message());
    stream_.set_verify_mode(asio::ssl::verify_peer);
    stream_.set_verify_callback(asio::ssl::host_name_verification(host));
    SSL_set_tlsext_host_name(stream_.native_handle(), host.c_str());
    done = false;
    stream_.async_handshake(asio::ssl::stream_base::client, [&](boost::system::error_code e) {
      ec = e;
      done = true;
    });
    try {
      run_until(done, o_.io_timeout, "TLS handshake");
    } catch (const device::DeviceError& e) {
      throw std::runtime_error(e.what());
    }
    if (ec) throw std::runtime_error(where_ + ": TLS handshake failed: " + ec.message());
  }

  void send(const std::vector<std::vector<std::byte>>& frames, const char* what) {
    std::vector<asio::const_buffer> bufs;
    for (const auto& f : frames) bufs.push_back(asio::buffer(f));
    boost::system::error_code ec;
    bool done = false;
    io([&](auto& stream) {
      asio::async_write(stream, bufs, [&](boost::system::error_code e, size_t) {
        ec = e;
        done = true;
      });
    });
    run_until(done, o_.io_timeout, what);
    if (ec) fail(std::string(what) + ": sending failed: " + ec.message());
  }

  devd::Reply receive(const char* what, std::chrono::milliseconds timeout) {
    std::array<std::byte, devd::kFrameHeader> h{};
    std::vector<std::byte> body;
    boost::system::error_code ec;
    bool done = false;
    io([&](auto& stream) {
      asio::async_read(stream, asio::buffer(h), [&](boost::system::error_code e, size_t) {
        ec = e;
        if (e) {
          done = true;
          return;
        }
        uint32_t n = 0;
        try {
          n = devd::frame_length(std::span<const std::byte, devd::kFrameHeader>(h), max_frame_);
        } catch (const devd::ProtocolError& pe) {
          ec = asio::error::invalid_argument;
          done = true;
          return;
        }
        body.resize(n);
        asio::async_read(stream, asio::buffer(body), [&](boost::system::error_code e2, size_t) {
          ec = e2;
          done = true;
        });
      });
    });
    run_until(done, timeout, what);
    if (ec) fail(std::string(what) + ": the connection was lost (" + ec.message() + ")");
    try {
      return devd::parse_reply(body);
    } catch (const devd::ProtocolError& e) {
      fail(std::string(what) + ": a malformed reply: " + e.what());
    }
  }

  // A reply of type R, or the server's error as a DeviceError.
  template <class R>
  R expect(devd::Reply r, const char* what) {
    if (auto* e = std::get_if<devd::Error>(&r)) {
      if (e->code == devd::ErrorCode::kProtocol || e->code == devd::ErrorCode::kAuth)
        fail(std::string(what) + ": " + e->message);
      throw device::DeviceError(where_ + ": " + e->message);
    }
    if (auto* x = std::get_if<R>(&r)) return std::move(*x);
    fail(std::string(what) + ": an unexpected reply");
  }

  template <class R>
  R call(const devd::Request& req, const char* what,
         std::optional<std::chrono::milliseconds> timeout = {}) {
    if (!broken_.empty())
      throw device::DeviceError(where_ + ": the connection is closed (" + broken_ + ")");
    std::vector<std::vector<std::byte>> f;
    try {
      f.push_back(devd::encode(req, max_frame_));
    } catch (const devd::ProtocolError& e) {
      throw device::DeviceError(where_ + ": " + e.what());
    }
    send(f, what);
    return expect<R>(receive(what, timeout.value_or(o_.io_timeout)), what);
  }

  // Every request sent, then every reply read (one round trip); the first error thrown after.
  template <class OnReply>
  void pipeline(const std::vector<devd::Request>& reqs, const char* what, OnReply on_reply) {
    if (!broken_.empty())
      throw device::DeviceError(where_ + ": the connection is closed (" + broken_ + ")");
    std::vector<std::vector<std::byte>> frames;
    for (const auto& r : reqs) frames.push_back(devd::encode(r, max_frame_));
    send(frames, what);
    std::optional<std::string> first_error;
    for (size_t i = 0; i < reqs.size(); ++i) {
      devd::Reply r = receive(what, o_.io_timeout);
      if (auto* e = std::get_if<devd::Error>(&r)) {
        if (e->code == devd::ErrorCode::kProtocol || e->code == devd::ErrorCode::kAuth)
          fail(std::string(what) + ": " + e->message);
        if (!first_error) first_error = e->message;
        continue;
      }
      if (!first_error) on_reply(r, i);
    }
    if (first_error) throw device::DeviceError(where_ + ": " + *first_error);
  }

  // Device memory segments as requests of type M: 20 bytes a segment, within the frame limit.
  template <class M>
  std::vector<devd::Request> dram_segments(std::span<const device::DmaSegment> segments) const {
    const size_t per = std::clamp<size_t>((max_frame_ - 64) / 20, 1, devd::kMaxSegments);
    std::vector<devd::Request> reqs;
    for (size_t at = 0; at < segments.size(); at += per)
      reqs.emplace_back(M{{segments.begin() + at, segments.begin() + std::min(segments.size(), at + per)}});
    return reqs;
  }

  std::vector<std::vector<device::DmaSegment>> chunks(
      std::span<const device::DmaSegment> segments) const {
    // A chunk's frame: its data and 12 bytes per segment, within the frame limit.
    const uint64_t budget = std::min<uint64_t>(max_frame_ - 64, 1u << 20);
    auto cs = device::dma_chunks(segments, budget / 2);
    std::vector<std::vector<device::DmaSegment>> out;
    for (auto& c : cs) {  // keep the segment headers within the other half
      const size_t per = std::max<size_t>(1, budget / 2 / 12);
      for (size_t at = 0; at < c.size(); at += per)
        out.emplace_back(c.begin() + at, c.begin() + std::min(c.size(), at + per));
    }
    return out;
  }

  std::string where_;
  Options o_;
  asio::io_context ioc_;
  asio::ssl::context ssl_{asio::ssl::context::tls_client};
  asio::ssl::stream<tcp::socket> stream_{ioc_, ssl_};
  bool tls_ = false;
  uint32_t max_frame_ = devd::kMinMaxFrame;
  std::string broken_;
};

}  // namespace

std::unique_ptr<device::Device> make_remote(const DeviceUri& uri, const Options& options) {
  return std::make_unique<RemoteDevice>(uri, options);
}

}  // namespace tessera::registry
