// One connection: read a frame (its length checked before the body is allocated, each read
// under a deadline), parse it, answer it, read the next. Device operations go to the pool;
// the connection reads nothing more until their reply is written, so requests run in order.
#include "server_impl.h"

namespace tessera::devd {

Session::Session(Server::Impl& server, tcp::socket sock)
    : s_(server), stream_(std::move(sock), server.ssl), deadline_(s_.ioc), lease_timer_(s_.ioc) {
  boost::system::error_code ec;
  stream_.next_layer().set_option(tcp::no_delay(true), ec);  // replies are small: no Nagle delay
  const auto ep = stream_.next_layer().remote_endpoint(ec);
  peer_ = ec ? std::string("?") : ep.address().to_string() + ":" + std::to_string(ep.port());
}

void Session::start() {
  s_.log(peer_, "connected");
  if (!s_.tls) return read_header();
  arm(s_.o.handshake_timeout, "in the TLS handshake");
  stream_.async_handshake(asio::ssl::stream_base::server,
                          [self = shared_from_this()](boost::system::error_code ec) {
                            if (self->closed_) return;
                            if (ec) {
                              ++self->s_.stats.auth_failures;
                              return self->close("TLS handshake failed: " + ec.message());
                            }
                            self->read_header();
                          });
}

void Session::arm(std::chrono::milliseconds t, const char* what) {
  deadline_.expires_after(t);
  deadline_.async_wait([self = shared_from_this(), what](boost::system::error_code ec) {
    if (ec || self->closed_) return;
    ++self->s_.stats.timeouts;
    self->close(std::string("timed out ") + what);
  });
}

void Session::read_header() {
  if (closed_) return;
  arm(authed_ ? s_.o.idle_timeout : s_.o.handshake_timeout,
      authed_ ? "idle between frames" : "before HELLO");
  io([&](auto& stream) {
    asio::async_read(
        stream, asio::buffer(header_),
        [self = shared_from_this()](boost::system::error_code ec, size_t) {
          if (self->closed_) return;
          if (ec)  // a TLS client that closes without close_notify ends its stream "truncated"
            return self->close(ec == asio::error::eof || ec == asio::ssl::error::stream_truncated
                                   ? "disconnected"
                                   : "read failed: " + ec.message());
          uint32_t n = 0;
          try {
            // Before HELLO only a HELLO-sized frame: no allocation for a peer without the token.
            n = frame_length(std::span<const std::byte, kFrameHeader>(self->header_),
                             self->authed_ ? self->s_.o.max_frame : kMaxHelloFrame);
          } catch (const ProtocolError& e) {
            return self->protocol_error(e.what());
          }
          self->read_body(n);
        });
  });
}

void Session::read_body(uint32_t length) {
  arm(s_.o.frame_timeout, "in the middle of a frame");
  body_.assign(length, std::byte{0});
  io([&](auto& stream) {
    asio::async_read(
        stream, asio::buffer(body_),
        [self = shared_from_this()](boost::system::error_code ec, size_t) {
          if (self->closed_) return;
          if (ec) return self->close("disconnected in the middle of a frame: " + ec.message());
          self->deadline_.cancel();
          self->handle();
        });
  });
}

void Session::handle() {
  ++s_.stats.requests;
  Request r;
  try {
    r = parse_request(body_);
  } catch (const ProtocolError& e) {
    return protocol_error(e.what());
  }
  body_ = {};
  dispatch(r);
}

void Session::protocol_error(const std::string& what) {
  ++s_.stats.protocol_errors;
  s_.log(peer_, "protocol error: " + what);
  reply(Error{ErrorCode::kProtocol, what}, true);
}

void Session::dispatch(Request& r) {
  if (auto* h = std::get_if<Hello>(&r)) return hello(*h);
  if (!authed_) {
    ++s_.stats.auth_failures;
    return reply(Error{ErrorCode::kAuth, "HELLO with the token first"}, true);
  }
  if (auto* l = std::get_if<Lease>(&r)) return lease(*l);
  if (std::holds_alternative<Release>(r)) {
    if (!lease_) return reply(Error{ErrorCode::kState, "RELEASE: no device is leased"});
    Slot& slot = *lease_;
    lease_ = nullptr;
    s_.log(peer_, "released " + slot.served.name);
    s_.release(slot);
    return reply(Done{Type::kRelease});
  }
  if (!lease_) return reply(Error{ErrorCode::kState, "lease a device first (LEASE)"});
  device_op(std::move(r));
}

void Session::hello(const Hello& h) {
  if (authed_) return reply(Error{ErrorCode::kState, "HELLO twice"});
  if (h.min_version > kVersion || h.max_version < kVersion) {
    ++s_.stats.auth_failures;
    return reply(
        Error{ErrorCode::kAuth, "the client speaks versions " + std::to_string(h.min_version) +
                                    " to " + std::to_string(h.max_version) + ", this server " +
                                    std::to_string(kVersion)},
        true);
  }
  if (!tokens_equal(s_.o.token, h.token)) {
    ++s_.stats.auth_failures;
    s_.log(peer_, "wrong token");
    return reply(Error{ErrorCode::kAuth, "wrong token"}, true);
  }
  authed_ = true;
  Welcome w;
  w.version = kVersion;
  w.max_frame = s_.o.max_frame;
  for (const Slot& slot : s_.slots) w.devices.push_back(slot.served.name);
  reply(w);
}

void Session::lease(const Lease& l) {
  if (lease_)
    return reply(
        Error{ErrorCode::kState, "LEASE: this connection already holds " + lease_->served.name});
  Slot* slot = s_.find_slot(l.name);
  if (!slot) {
    std::string names;
    for (const Slot& x : s_.slots) names += (names.empty() ? "" : ", ") + x.served.name;
    return reply(Error{ErrorCode::kUnknown, "no device '" + l.name + "' (devices: " + names + ")"});
  }
  if (!slot->holder && slot->queue.empty()) return grant(*slot);
  // Queue, with a timeout.
  waiting_ = true;
  slot->queue.push_back(weak_from_this());
  const auto wait = std::min(std::chrono::milliseconds(l.wait_ms), s_.o.max_lease_wait);
  s_.log(peer_,
         "waits for " + slot->served.name + " (up to " + std::to_string(wait.count()) + " ms)");
  lease_timer_.expires_after(wait);
  lease_timer_.async_wait([self = shared_from_this(), slot, wait](boost::system::error_code ec) {
    if (ec || !self->waiting_ || self->closed_) return;
    self->waiting_ = false;
    std::erase_if(slot->queue, [&](const std::weak_ptr<Session>& w) { return w.lock() == self; });
    self->reply(Error{ErrorCode::kBusy, "device '" + slot->served.name +
                                            "' stayed leased by another client for " +
                                            std::to_string(wait.count()) + " ms"});
  });
}

void Session::grant(Slot& slot) {
  waiting_ = false;
  lease_timer_.cancel();
  slot.holder = this;
  lease_ = &slot;
  ++s_.stats.leases;
  ++s_.held;
  s_.log(peer_, "leased " + slot.served.name);
  reply(Leased{slot.served.name});
}

void Session::device_op(Request r) {
  busy_ = true;
  asio::post(s_.pool, [self = shared_from_this(), r = std::move(r)]() mutable {
    Reply rep = run_device_request(self->lease_->device.get(), r, self->s_.o);
    asio::post(self->s_.ioc, [self, rep = std::move(rep)] {
      self->busy_ = false;
      if (self->closed_) {
        self->close("");  // releases the lease now that the device is idle
        return;
      }
      self->reply(rep);
    });
  });
}

void Session::reply(const Reply& r, bool close_after) {
  if (closed_) return;
  auto bytes = std::make_shared<std::vector<std::byte>>();
  try {
    *bytes = encode(r, 0xffffffffu);
  } catch (const ProtocolError& e) {
    *bytes = encode(Reply{Error{ErrorCode::kDevice, e.what()}});
  }
  arm(s_.o.frame_timeout, "writing a reply");
  io([&](auto& stream) {
    asio::async_write(
        stream, asio::buffer(*bytes),
        [self = shared_from_this(), bytes, close_after](boost::system::error_code ec, size_t) {
          if (self->closed_) return;
          if (ec) return self->close("write failed: " + ec.message());
          if (close_after) return self->close("closed after an error");
          self->read_header();
        });
  });
}

void Session::close(const std::string& why) {
  if (!closed_) {
    closed_ = true;
    if (!why.empty()) s_.log(peer_, why);
    boost::system::error_code ignored;
    stream_.next_layer().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.next_layer().close(ignored);
    deadline_.cancel();
    lease_timer_.cancel();
    waiting_ = false;
  }
  // A queued wait leaves its queue when the queue reaches it (the weak pointer or waiting()
  // says it is gone); a lease is released once no device operation runs on it.
  if (lease_ && !busy_) {
    Slot& slot = *lease_;
    lease_ = nullptr;
    s_.log(peer_, "lease of " + slot.served.name + " released (connection closed)");
    s_.release(slot);
  }
}

}  // namespace tessera::devd
