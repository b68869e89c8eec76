// The codelet table (see codelets.h): index = position in TESSERA_CODELETS.
#include "codelets/codelets.h"

namespace tessera::fw {

#define TESSERA_CODELET_ENTRY(name, sig) \
  {codelet_id(#name, sig), state_words(sig), #name, sig, &codelet_##name},
extern "C" const CodeletInfo tessera_codelet_table[] = {TESSERA_CODELETS(TESSERA_CODELET_ENTRY)};
#undef TESSERA_CODELET_ENTRY

extern "C" const uint32_t tessera_codelet_count =
    sizeof(tessera_codelet_table) / sizeof(tessera_codelet_table[0]);

}  // namespace tessera::fw
