// libFuzzer harness: the executable reader and verifier (.tsx). The first byte picks the
// mode: even, the bytes as they are (the FlatBuffers verifier and the checksums must stop
// a corrupt file); odd, the rest re-sealed first (every checksum recomputed when the
// buffer passes the FlatBuffers verifier), so that mutations reach the semantic checks
// (addresses, intervals, indices, programs) behind them. Any input either loads or throws
// ExeError.
#include <cstdint>
#include <cstring>
#include <vector>

#include "internal.h"
#include "tessera/exe/file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessera::exe;
  if (size == 0) return 0;
  const bool reseal = data[0] & 1;
  // 8-byte aligned, as a file read into a vector would be.
  std::vector<uint64_t> words((size - 1 + 7) / 8);
  if (size > 1) std::memcpy(words.data(), data + 1, size - 1);
  std::span<uint8_t> buf(reinterpret_cast<uint8_t*>(words.data()), size - 1);
  if (reseal) (void)detail::seal(buf);
  try {
    const Executable e = deserialize(buf, "fuzz.tsx");
    (void)e;
  } catch (const ExeError&) {
  }
  return 0;
}
