// tessera-noc: drives the Verilated mesh (rtl/noc, the `small` shape) with one traffic
// pattern and checks every word: delivered exactly once, to the right node, unchanged, in
// order per (source, destination) pair, no deadlock. Prints the seed (--seed N reproduces a
// run), latency (median, max) and accepted words per cycle.
//
// Exit status: 0 every check passed; 1 a check failed; 2 bad command line.
// With --inject lose|duplicate|stuck|reorder the checker itself is tested: one delivered word
// is dropped before scoring, or scored twice, or one receiver never takes its flits, or one
// word is scored after the next word of its pair; the run then exits 0 only if the checker
// reports exactly that ("word lost" naming the dropped word, "word duplicated" naming the
// duplicated one, "deadlock", "word out of order" naming the held-back one).
// --inject withdraw drops one waiting offer's valid for a cycle: the RTL's port assertion
// (tess_vr_check) must stop the model; reaching the end of the run is a failure.
#include <cinttypes>
#include <cstdio>
#include <random>
#include <string>

#include <CLI/CLI.hpp>

#include "tessera/vlt/noc_mesh.h"
#include "tessera/vlt/noc_traffic.h"

int main(int argc, char** argv) {
  using namespace tessera::vlt;
  CLI::App app{"Drives the Verilated Tessera mesh with a traffic pattern and checks every word."};
  std::string pattern_name = "uniform", inject_name = "none";
  uint64_t seed = 0;
  NocRunOptions opt;
  app.add_option("--pattern", pattern_name, "uniform, all_to_all, hotspot, stall, burst, zero_load, or all");
  auto* seed_opt = app.add_option("--seed", seed, "seed of every generator and receiver (default: random, printed)");
  app.add_option("--words", opt.words_per_node, "words per node (default: the pattern's)");
  app.add_option("--rate", opt.rate, "injection probability per cycle for uniform and stall");
  app.add_option("--inject", inject_name, "test mode: none, lose, duplicate, stuck, reorder, withdraw (the check must fail)");
  app.add_option("--deadlock-cycles", opt.deadlock_cycles, "cycles without a moving flit that count as a deadlock");
  app.add_option("--max-cycles", opt.max_cycles, "give up after this many cycles");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (!parse_noc_inject(inject_name, opt.inject)) {
    std::fprintf(stderr, "tessera-noc: unknown --inject '%s' (none, lose, duplicate, stuck, reorder, withdraw)\n", inject_name.c_str());
    return 2;
  }
  std::vector<NocPattern> patterns;
  if (pattern_name == "all") {
    for (const auto& n : noc_pattern_names()) {
      NocPattern p;
      parse_noc_pattern(n, p);
      patterns.push_back(p);
    }
  } else {
    NocPattern p;
    if (!parse_noc_pattern(pattern_name, p)) {
      std::fprintf(stderr, "tessera-noc: unknown pattern '%s'\n", pattern_name.c_str());
      return 2;
    }
    patterns.push_back(p);
  }
  if (seed_opt->count() == 0) seed = std::random_device{}() & 0xFFFFFFFFu;
  opt.seed = seed;

  const NocShape s = NocMesh::shape();
  std::printf("tessera-noc: mesh %dx%d, %d host nodes, link latency %d, input queues of %d flits; seed %" PRIu64
              "\n", s.x, s.y, s.hosts, s.link_latency, s.fifo_depth, seed);
  int failed = 0;
  for (NocPattern p : patterns) {
    opt.pattern = p;
    const NocRunResult r = run_noc_traffic(opt, stdout);
    std::printf("%-10s %7" PRIu64 " words %7" PRIu64 " cycles  accepted %.3f words/cycle (%.3f per node)  "
                "latency median %u max %u mean %.1f  [%.0f kcycles/s]\n",
                noc_pattern_name(p), r.words, r.cycles, r.accepted_per_cycle, r.accepted_per_cycle / s.nodes(),
                r.latency_median, r.latency_max, r.latency_mean, r.cycles / r.wall_seconds / 1e3);
    if (p == NocPattern::kZeroLoad) {
      std::printf("zero-load latency by routers on the path:");
      for (size_t i = 1; i < r.zero_load_latency.size(); ++i)
        if (r.zero_load_latency[i]) std::printf(" %zu:%u", i, r.zero_load_latency[i]);
      std::printf(" cycles\n");
    }
    bool ok = r.errors.empty();
    if (opt.inject != NocInject::kNone) {
      std::string want;
      if (opt.inject == NocInject::kLose) want = "word lost: word #" + std::to_string(r.injected_word) + " ";
      if (opt.inject == NocInject::kDuplicate) want = "word duplicated: word #" + std::to_string(r.injected_word) + " ";
      if (opt.inject == NocInject::kStuck) want = "deadlock:";
      if (opt.inject == NocInject::kReorder) want = "word out of order: word #" + std::to_string(r.injected_word) + " ";
      ok = r.errors.size() == 1 && r.has_error(want);
      if (opt.inject == NocInject::kWithdraw) {  // the RTL assertion should have stopped the model
        want = "the RTL's port assertion to stop the model";
        ok = false;
      }
      std::printf("%s: test mode --inject %s: %s\n", noc_pattern_name(p), inject_name.c_str(),
                  ok ? "the checker reported it, as it must" : ("expected exactly one error \"" + want + "...\"").c_str());
    }
    if (!ok) {
      ++failed;
      std::printf("FAIL %s; reproduce: tessera-noc --pattern %s --seed %" PRIu64 "%s\n", noc_pattern_name(p),
                  noc_pattern_name(p), seed, opt.inject != NocInject::kNone ? (" --inject " + inject_name).c_str() : "");
    }
  }
  return failed ? 1 : 0;
}
