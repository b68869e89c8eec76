#!/usr/bin/python3
"""The reference of mnist-train's program "init" (models/mlp_train.h), in numpy, written from
the documented formula: for parameter p (its index in fc1.w, fc1.b, fc2.w, ... order) of a
layer with fan_in f and element j (flat row-major index in the tensor), with the seed s,
    x = word 0 of Philox4x32-10(counter {j, p, 0, 0}, key {s, 0x54535241})
    u = (x >> 8) * 2^-24,  b = f32(1) / sqrt(f32(f)),  value = f32(u * 2b - b)  (one rounding)
Philox4x32-10 as Salmon et al., "Parallel random numbers: as easy as 1, 2, 3" (SC'11),
checked first against Random123's known answers (tests/firmware/data/philox4x32_10_kat.txt).

    init_reference.py DIR     DIR/meta.txt: "seed S" and "widths 784 32 16 10" lines;
                              DIR/fc1.w.f32 ...: the device's values (raw f32)
Compares bit for bit; exit 0 if all equal, 1 if not, 77 (ctest: skipped) without numpy."""
import os
import sys

try:
    import numpy as np
except ImportError:
    print("init_reference.py: no numpy, skipped")
    sys.exit(77)

M0, M1 = 0xD2511F53, 0xCD9E8D57
W0, W1 = 0x9E3779B9, 0xBB67AE85
MASK = 0xFFFFFFFF
TAG = 0x54535241


def philox4x32_10(c0, c1, c2, c3, k0, k1):
    """Philox4x32-10 of 32-bit words (numpy arrays or ints) in uint64 arithmetic; returns the
    four output words as uint64 arrays."""
    mask, shift = np.uint64(MASK), np.uint64(32)
    x = [np.asarray(v, dtype=np.uint64) & mask for v in (c0, c1, c2, c3)]
    k = [k0 & MASK, k1 & MASK]
    for r in range(10):
        if r:
            k = [(k[0] + W0) & MASK, (k[1] + W1) & MASK]
        a = x[0] * np.uint64(M0)  # < 2^64: exact in uint64
        b = x[2] * np.uint64(M1)
        x = [(b >> shift) ^ x[1] ^ np.uint64(k[0]), b & mask,
             (a >> shift) ^ x[3] ^ np.uint64(k[1]), a & mask]
    return x


def check_kat(path):
    n = 0
    with open(path) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            w = [int(v, 16) for v in line.split()]
            got = [int(v) for v in philox4x32_10(*w[:4], w[4], w[5])]
            if got != w[6:10]:
                sys.exit("init_reference.py: Philox4x32-10 fails the known answer %s: got %s" %
                         (line.strip(), " ".join("%08x" % v for v in got)))
            n += 1
    return n


def init_values(seed, p, fan_in, n):
    b = np.float32(1) / np.sqrt(np.float32(fan_in))
    x = philox4x32_10(np.arange(n, dtype=np.uint64), p, 0, 0, seed, TAG)[0]
    u = (x >> np.uint64(8)).astype(np.float64) * 2.0 ** -24
    # u * 2b (24 x 24 bits) and the sum with -b (at most 48 bits) are exact in float64, so
    # the one rounding is the conversion to float32: the fma's.
    return (u * (2 * np.float64(b)) - np.float64(b)).astype(np.float32)


def main():
    d = sys.argv[1]
    here = os.path.dirname(os.path.abspath(__file__))
    kat = check_kat(os.path.join(here, "..", "firmware", "data", "philox4x32_10_kat.txt"))
    meta = {}
    with open(os.path.join(d, "meta.txt")) as f:
        for line in f:
            key, *vals = line.split()
            meta[key] = [int(v) for v in vals]
    seed, widths = meta["seed"][0], meta["widths"]
    bad = 0
    total = 0
    for layer in range(len(widths) - 1):
        fan_in, out = widths[layer], widths[layer + 1]
        for kind, n in (("w", fan_in * out), ("b", out)):
            p = 2 * layer + (kind == "b")
            name = "fc%d.%s" % (layer + 1, kind)
            got = np.fromfile(os.path.join(d, name + ".f32"), dtype=np.float32)
            want = init_values(seed, p, fan_in, n)
            if got.shape != want.shape:
                print("%s: %d values, want %d" % (name, got.size, want.size))
                bad += 1
                continue
            diff = np.flatnonzero(got.view(np.uint32) != want.view(np.uint32))
            total += n
            if diff.size:
                i = diff[0]
                print("%s: %d of %d differ, first [%d] = %r, want %r" % (name, diff.size, n, i, got[i], want[i]))
                bad += 1
            b = np.float32(1) / np.sqrt(np.float32(fan_in))
            if not (np.all(want >= -b) and np.all(want <= b)):
                print("%s: values outside [-%r, %r]" % (name, b, b))
                bad += 1
    print("init_reference.py: %d known answers; seed %d, %d values of %d parameters %s" %
          (kat, seed, total, 2 * (len(widths) - 1), "all equal" if not bad else "DIFFER"))
    sys.exit(1 if bad else 0)


main()
