// libFuzzer harness: the ONNX importer (compiler/onnx, import.h). The input is a serialized
// ModelProto; the first byte's low bits give the batch for a symbolic first dimension (0:
// none). Any input either imports or throws ImportError: protobuf's parse failures,
// truncated initializers, unknown ops and attributes, shapes that do not check, sizes that
// overflow; nothing crashes or allocates more than the declared data.
#include <cstddef>
#include <cstdint>
#include <span>

#include "tessera/onnx/import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessera;
  if (size == 0) return 0;
  onnx_import::ImportOptions o;
  o.batch = data[0] & 7;
  try {
    (void)onnx_import::import_model(std::as_bytes(std::span(data + 1, size - 1)), "fuzz.onnx", o);
  } catch (const onnx_import::ImportError&) {
  }
  return 0;
}
