// Parses the firmware's codelet list (TESSERA_CODELETS) into field descriptions, once.
#include "tessera/graph/codelets.h"

#include <map>
#include <sstream>

#include "codelets/codelets.h"
#include "tessera/graph/tensor.h"

namespace tessera::graph {
namespace {

// Lengths of each codelet's pointer fields in terms of its count fields, from the codelet
// comments in codelets.h. A codelet missing here is still usable; its sizes are unchecked.
const std::map<std::string, std::map<std::string, std::string>>& length_rules() {
  static const std::map<std::string, std::map<std::string, std::string>> rules = {
      {"copy", {{"dst", "n"}, {"src", "n"}}},
      {"fill", {{"dst", "n"}}},
      {"add", {{"dst", "n"}, {"a", "n"}, {"b", "n"}}},
      {"scale", {{"dst", "n"}, {"src", "n"}}},
      {"mac", {{"acc", "n"}, {"a", "n"}, {"b", "n"}}},
      {"dot", {{"out", "1"}, {"a", "n"}, {"b", "n"}}},
      {"matvec", {{"y", "rows"}, {"a", "rows*cols"}, {"x", "cols"}}},
      {"reduce_sum", {{"out", "n"}, {"in", "n*k"}}},
      {"relu", {{"dst", "n"}, {"src", "n"}}},
      {"exp", {{"dst", "n"}, {"src", "n"}}},
      {"log", {{"dst", "n"}, {"src", "n"}}},
      {"rng_uniform", {{"out", "n"}, {"seed", "1"}}},
  };
  return rules;
}

CodeletField parse_field(std::string text) {
  CodeletField f;
  if (text.rfind("const ", 0) == 0) f.is_const = true, text = text.substr(6);
  const size_t space = text.rfind(' ');
  const std::string type = text.substr(0, space);
  f.name = text.substr(space + 1);
  if (type == "u32") f.type = FieldType::kU32;
  else if (type == "f32") f.type = FieldType::kF32;
  else if (type == "u32*") f.type = FieldType::kU32Ptr;
  else if (type == "f32*") f.type = FieldType::kF32Ptr;
  else throw GraphError("codelet field '" + text + "': unknown type '" + type + "'");
  return f;
}

std::vector<CodeletInfo> parse_all() {
  struct Raw { const char* name; const char* sig; };
#define TESSERA_GRAPH_RAW(name, sig) {#name, sig},
  static const Raw raw[] = {TESSERA_CODELETS(TESSERA_GRAPH_RAW)};
#undef TESSERA_GRAPH_RAW
  std::vector<CodeletInfo> out;
  for (const Raw& r : raw) {
    CodeletInfo c;
    c.name = r.name;
    c.signature = r.sig;
    c.index = static_cast<uint32_t>(out.size());
    c.id = fw::codelet_id(r.name, r.sig);
    std::stringstream ss(c.signature);
    for (std::string field; std::getline(ss, field, ',');) {
      if (!field.empty() && field[0] == ' ') field.erase(0, 1);
      c.fields.push_back(parse_field(field));
    }
    if (c.fields.size() != fw::state_words(r.sig)) throw GraphError("codelet " + c.name + ": bad signature");
    auto rule = length_rules().find(c.name);
    if (rule != length_rules().end())
      for (CodeletField& f : c.fields)
        if (auto it = rule->second.find(f.name); it != rule->second.end()) f.length = it->second;
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

int CodeletInfo::field_index(const std::string& field) const {
  for (size_t i = 0; i < fields.size(); ++i)
    if (fields[i].name == field) return static_cast<int>(i);
  return -1;
}

const std::vector<CodeletInfo>& codelets() {
  static const std::vector<CodeletInfo> all = parse_all();
  return all;
}

const CodeletInfo& find_codelet(const std::string& name) {
  std::string known;
  for (const CodeletInfo& c : codelets()) {
    if (c.name == name) return c;
    known += (known.empty() ? "" : ", ") + c.name;
  }
  throw GraphError("unknown codelet '" + name + "' (the firmware has " + known + ")");
}

}  // namespace tessera::graph
