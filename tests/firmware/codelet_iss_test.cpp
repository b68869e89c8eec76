// The codelets built twice must agree: the suite of firmware/fw-tests/codelet_suite.h runs
// on tessera-emu (the RISC-V build, fw-codelets.elf, printing every result word) and
// natively (tessera_firmware_native); every word must match bit for bit, NaN payloads
// excepted. The native run also checks each codelet against a plain C++ reference.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cnn_reference.h"
#include "fp_check.h"
#include "fw-tests/codelet_suite.h"
#include "runtime/native.h"

namespace {

using namespace tessera;
using namespace tessera::fwtest;
using fw::tile_ptr;

struct Word {
  std::string tag;
  uint32_t index = 0;
  uint32_t value = 0;
};

// Runs fw-codelets.elf on tessera-emu; its result lines, or a failure.
testing::AssertionResult run_iss(std::vector<Word>& words) {
  // Only stdout is data: stderr (tessera-emu's diagnostics, a sanitizer's report) goes to
  // a file of its own and is shown on failure, so a diagnostic cannot be parsed as a result.
  const std::string err_path = ::testing::TempDir() + "codelet_iss_test_" + std::to_string(::getpid()) + ".err";
  const std::string cmd = std::string("'") + TESSERA_EMU + "' --max-insns 200000000 '" +
                          TESSERA_FW_CODELETS_ELF + "' 2> '" + err_path + "'";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return testing::AssertionFailure() << "cannot run " << cmd;
  std::string out;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  const int status = pclose(p);
  bool done = false;
  std::string other;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    Word w;
    unsigned index = 0, value = 0;
    char tag[32];
    if (line == "done") {
      done = true;
    } else if (std::sscanf(line.c_str(), "%31s %8x %8x", tag, &index, &value) == 3) {
      words.push_back({tag, index, value});
    } else {
      other += line + "\n";
    }
  }
  std::string err;
  {
    std::ifstream f(err_path);
    err.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  }
  std::remove(err_path.c_str());
  if (status != 0 || !done)
    return testing::AssertionFailure()
           << cmd << " failed (status " << status << ", " << (done ? "" : "no 'done'") << "):\n"
           << other << err;
  return testing::AssertionSuccess();
}

// The native sink: records the words and checks each codelet against a reference,
// computed in before() from the inputs (the suite never runs in place).
class CheckingSink {
 public:
  std::vector<Word> words;
  std::vector<std::string> failures;
  std::map<std::string, int> checked;  // codelet name -> output words checked

  void word(const char* tag, uint32_t index, uint32_t value) {
    words.push_back({tag, index, value});
  }

  void before(uint32_t codelet, uint32_t state) {
    name_ = fw::tessera_codelet_table[codelet].name;
    const uint32_t* s =
        tile_ptr<const uint32_t>(state, fw::tessera_codelet_table[codelet].state_words);
    expected_.clear();
    refs_.clear();
    tolerance_ = 1.5;
    flush_ok_ = false;
    auto f = [](uint32_t addr, uint32_t i) { return tile_ptr<const float>(addr + 4 * i)[0]; };
    auto u = [](uint32_t addr, uint32_t i) { return tile_ptr<const uint32_t>(addr + 4 * i)[0]; };
    out_ = s[0];
    if (name_ == "copy") {
      for (uint32_t i = 0; i < s[2]; ++i) expected_.push_back(u(s[1], i));
    } else if (name_ == "fill") {
      expected_.assign(s[1], s[2]);
    } else if (name_ == "add") {
      for (uint32_t i = 0; i < s[3]; ++i) expected_.push_back(bits(f(s[1], i) + f(s[2], i)));
    } else if (name_ == "scale") {
      for (uint32_t i = 0; i < s[2]; ++i) expected_.push_back(bits(f(s[1], i) * from_bits(s[3])));
    } else if (name_ == "mac") {
      for (uint32_t i = 0; i < s[3]; ++i)
        expected_.push_back(bits(std::fma(f(s[1], i), f(s[2], i), f(s[0], i))));
    } else if (name_ == "dot") {
      float acc = 0.0f;
      for (uint32_t i = 0; i < s[3]; ++i) acc = std::fma(f(s[1], i), f(s[2], i), acc);
      expected_.push_back(bits(acc));
    } else if (name_ == "matvec") {
      for (uint32_t r = 0; r < s[3]; ++r) {
        float acc = 0.0f;
        for (uint32_t c = 0; c < s[4]; ++c) acc = std::fma(f(s[1], r * s[4] + c), f(s[2], c), acc);
        expected_.push_back(bits(acc));
      }
    } else if (name_ == "reduce_sum") {
      for (uint32_t i = 0; i < s[2]; ++i) {
        float acc = s[3] ? f(s[1], i) : 0.0f;
        for (uint32_t j = 1; j < s[3]; ++j) acc += f(s[1], j * s[2] + i);
        expected_.push_back(bits(acc));
      }
    } else if (name_ == "relu") {
      for (uint32_t i = 0; i < s[2]; ++i) {
        const float x = f(s[1], i);
        expected_.push_back(std::isnan(x) ? 0x7fc00000u : x > 0.0f ? bits(x) : 0u);
      }
    } else if (name_ == "exp" || name_ == "log") {
      for (uint32_t i = 0; i < s[2]; ++i) {
        const double x = f(s[1], i);
        refs_.push_back(name_ == "exp" ? std::exp(x) : x == 0.0 ? -INFINITY : std::log(x));
      }
    } else if (name_ == "matmul") {
      const uint32_t m = s[3], k = s[4], n = s[5];
      for (uint32_t i = 0; i < m; ++i)
        for (uint32_t j = 0; j < n; ++j) {
          float acc = 0.0f;
          for (uint32_t p = 0; p < k; ++p) acc = std::fma(f(s[1], i * k + p), f(s[2], p * n + j), acc);
          expected_.push_back(bits(acc));
        }
    } else if (name_ == "add_bias") {
      for (uint32_t r = 0; r < s[3]; ++r)
        for (uint32_t c = 0; c < s[4]; ++c) expected_.push_back(bits(f(s[1], r * s[4] + c) + f(s[2], c)));
    } else if (name_ == "argmax") {
      for (uint32_t r = 0; r < s[2]; ++r) {
        uint32_t best = 0;
        bool found = false;
        for (uint32_t c = 0; c < s[3]; ++c) {
          const float x = f(s[1], r * s[3] + c);
          if (std::isnan(x)) continue;
          if (!found || x > f(s[1], r * s[3] + best)) best = c, found = true;
        }
        expected_.push_back(best);
      }
    } else if (name_ == "softmax") {
      tolerance_ = 4.0;  // exp (about 1 ulp), the sum and the division
      for (uint32_t r = 0; r < s[2]; ++r) {
        float m = f(s[1], r * s[3]);
        for (uint32_t c = 1; c < s[3]; ++c) m = std::fmax(m, f(s[1], r * s[3] + c));
        double sum = 0;
        std::vector<double> e;
        for (uint32_t c = 0; c < s[3]; ++c) e.push_back(std::exp(double{f(s[1], r * s[3] + c) - m}));
        for (double v : e) sum += v;
        for (double v : e) refs_.push_back(v / sum);
      }
    } else if (!cnn_reference(s)) {
      failures.push_back("no reference for codelet " + name_);
    }
  }

  // The CNN codelets (cnn_reference.h); false for another codelet.
  bool cnn_reference(const uint32_t* s) {
    auto load = [](uint32_t addr, uint64_t n) {
      const float* p = tile_ptr<const float>(addr, n);
      return std::vector<float>(p, p + n);
    };
    auto exact = [&](const std::vector<float>& v) {
      for (float x : v) expected_.push_back(bits(x));
    };
    using namespace cnn;
    if (name_ == "conv2d" || name_ == "conv2d_grad_input" || name_ == "conv2d_grad_weight") {
      const bool fwd = name_ == "conv2d";
      const Conv c = conv_fields(s + (fwd ? 4 : 3));
      const uint64_t nx = c.cin * c.h * c.wd, nw = c.cout * c.cin * c.kh * c.kw, ny = c.cout * c.oh * c.ow;
      if (fwd)
        exact(conv2d(c, load(s[1], nx), load(s[2], nw), load(s[3], c.cout)));
      else if (name_ == "conv2d_grad_input")
        exact(conv2d_grad_input(c, load(s[1], ny), load(s[2], nw)));
      else
        exact(conv2d_grad_weight(c, load(s[1], nx), load(s[2], ny), load(s[0], nw), s[17] != 0));
    } else if (name_ == "channel_sum") {
      exact(channel_sum(load(s[1], uint64_t{s[2]} * s[3]), s[2], s[3], load(s[0], s[2]), s[4] != 0));
    } else if (name_ == "maxpool2d" || name_ == "maxpool2d_grad" || name_ == "avgpool2d" ||
               name_ == "avgpool2d_grad") {
      const uint32_t* f = s + (name_ == "maxpool2d_grad" ? 3 : 2);
      const bool avg = name_[0] == 'a';
      const Pool p{f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8],
                   static_cast<int32_t>(f[9]), static_cast<int32_t>(f[10]), avg ? f[11] : 0, avg ? f[12] : 0,
                   avg && f[13] != 0};
      const uint64_t nx = p.c * p.h * p.wd, ny = p.c * p.oh * p.ow;
      if (name_ == "maxpool2d") expected_ = maxpool2d(p, load(s[1], nx));
      if (name_ == "maxpool2d_grad") exact(maxpool2d_grad(p, load(s[1], ny), load(s[2], nx)));
      if (name_ == "avgpool2d") exact(avgpool2d(p, load(s[1], nx)));
      if (name_ == "avgpool2d_grad") exact(avgpool2d_grad(p, load(s[1], ny)));
    } else if (name_ == "lrn") {
      tolerance_ = 4.0;  // exp, log, the sums: see lrn.cpp
      refs_ = lrn(load(s[1], uint64_t{s[2]} * s[3]), s[2], s[3], s[4], from_bits(s[5]), from_bits(s[6]),
                  from_bits(s[7]));
    } else if (name_ == "ewise2") {
      exact(ewise2(load(s[1], s[3]), load(s[2], s[4]), s[4], s[5], s[6]));
    } else if (name_ == "ewise1") {
      const uint32_t op = s[3];
      tolerance_ = 3.0;
      flush_ok_ = op == 1;  // sigmoid below FLT_MIN: 1 / (1 + exp(-x)) with exp overflowing
      for (float x : load(s[1], s[2])) {
        const double v = ewise1(op, x, from_bits(s[4]), from_bits(s[5]));
        if (op == 1 || op == 2)
          refs_.push_back(v);
        else
          expected_.push_back(bits(static_cast<float>(v)));
      }
    } else if (name_ == "ewise1_grad") {
      const std::vector<float> dy = load(s[1], s[3]), v = load(s[2], s[3]);
      for (uint32_t i = 0; i < s[3]; ++i)
        expected_.push_back(bits(ewise1_grad(s[4], dy[i], v[i], from_bits(s[5]), from_bits(s[6]))));
    } else {
      return false;
    }
    return true;
  }

  void after(uint32_t, uint32_t) {
    const uint32_t n = static_cast<uint32_t>(expected_.empty() ? refs_.size() : expected_.size());
    const uint32_t* out = tile_ptr<const uint32_t>(out_, n);
    for (uint32_t i = 0; i < n; ++i) {
      bool ok;
      std::ostringstream why;
      if (!expected_.empty()) {
        ok = same_or_both_nan(out[i], expected_[i]);
        why << std::hex << "0x" << out[i] << ", expected 0x" << expected_[i];
      } else {
        const double err = ulp_error(from_bits(out[i]), refs_[i]);
        ok = err <= tolerance_ ||
             (flush_ok_ && std::fabs(refs_[i]) < 0x1p-126 && std::fabs(from_bits(out[i]) - refs_[i]) <= 0x1p-126);
        why << from_bits(out[i]) << " (0x" << std::hex << out[i] << std::dec << "), reference "
            << refs_[i] << ": " << err << " ulp";
      }
      if (!ok) failures.push_back(name_ + "[" + std::to_string(i) + "] = " + why.str());
      ++checked[name_];
    }
  }

 private:
  std::string name_;
  uint32_t out_ = 0;
  std::vector<uint32_t> expected_;  // exact bits (NaN payloads aside)
  std::vector<double> refs_;        // or double-precision references (exp, log, softmax)
  double tolerance_ = 1.5;          // ulps allowed against refs_
  bool flush_ok_ = false;           // results below FLT_MIN may be off by up to FLT_MIN
};

// The suite in native mode, on a 64 KiB tile whose 16 KiB arena starts at 4 KiB.
CheckingSink run_native() {
  std::vector<uint8_t> sram(64 * 1024);
  fw::NativeTile tile;
  tile.sram = sram.data();
  tile.sram_bytes = static_cast<uint32_t>(sram.size());
  CheckingSink sink;
  fw::NativeTileBinding bind(tile);
  fw::suite::run_codelet_suite(arch::kSramBase + 0x1000, 16 * 1024, sink);  // as fw-codelets.elf
  return sink;
}

TEST(CodeletSuite, NativeMatchesPlainCxxReferences) {
  const CheckingSink sink = run_native();
  for (const std::string& f : sink.failures) ADD_FAILURE() << f;
  // every codelet of the table was run and checked, here or (the training codelets, not in
  // codelet_suite.h yet) by training_codelets_test.cpp, on the ISS and natively
  const std::set<std::string> elsewhere = {"relu_grad",  "softmax_xent", "matmul_tn",  "matmul_nt",
                                           "sgd_momentum", "lr_linear",  "rng_uniform"};
  for (uint32_t i = 0; i < fw::tessera_codelet_count; ++i)
    if (!elsewhere.count(fw::tessera_codelet_table[i].name)) {
      EXPECT_GT(sink.checked.count(fw::tessera_codelet_table[i].name), 0u)
          << fw::tessera_codelet_table[i].name;
    }
}

TEST(CodeletSuite, RiscvAndNativeGiveTheSameBits) {
  std::vector<Word> iss;
  ASSERT_TRUE(run_iss(iss));
  const std::vector<Word> native = run_native().words;
  ASSERT_EQ(iss.size(), native.size()) << "the two builds reported different numbers of words";
  int mismatches = 0, nan_payloads = 0;
  std::map<std::string, int> per_tag;
  for (size_t i = 0; i < iss.size(); ++i) {
    const Word& a = iss[i];
    const Word& b = native[i];
    ASSERT_EQ(a.tag, b.tag) << "word " << i;
    ASSERT_EQ(a.index, b.index) << "word " << i;
    ++per_tag[a.tag];
    if (a.value != b.value && same_or_both_nan(a.value, b.value)) ++nan_payloads;
    if (!same_or_both_nan(a.value, b.value) && ++mismatches <= 20)
      ADD_FAILURE() << a.tag << "[" << a.index << "]: RISC-V 0x" << std::hex << a.value
                    << ", native 0x" << b.value;
  }
  EXPECT_EQ(mismatches, 0);
  std::ostringstream summary;
  for (const auto& [tag, n] : per_tag) summary << " " << tag << ":" << n;
  std::printf("%zu words compared (%d NaNs with different payloads):%s\n", iss.size(), nan_payloads,
              summary.str().c_str());
}

// An independent FNV-1a over std::string: the table's ids are the hash of
// "name(signature)", unique, and its state_words count the signature's fields.
uint32_t fnv1a(const std::string& s) {
  uint32_t h = 2166136261u;
  for (unsigned char c : s) h = (h ^ c) * 16777619u;
  return h;
}

TEST(CodeletTable, IdsAreStableHashesOfNameAndSignature) {
  EXPECT_EQ(fnv1a(""), 0x811c9dc5u);  // the published FNV-1a test vectors
  EXPECT_EQ(fnv1a("a"), 0xe40c292cu);
  EXPECT_EQ(fnv1a("foobar"), 0xbf9cf968u);
  std::map<uint32_t, std::string> ids;
  for (uint32_t i = 0; i < fw::tessera_codelet_count; ++i) {
    const fw::CodeletInfo& c = fw::tessera_codelet_table[i];
    const std::string sig = c.signature;
    EXPECT_EQ(c.id, fnv1a(std::string(c.name) + "(" + sig + ")")) << c.name;
    EXPECT_EQ(c.state_words, 1 + std::count(sig.begin(), sig.end(), ',')) << c.name;
    // field names are unique (the compiler sets fields by name)
    std::set<std::string> names;
    std::istringstream fields(sig);
    for (std::string f; std::getline(fields, f, ',');)
      EXPECT_TRUE(names.insert(f.substr(f.find_last_of(' ') + 1)).second) << c.name << ": field " << f << " twice";
    EXPECT_TRUE(ids.emplace(c.id, c.name).second)
        << c.name << " and " << ids[c.id] << " share an id";
    EXPECT_EQ(fw::codelet_index(c.name), i);
  }
  EXPECT_EQ(fw::codelet_index("no-such-codelet"), fw::tessera_codelet_count);
  EXPECT_EQ(std::string(fw::tessera_codelet_table[0].name),
            "copy");  // indices are stable: append only
}

}  // namespace
