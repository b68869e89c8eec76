// libFuzzer harness: numpy .npy files (host/npy), what `tessera run --input` reads. Any
// input either parses or throws NpyError; what parses serializes and parses back to the
// same array (the writer and the reader agree).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "tessera/npy/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessera;
  npy::Array a;
  try {
    a = npy::parse(std::as_bytes(std::span(data, size)), "fuzz.npy");
  } catch (const npy::NpyError&) {
    return 0;
  }
  const npy::Array b = npy::parse(npy::serialize(a), "round trip");
  if (b.dtype != a.dtype || b.shape != a.shape || b.data != a.data) std::abort();
  return 0;
}
