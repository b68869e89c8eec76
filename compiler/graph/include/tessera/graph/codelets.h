// The firmware's codelets as the compiler sees them: name, table index, stable id and the
// fields of the state record, parsed from TESSERA_CODELETS (firmware/codelets/codelets.h),
// which stays the only list.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::graph {

enum class FieldType { kU32, kF32, kU32Ptr, kF32Ptr };

struct CodeletField {
  std::string name;
  FieldType type = FieldType::kU32;
  bool is_const = false;  // a pointer the codelet only reads
  // For pointer fields: the region's length in elements as a product of count fields and
  // literals ("rows*cols", "1"), so that a connected region is checked against the counts.
  // Empty where no rule is known.
  std::string length;
  bool is_pointer() const { return type == FieldType::kU32Ptr || type == FieldType::kF32Ptr; }
};

struct CodeletInfo {
  std::string name, signature;
  uint32_t index = 0;  // Vertex::codelet
  uint32_t id = 0;     // fw::codelet_id(name, signature)
  std::vector<CodeletField> fields;
  int field_index(const std::string& field) const;  // -1 if none
};

const std::vector<CodeletInfo>& codelets();
// The codelet called `name`; throws GraphError listing the known ones if there is none.
const CodeletInfo& find_codelet(const std::string& name);

}  // namespace tessera::graph
