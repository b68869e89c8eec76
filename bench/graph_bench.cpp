// graph_bench: tessera graph's layout and picture at the scale of AlexNet's training graph on
// an IPU (18.7 M vertices, 115.8 M edges), on a synthetic graph of that size (see
// profile::synthetic_graph): prints the time and peak memory of each stage. The budget is 5
// minutes and 8 GB on 2 cores (docs/profiling.md).
//   graph_bench OUT.png [vertices edges [size [threads]]]
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "tessera/profile/graph_picture.h"

namespace {

double peak_gb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1048576.0;  // KiB -> GiB
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tessera::profile;
  if (argc < 2) {
    std::fprintf(stderr, "usage: graph_bench OUT.png [vertices edges [size [threads]]]\n");
    return 2;
  }
  const uint64_t vertices = argc > 3 ? std::strtoull(argv[2], nullptr, 10) : 18'700'000;
  const uint64_t edges = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 115'800'000;
  RenderOptions ro;
  ro.size = argc > 4 ? std::atoi(argv[4]) : 4096;
  ro.threads = argc > 5 ? static_cast<unsigned>(std::atoi(argv[5])) : 2;
  try {
    const auto t0 = std::chrono::steady_clock::now();
    auto lap = [&t0](const char* what) {
      std::printf("  %-28s %7.1f s  peak %.2f GB\n", what,
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), peak_gb());
      std::fflush(stdout);
    };
    std::printf("graph_bench: %llu vertices, %llu edges, %d x %d picture, %u threads\n",
                static_cast<unsigned long long>(vertices), static_cast<unsigned long long>(edges), ro.size, ro.size,
                ro.threads);
    const GraphData g = synthetic_graph(vertices, edges, 60, 1216, 1);
    lap("synthetic graph built");
    const Layout l = layout_graph(g);
    lap("laid out");
    ro.title = "synthetic: " + std::to_string(g.vertex_count()) + " vertices, " + std::to_string(g.edge_count()) + " edges";
    const uint64_t lit = render_graph_png(g, l, argv[1], ro);
    lap("drawn and written");
    std::printf("  %llu pixels lit of %d\n", static_cast<unsigned long long>(lit), ro.size * ro.size);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "graph_bench: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
