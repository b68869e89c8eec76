// tessera-rvgen: the command line (see rvgen.h for what the program writes).
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>

#include "rvgen.h"

int main(int argc, char** argv) {
  CLI::App app{
      "Writes a random RV32IMF test program (assembly) whose end state it prints through HTIF."};
  tessera::rvgen::Options o;
  std::string out_path;
  bool no_short = false;
  app.add_option("--seed", o.seed, "random seed")->required();
  // About 4.5 bytes of code per instruction: 10000 leave room in the 64 KiB SRAM.
  app.add_option("--length", o.length, "number of random instructions (at most 10000)")
      ->check(CLI::Range(1, 10000));
  app.add_option("-o,--output", out_path, "output file (default: stdout)");
  app.add_flag("--no-short-illegal", no_short,
               "no illegal words with a 16-bit encoding (low bits != 11)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  o.short_illegal = !no_short;
  const std::string program = tessera::rvgen::Generator(o).generate();
  if (out_path.empty()) {
    std::cout << program;
    return std::cout ? 0 : 1;
  }
  std::ofstream out(out_path);
  out << program;
  out.close();
  if (!out) {
    std::fprintf(stderr, "tessera-rvgen: cannot write %s\n", out_path.c_str());
    return 1;
  }
  return 0;
}
