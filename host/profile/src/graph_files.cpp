// write_graphml and write_gexf: the compiled graph for Gephi and Cytoscape, streamed.
#include <cstdio>

#include "tessera/profile/colours.h"
#include "tessera/profile/graph_picture.h"

namespace tessera::profile {

namespace {

std::string xml(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '&') o += "&amp;";
    else if (c == '<') o += "&lt;";
    else if (c == '>') o += "&gt;";
    else if (c == '"') o += "&quot;";
    else if (static_cast<unsigned char>(c) < 0x20) o += ' ';
    else o += c;
  }
  return o;
}

std::string num(float f) {
  char b[24];
  std::snprintf(b, sizeof b, "%.5f", f);
  return b;
}

}  // namespace

void write_graphml(std::ostream& out, const GraphData& g, const Layout& l, const exe::Executable& e) {
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
         "<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n"
         "  <key id=\"kind\" for=\"node\" attr.name=\"kind\" attr.type=\"string\"/>\n"
         "  <key id=\"tile\" for=\"node\" attr.name=\"tile\" attr.type=\"int\"/>\n"
         "  <key id=\"layer\" for=\"node\" attr.name=\"layer\" attr.type=\"string\"/>\n"
         "  <key id=\"cs\" for=\"node\" attr.name=\"compute_set\" attr.type=\"int\"/>\n"
         "  <key id=\"codelet\" for=\"node\" attr.name=\"codelet\" attr.type=\"string\"/>\n"
         "  <key id=\"tensor\" for=\"node\" attr.name=\"tensor\" attr.type=\"string\"/>\n"
         "  <key id=\"offset\" for=\"node\" attr.name=\"offset\" attr.type=\"long\"/>\n"
         "  <key id=\"count\" for=\"node\" attr.name=\"count\" attr.type=\"long\"/>\n"
         "  <key id=\"x\" for=\"node\" attr.name=\"x\" attr.type=\"float\"/>\n"
         "  <key id=\"y\" for=\"node\" attr.name=\"y\" attr.type=\"float\"/>\n"
         "  <key id=\"access\" for=\"edge\" attr.name=\"access\" attr.type=\"string\"/>\n"
         "  <graph id=\"" << xml(e.target) << "\" edgedefault=\"directed\">\n";
  for (size_t v = 0; v < g.vertex_count(); ++v)
    out << "    <node id=\"v" << v << "\"><data key=\"kind\">vertex</data><data key=\"tile\">" << g.vertex_tile[v]
        << "</data><data key=\"layer\">" << xml(g.layers[g.vertex_layer[v]]) << "</data><data key=\"cs\">" << g.vertex_cs[v]
        << "</data><data key=\"codelet\">" << codelet_name(g.vertex_codelet[v]) << "</data><data key=\"x\">" << num(l.vx[v])
        << "</data><data key=\"y\">" << num(l.vy[v]) << "</data></node>\n";
  for (size_t r = 0; r < g.regions.size(); ++r) {
    const exe::Tensor& t = e.tensors[g.regions[r].tensor];
    const exe::Interval& iv = t.intervals[g.regions[r].interval];
    out << "    <node id=\"r" << r << "\"><data key=\"kind\">region</data><data key=\"tile\">" << iv.tile
        << "</data><data key=\"layer\">" << xml(g.layers[g.region_layer[r]]) << "</data><data key=\"tensor\">" << xml(t.name)
        << "</data><data key=\"offset\">" << iv.offset << "</data><data key=\"count\">" << iv.count
        << "</data><data key=\"x\">" << num(l.rx[r]) << "</data><data key=\"y\">" << num(l.ry[r]) << "</data></node>\n";
  }
  for (size_t i = 0; i < g.edge_count(); ++i) {
    const bool w = g.edge_write[i];
    const std::string v = "v" + std::to_string(g.edge_vertex[i]), r = "r" + std::to_string(g.edge_region[i]);
    out << "    <edge source=\"" << (w ? v : r) << "\" target=\"" << (w ? r : v) << "\"><data key=\"access\">"
        << (w ? "write" : "read") << "</data></edge>\n";
  }
  out << "  </graph>\n</graphml>\n";
}

void write_gexf(std::ostream& out, const GraphData& g, const Layout& l, const exe::Executable& e) {
  auto rgb = [](uint32_t layer) {
    const Rgb c = layer_colour(layer);
    return "<viz:color r=\"" + std::to_string(int(c.r * 255)) + "\" g=\"" + std::to_string(int(c.g * 255)) + "\" b=\"" +
           std::to_string(int(c.b * 255)) + "\"/>";
  };
  auto pos = [](float x, float y) { return "<viz:position x=\"" + num(x * 1000) + "\" y=\"" + num(-y * 1000) + "\" z=\"0\"/>"; };
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
         "<gexf xmlns=\"http://gexf.net/1.3\" xmlns:viz=\"http://gexf.net/1.3/viz\" version=\"1.3\">\n"
         "  <graph defaultedgetype=\"directed\">\n"
         "    <attributes class=\"node\">\n"
         "      <attribute id=\"0\" title=\"kind\" type=\"string\"/>\n"
         "      <attribute id=\"1\" title=\"tile\" type=\"integer\"/>\n"
         "      <attribute id=\"2\" title=\"layer\" type=\"string\"/>\n"
         "      <attribute id=\"3\" title=\"detail\" type=\"string\"/>\n"
         "    </attributes>\n    <nodes>\n";
  for (size_t v = 0; v < g.vertex_count(); ++v)
    out << "      <node id=\"v" << v << "\" label=\"" << codelet_name(g.vertex_codelet[v]) << "\"><attvalues>"
        << "<attvalue for=\"0\" value=\"vertex\"/><attvalue for=\"1\" value=\"" << g.vertex_tile[v]
        << "\"/><attvalue for=\"2\" value=\"" << xml(g.layers[g.vertex_layer[v]]) << "\"/><attvalue for=\"3\" value=\"cs "
        << g.vertex_cs[v] << "\"/></attvalues>" << rgb(g.vertex_layer[v]) << pos(l.vx[v], l.vy[v]) << "</node>\n";
  for (size_t r = 0; r < g.regions.size(); ++r) {
    const exe::Tensor& t = e.tensors[g.regions[r].tensor];
    const exe::Interval& iv = t.intervals[g.regions[r].interval];
    out << "      <node id=\"r" << r << "\" label=\"" << xml(t.name) << "\"><attvalues>"
        << "<attvalue for=\"0\" value=\"region\"/><attvalue for=\"1\" value=\"" << iv.tile << "\"/><attvalue for=\"2\" value=\""
        << xml(g.layers[g.region_layer[r]]) << "\"/><attvalue for=\"3\" value=\"[" << iv.offset << ", "
        << iv.offset + iv.count << ")\"/></attvalues>" << rgb(g.region_layer[r]) << pos(l.rx[r], l.ry[r]) << "</node>\n";
  }
  out << "    </nodes>\n    <edges>\n";
  for (size_t i = 0; i < g.edge_count(); ++i) {
    const bool w = g.edge_write[i];
    const std::string v = "v" + std::to_string(g.edge_vertex[i]), r = "r" + std::to_string(g.edge_region[i]);
    out << "      <edge id=\"" << i << "\" source=\"" << (w ? v : r) << "\" target=\"" << (w ? r : v) << "\" label=\""
        << (w ? "write" : "read") << "\"/>\n";
  }
  out << "    </edges>\n  </graph>\n</gexf>\n";
}

}  // namespace tessera::profile
