// Stand-in for Vitis HLS's hls_stream.h in C simulation with g++: hls::stream<T> as an
// unbounded FIFO, as the real one is in C simulation. Reading an empty stream throws here
// (the real C simulation warns and would hang in hardware), so a test that under-feeds a
// mover fails at once.
#pragma once

#include <cstddef>
#include <deque>
#include <stdexcept>
#include <string>

namespace hls {

template <class T>
class stream {
 public:
  stream() = default;
  explicit stream(const char* name) : name_(name) {}
  stream(const stream&) = delete;
  stream& operator=(const stream&) = delete;

  void write(const T& v) { q_.push_back(v); }
  T read() {
    if (q_.empty()) throw std::runtime_error("hls::stream '" + name_ + "': read from an empty stream");
    T v = q_.front();
    q_.pop_front();
    return v;
  }
  bool read_nb(T& v) {
    if (q_.empty()) return false;
    v = read();
    return true;
  }
  bool write_nb(const T& v) {
    write(v);
    return true;
  }
  bool empty() const { return q_.empty(); }
  bool full() const { return false; }
  size_t size() const { return q_.size(); }

 private:
  std::string name_ = "stream";
  std::deque<T> q_;
};

}  // namespace hls
