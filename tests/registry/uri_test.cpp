// The registry's URIs: each backend by name, remote://HOST:PORT[/NAME] taken apart, and every
// malformed or unknown URI refused with a message naming it and what is wrong.
#include <gmock/gmock.h>

#include "tessera/registry/registry.h"

namespace tessera::registry {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

TEST(Uri, RemoteTakesHostPortAndName) {
  RemoteAddress a = parse_remote(parse_uri("remote://card-host.lan:7070/u250-0"));
  EXPECT_EQ(a.host, "card-host.lan");
  EXPECT_EQ(a.port, 7070);
  EXPECT_EQ(a.name, "u250-0");
  a = parse_remote(parse_uri("remote://127.0.0.1:1"));
  EXPECT_EQ(a.host, "127.0.0.1");
  EXPECT_EQ(a.port, 1);
  EXPECT_EQ(a.name, "");
  a = parse_remote(parse_uri("remote://[::1]:65535/x"));
  EXPECT_EQ(a.host, "::1");
  EXPECT_EQ(a.port, 65535);
  EXPECT_EQ(a.name, "x");
}

TEST(Uri, MalformedRemoteUrisNameWhatIsWrong) {
  auto bad = [](const char* uri, const char* why) {
    EXPECT_THAT([&] { parse_remote(parse_uri(uri)); },
                ::testing::ThrowsMessage<std::invalid_argument>(
                    AllOf(HasSubstr(std::string("'") + uri + "'"), HasSubstr(why))))
        << uri;
  };
  bad("remote://", "no host and port");
  bad("remote://host", "no port");
  bad("remote://:80", "empty host");
  bad("remote://host:0", "port 0");
  bad("remote://host:65536", "port 65536");
  bad("remote://host:8x", "port '8x'");
  bad("remote://host:123456", "port '123456'");
  bad("remote://host:80/", "1 to 64 characters");
  bad("remote://host:80/a/b", "device name 'a/b'");
  bad("remote://ho%st:80", "'ho%st' is not a host");
  bad("remote://[::1:80", "without ']'");
}

TEST(Uri, EmptyOddAndUnknownDevicesAreRefused) {
  EXPECT_THAT([] { check_uri(""); },
              ::testing::ThrowsMessage<std::invalid_argument>(HasSubstr("empty")));
  EXPECT_THAT([] { check_uri("emu native"); },
              ::testing::ThrowsMessage<std::invalid_argument>(HasSubstr("a space")));
  EXPECT_THAT([] { check_uri("://x"); },
              ::testing::ThrowsMessage<std::invalid_argument>(HasSubstr("SCHEME://")));
  EXPECT_THAT([] { check_uri("gpu"); },
              ::testing::ThrowsMessage<std::invalid_argument>(
                  AllOf(HasSubstr("unknown device 'gpu'"), HasSubstr("emu-native"))));
  EXPECT_THAT([] { check_uri("emu://x"); },
              ::testing::ThrowsMessage<std::invalid_argument>(HasSubstr("takes no address")));
  EXPECT_THAT([] { open("tpu:0"); },
              ::testing::ThrowsMessage<std::invalid_argument>(HasSubstr("unknown device 'tpu'")));
  // xrt[:N]: a card index of digits, and an xclbin to open it with.
  EXPECT_THAT([] { open("xrt:0"); }, ::testing::ThrowsMessage<std::invalid_argument>(HasSubstr("needs --xclbin")));
  EXPECT_THAT([] { check_uri("xrt:x"); }, ::testing::ThrowsMessage<std::invalid_argument>(HasSubstr("card index")));
  EXPECT_NO_THROW(check_uri("xrt"));
  EXPECT_NO_THROW(check_uri("xrt:2"));
  EXPECT_NO_THROW(check_uri("emu"));
  EXPECT_NO_THROW(check_uri("emu-native"));
}

TEST(Registry, ABackendRegistersInTheTable) {
  struct Nothing final : device::Device {
    uint32_t read_reg(uint32_t) override { return 42; }
    void write_reg(uint32_t, uint32_t) override {}
    void dma_write(std::span<const device::DmaSegment>, std::span<const std::byte>) override {}
    void dma_read(std::span<const device::DmaSegment>, std::span<std::byte>) override {}
    uint32_t wait_event(uint32_t, std::chrono::milliseconds) override { return 0; }
  };
  std::string seen;
  add_backend({"test-card", "test-card:N", "a card for this test",
               [&](const DeviceUri& u, const Options&) -> std::unique_ptr<device::Device> {
                 seen = u.text;
                 return std::make_unique<Nothing>();
               }});
  auto d = open("test-card:3");
  EXPECT_EQ(seen, "test-card:3");
  EXPECT_EQ(d->read_reg(0), 42u);
  EXPECT_THAT(usages(), HasSubstr("test-card:N"));
  // The default batch loops over the device's own registers.
  std::vector<device::RegOp> ops{device::RegOp::read(0), device::RegOp::write(4, 1)};
  d->reg_batch(ops);
  EXPECT_EQ(ops[0].value, 42u);
  // A device configured when built refuses configure().
  EXPECT_THAT([&] { d->configure("small", {}); },
              ::testing::ThrowsMessage<device::DeviceError>(HasSubstr("'small'")));
}

}  // namespace
}  // namespace tessera::registry
