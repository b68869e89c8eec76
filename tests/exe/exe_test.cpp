// The executable file: the round trip is exact, and every class of damage or mismatch is
// refused with an error that names the file, the section and the problem.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "synthetic.h"
#include "tessera/arch/arch_hash.h"
#include "tessera/arch/targets.h"

namespace tessera::exe::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// The ExeError message of loading `e` after writing it.
std::string error_of(const Executable& e) { return load_error(serialize(e)); }

TEST(ExeRoundTrip, EveryFieldSurvivesBitForBit) {
  const Executable e = synthetic();
  ASSERT_NO_THROW(verify(e, "synthetic"));
  const std::vector<uint8_t> bytes = serialize(e);
  const Executable back = deserialize(bytes, "model.tsx");
  EXPECT_EQ(back, e);
  EXPECT_EQ(serialize(back), bytes) << "serialize is deterministic and lossless";
  EXPECT_EQ(back.exchange_bytes, (1ull << 40) + 3);
  EXPECT_EQ(back.op_names.back(), "") << "empty strings survive";
}

TEST(ExeRoundTrip, FileAndFinders) {
  const Executable e = synthetic();
  const auto path = std::filesystem::temp_directory_path() / ("tessera_exe_test_" + std::to_string(getpid()) + ".tsx");
  write_file(e, path);
  const Executable back = read_file(path);
  std::filesystem::remove(path);
  EXPECT_EQ(back, e);
  ASSERT_NE(back.find_tensor("w1"), nullptr);
  EXPECT_EQ(back.find_tensor("w1")->intervals.size(), 4u);
  EXPECT_EQ(back.find_program("train")->streams.size(), 3u);
  EXPECT_EQ(back.find_stream("output")->direction, StreamDirection::kDeviceToHost);
  EXPECT_EQ(back.find_tensor("nope"), nullptr);
  EXPECT_EQ(dtype_bytes(DType::kU8), 1u);
  EXPECT_STREQ(dtype_name(DType::kI32), "i32");
  EXPECT_THROW(read_file("/nonexistent/model.tsx"), ExeError);
}

// A file cut short on disk is refused with an error naming it, and so is a file that
// shrinks or is rewritten while it is being read: the reader copies the file with read(),
// it does not map it, so no truncation can reach it as SIGBUS (it did when it mapped).
TEST(ExeErrors, FileTruncatedOnDiskOrWhileRead) {
  Executable e = synthetic();
  for (uint32_t tile = 0; tile < e.tiles; ++tile)  // 768 KB of segments: a longer read to race with
    e.segments.push_back({tile, 0x80011000, std::vector<uint8_t>(48 << 10, uint8_t(tile))});
  const std::vector<uint8_t> good = serialize(e);
  const auto path = std::filesystem::temp_directory_path() / ("tessera_exe_cut_" + std::to_string(getpid()) + ".tsx");
  const std::string name = path.string();
  const auto write = [&](size_t n) {
    std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(good.data()), long(n));
  };
  for (const size_t n : {size_t(0), size_t(7), good.size() / 2, good.size() - 1}) {
    write(n);
    try {
      read_file(path);
      ADD_FAILURE() << "a file of " << n << " of " << good.size() << " bytes loaded";
    } catch (const ExeError& err) {
      EXPECT_THAT(err.what(), StartsWith(name + ": ")) << n;
    }
  }
  write(good.size());
  EXPECT_EQ(read_file(path), e);

  // One thread cuts the file to a random length and writes it whole again, over and over,
  // while this one reads it: every read gives the executable or an ExeError.
  std::atomic<bool> stop{false};
  std::thread cutter([&] {
    std::mt19937 rng(20);
    while (!stop) {
      std::filesystem::resize_file(path, rng() % good.size());
      write(good.size());
    }
  });
  int loaded = 0, refused = 0;
  for (int i = 0; i < 300; ++i) {
    try {
      EXPECT_EQ(read_file(path), e);
      ++loaded;
    } catch (const ExeError& err) {
      EXPECT_THAT(err.what(), StartsWith(name + ": "));
      ++refused;
    }
  }
  stop = true;
  cutter.join();
  std::filesystem::remove(path);
  EXPECT_EQ(loaded + refused, 300);
  RecordProperty("loaded", loaded);
  RecordProperty("refused", refused);
}

TEST(ExeRoundTrip, EmptySectionsLoad) {
  Executable e = synthetic();
  e.segments.clear();
  e.tensors.clear();
  e.streams.clear();
  e.programs.clear();
  e.vertices.clear();
  e.op_names.clear();
  e.layer_names.clear();
  EXPECT_EQ(deserialize(serialize(e), "x"), e);
}

TEST(ExeErrors, BadIdentifier) {
  std::vector<uint8_t> bytes = serialize(synthetic());
  std::copy_n("ELF!", 4, bytes.begin() + 4);
  EXPECT_EQ(load_error(bytes), "model.tsx: not a Tessera executable (file identifier 'ELF!', expected 'TSX1')");
}

TEST(ExeErrors, Version) {
  const auto bytes = edited(synthetic(), [](fb::Executable& r) { r.mutate_format_version(kFormatVersion + 1); });
  EXPECT_THAT(load_error(bytes), StartsWith("model.tsx: format version 6, this build reads version 5: recompile"));
  // A file of the previous version (device runs one row each) is refused the same way.
  const auto old = edited(synthetic(), [](fb::Executable& r) { r.mutate_format_version(4); });
  EXPECT_THAT(load_error(old), StartsWith("model.tsx: format version 4, this build reads version 5: recompile"));
}

TEST(ExeErrors, ArchHash) {
  Executable e = synthetic();
  e.arch_hash = 0x1234abcd;
  char want[128];
  std::snprintf(want, sizeof want, "model.tsx: built for arch 0x1234abcd, this build is 0x%08x: recompile", arch::kArchHash);
  EXPECT_EQ(error_of(e), want);
}

TEST(ExeErrors, Target) {
  Executable e = synthetic();
  e.target = "huge";
  EXPECT_THAT(error_of(e), StartsWith("model.tsx: unknown target 'huge' (this build knows "));
  e = synthetic();
  e.target_hash ^= 1;
  EXPECT_THAT(error_of(e), AllOf(StartsWith("model.tsx: target 'small' hash 0x"),
                                 HasSubstr("arch/targets/small.toml changed since the compile; recompile")));
  e = synthetic();
  e.tiles = 4;
  EXPECT_EQ(error_of(e), "model.tsx: header: 4 tiles, target 'small' has 16");
  e = synthetic();
  e.memory.pop_back();
  EXPECT_EQ(error_of(e), "model.tsx: memory: 15 entries for 16 tiles");
}

TEST(ExeErrors, FirmwareHash) {
  Executable e = synthetic();
  e.firmware[3] ^= 0x40;  // the file is self-consistent, the firmware is not what was hashed
  EXPECT_THAT(error_of(e), StartsWith("model.tsx: firmware: hash 0x"));
  e.firmware.clear();
  EXPECT_EQ(error_of(e), "model.tsx: firmware: missing");
}

// One byte of each section changed on disk, checksums left alone.
TEST(ExeErrors, SectionChecksums) {
  const std::vector<uint8_t> good = serialize(synthetic());
  const fb::Executable& r = *fb::GetExecutable(good.data());
  auto flip = [&](const void* p, const char* section) {
    std::vector<uint8_t> bad = good;
    bad[static_cast<const uint8_t*>(p) - good.data()] ^= 0x01;
    EXPECT_THAT(load_error(bad), StartsWith(std::string("model.tsx: section '") + section + "': checksum 0x"))
        << section;
  };
  flip(r.segment_data()->data() + 5, "segments");
  flip(r.segments()->Get(2), "segments");
  flip(r.tensors()->Get(1)->intervals()->Get(0), "tensors");
  flip(r.tensors()->Get(0)->name()->c_str(), "tensors");
  flip(r.streams()->Get(1)->shape()->data(), "streams");
  flip(r.programs()->Get(1)->tile_program()->data(), "programs");
  flip(r.op_names()->Get(0)->c_str(), "debug");
  flip(r.vertices()->Get(99), "debug");
  flip(r.memory()->Get(15), "memory");
  flip(r.device_memory()->data() + 70, "device_memory");
  flip(reinterpret_cast<const flatbuffers::Table&>(r).GetAddressOf(fb::Executable::VT_DEVICE_MEMORY_ZEROS),
       "device_memory");
  flip(r.device_parameters()->Get(0)->runs()->Get(1), "device_memory");
  flip(r.streams()->Get(2)->name()->c_str(), "streams");
}

TEST(ExeErrors, FileChecksum) {
  std::vector<uint8_t> bad = serialize(synthetic());
  const fb::Executable& r = *fb::GetExecutable(bad.data());
  const size_t at = size_t(reinterpret_cast<const uint8_t*>(r.target()->c_str()) - bad.data());
  bad.at(at) ^= 0x20;  // "small" -> "Small"
  EXPECT_THAT(load_error(bad), StartsWith("model.tsx: file checksum 0x"));
  bad = serialize(synthetic());
  bad.resize(bad.size() + 4, 0);  // trailing bytes are damage too
  EXPECT_THAT(load_error(bad), StartsWith("model.tsx: file checksum 0x"));
}

// Two changes in one lane do not cancel: bit 63 of a word and of the lane's next word
// (32 bytes on) flipped together, as the mutation fuzzer found, and every other pair of
// single-bit flips in two consecutive words of a lane.
TEST(ExeChecksum, TwoFlipsInALaneDoNotCancel) {
  std::vector<uint8_t> bytes(96);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = uint8_t(i * 37 + 11);
  const uint32_t want = checksum(bytes.data(), bytes.size());
  for (int a = 0; a < 64; ++a)
    for (int b = 0; b < 64; ++b) {
      std::vector<uint8_t> x = bytes;
      x[8 + a / 8] ^= uint8_t(1u << (a % 8));       // lane 1, word 0
      x[40 + b / 8] ^= uint8_t(1u << (b % 8));      // lane 1, word 1
      ASSERT_NE(checksum(x.data(), x.size()), want) << "bits " << a << " and " << b;
    }
}

TEST(ExeErrors, TruncationAtEveryLength) {
  const std::vector<uint8_t> good = serialize(synthetic());
  for (size_t n = 0; n < good.size(); ++n) {
    const std::string err = load_error(std::vector<uint8_t>(good.begin(), good.begin() + long(n)));
    ASSERT_THAT(err, StartsWith("model.tsx: ")) << "length " << n;
    if (n < 8) {
      EXPECT_THAT(err, HasSubstr("truncated: ")) << n;
    }
  }
}

TEST(ExeErrors, AddressesOutOfRange) {
  Executable e = synthetic();
  e.tensors[0].intervals[3].addr = 0x90000000;
  EXPECT_EQ(error_of(e),
            "model.tsx: tensor 'w1' interval 3: address 0x90000000 outside tile 3's SRAM (0x80000000..0x8001ffff)");
  e = synthetic();
  e.tensors[0].intervals[1].addr = 0x80008002;
  EXPECT_EQ(error_of(e), "model.tsx: tensor 'w1' interval 1: address 0x80008002 not word-aligned");
  e = synthetic();
  e.tensors[0].intervals[2].tile = 16;
  EXPECT_EQ(error_of(e), "model.tsx: tensor 'w1' interval 2: tile 16 out of range (target 'small' has 16 tiles)");
  e = synthetic();
  e.streams[1].intervals[0].addr = 0x8001FFF8;  // 12 bytes from here end 4 bytes past SRAM
  EXPECT_EQ(error_of(e), "model.tsx: stream 'output' interval 0: 12 bytes at 0x8001fff8 run past the end of tile 15's "
                         "SRAM (0x80000000..0x8001ffff)");
  e = synthetic();
  e.segments[4].addr = 0x80000100;
  EXPECT_EQ(error_of(e), "model.tsx: segment 4: address 0x80000100 below the tile header at 0x80004000 (firmware space)");
  e = synthetic();
  e.segments[32].bytes.resize(6);
  EXPECT_EQ(error_of(e), "model.tsx: segment 32: 6 bytes, not a multiple of 4");
  e = synthetic();
  e.segments[3].addr = kHeader + 16;  // tile 1: header segment and this one overlap
  EXPECT_THAT(error_of(e), StartsWith("model.tsx: segment 3: tile 1 address 0x80004010 overlaps segment 2"));
  e = synthetic();
  e.programs[1].tile_program[9] = 0x80020000;
  EXPECT_EQ(error_of(e), "model.tsx: program 'train' tile 9: address 0x80020000 outside tile 9's SRAM "
                         "(0x80000000..0x8001ffff)");
  e = synthetic();
  e.header_addr = 0x7ffffff0;
  EXPECT_THAT(error_of(e), StartsWith("model.tsx: header: header_addr 0x7ffffff0 not a word address in SRAM"));
}

TEST(ExeErrors, TensorCoverage) {
  Executable e = synthetic();
  e.tensors[0].intervals[2].offset = 12;  // 12..19 overlaps interval 1's 8..15
  EXPECT_EQ(error_of(e), "model.tsx: tensor 'w1' interval 2: elements 12..15 already covered (overlap)");
  e = synthetic();
  e.tensors[0].intervals.erase(e.tensors[0].intervals.begin() + 1);
  EXPECT_EQ(error_of(e), "model.tsx: tensor 'w1' interval 1: elements 8..15 not covered (gap before this interval)");
  e = synthetic();
  e.tensors[0].intervals.pop_back();
  EXPECT_EQ(error_of(e), "model.tsx: tensor 'w1': intervals cover 24 of 32 elements (missing 24..31)");
  e = synthetic();
  e.tensors[2].intervals[1].count = 5;
  EXPECT_EQ(error_of(e), "model.tsx: tensor 'bytes' interval 1: elements up to 12 past the end (12 elements)");
  e = synthetic();
  e.tensors[1].intervals[0].count = 0;
  EXPECT_EQ(error_of(e), "model.tsx: tensor 'bias' interval 0: empty");
  e = synthetic();
  e.tensors[1].shape = {65536, 65536};
  EXPECT_EQ(error_of(e), "model.tsx: tensor 'bias': shape has 2^32 or more elements");
  e = synthetic();
  e.tensors[1].name = "w1";
  EXPECT_EQ(error_of(e), "model.tsx: tensor 'w1': name used twice");
  e = synthetic();
  e.tensors[2].live.pop_back();
  EXPECT_EQ(error_of(e), "model.tsx: tensor 'bytes': 1 live ranges for 2 intervals");
  e = synthetic();
  e.tensors[2].live[1] = {5, 4};
  EXPECT_EQ(error_of(e), "model.tsx: tensor 'bytes': interval 1 live from step 5 to 4");
}

TEST(ExeErrors, IndicesOutOfRange) {
  Executable e = synthetic();
  e.programs[0].streams[1] = 3;
  EXPECT_EQ(error_of(e), "model.tsx: program 'infer': stream 1 is index 3, only 3 streams");
  e = synthetic();
  e.programs[0].tile_program.pop_back();
  EXPECT_EQ(error_of(e), "model.tsx: program 'infer': 15 tile addresses for 16 tiles");
  e = synthetic();
  e.streams[1].index = 0;
  EXPECT_EQ(error_of(e), "model.tsx: stream 'output': index 0 used twice");
  e = synthetic();
  e.vertices[42].op = 4;
  EXPECT_EQ(error_of(e), "model.tsx: debug map: vertex 42: op 4, only 4 op names");
  e = synthetic();
  e.vertices[7].layer = 2;
  EXPECT_EQ(error_of(e), "model.tsx: debug map: vertex 7: layer 2, only 2 layer names");
  e = synthetic();
  e.vertices[0].tile = 99;
  EXPECT_EQ(error_of(e), "model.tsx: debug map: vertex 0: tile 99 out of range");
}

// A stream from device memory must read bytes the image has, word aligned, and the image must
// fit the target's device memory.
TEST(ExeErrors, DeviceMemory) {
  Executable e = synthetic();
  EXPECT_EQ(deserialize(serialize(e), "model.tsx").find_stream("weights")->source_offset, 64u);
  e.streams[2].source_offset = 84;
  EXPECT_EQ(error_of(e), "model.tsx: stream 'weights': 16 bytes at offset 84 of device memory (96 bytes) are not "
                         "aligned or not all there");
  e.streams[2].source_offset = 62;
  EXPECT_THAT(error_of(e), HasSubstr("16 bytes at offset 62 of device memory (96 bytes) are not aligned"));
  e.streams[2].source_offset = ~uint64_t{0} - 3;  // no wrap-around
  EXPECT_THAT(error_of(e), HasSubstr("16 bytes at offset 18446744073709551612 of device memory"));
  e = synthetic();
  e.streams[0].source_offset = 8;
  EXPECT_EQ(error_of(e), "model.tsx: stream 'input': source offset 8 on a stream from or to the host");
  // A write back into device memory (training's updated weights) is held to the same bounds.
  e = synthetic();
  e.streams[2].direction = StreamDirection::kDeviceToDeviceMemory;
  const Executable back = deserialize(serialize(e), "model.tsx");
  EXPECT_TRUE(back.find_stream("weights")->to_device_memory());
  EXPECT_TRUE(back.find_stream("weights")->in_device_memory());
  EXPECT_STREQ(direction_name(back.find_stream("weights")->direction), "device->device memory");
  e.streams[2].source_offset = 88;
  EXPECT_EQ(error_of(e), "model.tsx: stream 'weights': 16 bytes at offset 88 of device memory (96 bytes) are not "
                         "aligned or not all there");
  e = synthetic();
  e.device_memory.resize((uint64_t{arch::find_target("small")->device_memory_mib} << 20) + 4);
  EXPECT_THAT(error_of(e), HasSubstr("model.tsx: device memory: 268435460 bytes and 0 of zeros, target 'small' has 256 MiB"));
  // Zeros after the image (velocities): kept through the file, counted in the bounds.
  e = synthetic();
  e.device_memory_zeros = 32;
  e.streams[2].source_offset = 112;  // the last 16 of 96 + 32
  EXPECT_EQ(deserialize(serialize(e), "model.tsx").device_memory_zeros, 32u);
  e.streams[2].source_offset = 116;
  EXPECT_EQ(error_of(e), "model.tsx: stream 'weights': 16 bytes at offset 116 of device memory (128 bytes) are not "
                         "aligned or not all there");
  e.streams[2].source_offset = 64;
  e.device_memory_zeros = uint64_t{256} << 20;
  EXPECT_EQ(error_of(e), "model.tsx: device memory: 96 bytes and 268435456 of zeros, target 'small' has 256 MiB");
  e.device_memory_zeros = ~uint64_t{0};  // no wrap-around
  EXPECT_THAT(error_of(e), HasSubstr("96 bytes and 18446744073709551615 of zeros"));
}

// A parameter kept in device memory: its runs cover it once, inside device memory.
TEST(ExeErrors, DeviceParameters) {
  Executable e = synthetic();
  EXPECT_EQ(deserialize(serialize(e), "model.tsx").find_device_parameter("w_dram")->runs, e.device_parameters[0].runs);
  e.device_parameters[0].runs[1].logical = 2;  // rows at 2 and 4: past the end
  EXPECT_EQ(error_of(e), "model.tsx: device parameter 'w_dram' run 1: 2 rows of 1 elements from 2 at stride 2 are "
                         "empty, overlap or pass the end (4 elements)");
  e.device_parameters[0].runs[1] = {64, 1, 2, 2, 1};  // rows overlap each other
  EXPECT_THAT(error_of(e), HasSubstr("2 rows of 2 elements from 1 at stride 1 are empty, overlap"));
  e.device_parameters[0].runs[1] = {64, 1, 1, 0, 2};
  EXPECT_THAT(error_of(e), HasSubstr("run 1: 0 rows of 1 elements"));
  e = synthetic();
  e.device_parameters[0].runs[1].logical = 0;  // column 0 twice, column 1 never
  EXPECT_EQ(error_of(e), "model.tsx: device parameter 'w_dram' run 1: element 0 is covered twice");
  e = synthetic();
  e.device_parameters[0].runs.pop_back();
  EXPECT_EQ(error_of(e), "model.tsx: device parameter 'w_dram': runs cover 2 of 4 elements");
  e = synthetic();
  e.device_parameters[0].shape = {5, 5};  // 100 bytes: more than the 96 of device memory
  EXPECT_EQ(error_of(e), "model.tsx: device parameter 'w_dram': 25 elements, more than device memory's 96 bytes hold");
  e = synthetic();
  e.device_parameters[0].runs[1].offset = 90;
  EXPECT_EQ(error_of(e), "model.tsx: device parameter 'w_dram' run 1: 8 bytes at offset 90 of device memory (96 bytes) "
                         "are not aligned or not all there");
  e.device_parameters[0].runs[1].offset = 92;  // aligned, but its second row is past the end
  EXPECT_THAT(error_of(e), HasSubstr("run 1: 8 bytes at offset 92 of device memory (96 bytes)"));
  e.device_parameters[0].runs[1].offset = ~uint64_t{0} - 3;  // no wrap-around
  EXPECT_THAT(error_of(e), HasSubstr("8 bytes at offset 18446744073709551612 of device memory"));
  e = synthetic();
  e.device_parameters[0].name = e.tensors[0].name;
  EXPECT_EQ(error_of(e), "model.tsx: device parameter '" + e.tensors[0].name + "': also the name of a tensor");
  e = synthetic();
  e.device_parameters.push_back(e.device_parameters[0]);
  EXPECT_EQ(error_of(e), "model.tsx: device parameter 'w_dram': name used twice");
}

// Edits behind intact checksums: the content checks still run on load.
TEST(ExeErrors, ResealedEditsAreStillChecked) {
  const Executable e = synthetic();
  EXPECT_EQ(load_error(edited(e, [](fb::Executable& r) {
              r.mutable_tensors()->GetMutableObject(0)->mutable_intervals()->GetMutableObject(3)->mutate_addr(0x90000000);
            })),
            "model.tsx: tensor 'w1' interval 3: address 0x90000000 outside tile 3's SRAM (0x80000000..0x8001ffff)");
  EXPECT_EQ(load_error(edited(e, [](fb::Executable& r) {
              r.mutable_segments()->GetMutableObject(1)->mutate_offset(1u << 30);
            })),
            "model.tsx: segment 1: bytes 1073741824..1073741888 outside segment_data (1544 bytes)");
  EXPECT_EQ(load_error(edited(e, [](fb::Executable& r) {
              r.mutable_tensors()->GetMutableObject(1)->mutate_dtype(fb::DType(9));
            })),
            "model.tsx: tensor 'bias': unknown dtype 9");
  EXPECT_EQ(load_error(edited(e, [](fb::Executable& r) {
              r.mutable_streams()->GetMutableObject(0)->mutate_direction(fb::StreamDirection(4));
            })),
            "model.tsx: stream 'input': unknown direction 4");
  EXPECT_EQ(load_error(edited(e, [](fb::Executable& r) { r.mutate_exchange_bytes(5); })), "")
      << "a re-sealed harmless edit loads";
}

}  // namespace
}  // namespace tessera::exe::testing
