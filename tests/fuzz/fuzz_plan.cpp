// libFuzzer harness: the training plan's description (plan.json, examples/mnist/
// training-plan.md). Any input either parses into a plan whose numbers are consistent or
// throws DataError.
#include <cstdint>
#include <string_view>

#include "tessera/data/dataset.h"
#include "tessera/data/plan.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const tessera::data::Plan p =
        tessera::data::parse_plan_json(std::string_view(reinterpret_cast<const char*>(data), size), "plan.json");
    (void)p;
  } catch (const tessera::data::DataError&) {
  }
  return 0;
}
