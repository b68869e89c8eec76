// tess_d2h: flits in, ring records out (tess_d2h.h, tess_movers.h). One record a clock; the
// writes are sequential (bursts) except where the ring wraps.
#include "tess_d2h.h"

#include "tess_movers.h"

void tess_d2h(hls::stream<ap_uint<64>>& d2h, ap_uint<128>* ring, uint32_t ring_records, uint32_t head, uint32_t tail,
              uint32_t count, uint32_t* status) {
#pragma HLS INTERFACE axis port = d2h
#pragma HLS INTERFACE m_axi port = ring offset = slave bundle = gmem0 max_write_burst_length = 64
#pragma HLS INTERFACE m_axi port = status offset = slave bundle = gmem0
#pragma HLS INTERFACE s_axilite port = ring bundle = control
#pragma HLS INTERFACE s_axilite port = status bundle = control
#pragma HLS INTERFACE s_axilite port = ring_records bundle = control
#pragma HLS INTERFACE s_axilite port = head bundle = control
#pragma HLS INTERFACE s_axilite port = tail bundle = control
#pragma HLS INTERFACE s_axilite port = count bundle = control
#pragma HLS INTERFACE s_axilite port = return bundle = control
  using namespace tess_movers;
  status[3] = 0;
  if (ring_records < 2) {
    status[0] = kRingSize;
    status[1] = head;
    status[2] = 0;
    return;
  }
  if (head >= ring_records || tail >= ring_records) {
    status[0] = kRingIndex;
    status[1] = head;
    status[2] = 0;
    return;
  }
  // Records held: head - tail (mod the ring); one slot stays empty so that full != empty.
  const uint32_t held = head >= tail ? head - tail : head + ring_records - tail;
  const uint32_t room = ring_records - 1 - held;
  const uint32_t n = count < room ? count : room;
record_loop:
  for (uint32_t i = 0; i < n; ++i) {
#pragma HLS PIPELINE II = 1
    ap_uint<64> beat = d2h.read();
    ap_uint<128> rec = 0;
    rec.range(63, 0) = beat.range(63, 0).to_uint64();
    ring[head] = rec;
    head = head + 1 == ring_records ? 0 : head + 1;
  }
  status[0] = n < count ? kRingFull : kOk;
  status[1] = head;
  status[2] = n;
}
