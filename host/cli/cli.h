// The `tessera` command's subcommands, each behind one function so that main.cpp only parses
// the command line and turns every exception into a message and a non-zero exit.
#pragma once

#include <string>
#include <vector>

namespace tessera::cli {

struct RunArgs {
  std::string model;
  std::string device = "emu";              // emu (ISS) | emu-native
  unsigned threads = 1;
  std::vector<std::string> inputs;         // name=file.bin
  std::vector<std::string> outputs;        // name=file.bin
  std::string program;                     // empty: the first
  std::string report;                      // run.json
  unsigned timeout_ms = 60000;
};

// `tessera info model.tsx`: the executable's target, memory per tile, programs, tensors,
// streams, printed to stdout.
int info(const std::string& model);
// `tessera run model.tsx ...`: load onto the device, run one program, write outputs.
int run(const RunArgs& args);

// Progress and notes go to stderr, so stdout stays data.
void note(const std::string& line);

}  // namespace tessera::cli
