#!/usr/bin/env python3
"""numpy's side of the .npy tests (tests/npy/npy_test.cpp).

  numpy_files.py write DIR   numpy writes the files the C++ test reads (values by formula)
  numpy_files.py check DIR   numpy reads the files the C++ test wrote and checks them
"""
import os
import sys

import numpy as np


def expected():
    """name -> the array, by the same formulas as npy_test.cpp."""
    return {
        "f32_2x3": (np.arange(6, dtype=np.float32) - 3) * np.float32(0.25),
        "f32_4x5x6": np.arange(120, dtype=np.float32) / np.float32(7),
        "i32_3x4": np.arange(12, dtype=np.int32) * np.int32(-1000) + np.int32(7),
        "u8_5": (np.arange(5, dtype=np.uint32) * 50).astype(np.uint8),
        "u32_2x2": np.arange(4, dtype=np.uint32) + np.uint32(0xFFFFFFF0),
        "f32_scalar": np.float32(3.5),
        "f32_0x3": np.zeros((0, 3), dtype=np.float32),
    }


SHAPES = {"f32_2x3": (2, 3), "f32_4x5x6": (4, 5, 6), "i32_3x4": (3, 4), "u8_5": (5,), "u32_2x2": (2, 2),
          "f32_scalar": (), "f32_0x3": (0, 3)}


def write(d):
    os.makedirs(d, exist_ok=True)
    for name, a in expected().items():
        np.save(os.path.join(d, name + ".npy"), np.asarray(a).reshape(SHAPES[name]))
    # Format 2.0 explicitly, and the files the reader must refuse.
    with open(os.path.join(d, "f32_4x5x6_v2.npy"), "wb") as f:
        np.lib.format.write_array(f, expected()["f32_4x5x6"].reshape(4, 5, 6), version=(2, 0))
    np.save(os.path.join(d, "bad_big_endian.npy"), np.arange(6, dtype=">f4").reshape(2, 3))
    np.save(os.path.join(d, "bad_fortran.npy"), np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3)))
    np.save(os.path.join(d, "bad_f64.npy"), np.arange(6, dtype=np.float64))
    np.save(os.path.join(d, "bad_object.npy"), np.array([{"a": 1}], dtype=object), allow_pickle=True)


def check(d):
    bad = 0
    for name, a in expected().items():
        path = os.path.join(d, "tessera_" + name + ".npy")
        got = np.load(path, allow_pickle=False)
        want = np.asarray(a).reshape(SHAPES[name])
        if got.dtype != want.dtype or got.shape != want.shape or not np.array_equal(got, want):
            print(f"{path}: {got.dtype}{got.shape} differs from {want.dtype}{want.shape}")
            bad += 1
        with open(path, "rb") as f:  # numpy's own layout: data aligned to 64 bytes
            f.read(8)
            hl = int.from_bytes(f.read(2), "little")
            if (10 + hl) % 64:
                print(f"{path}: header of {10 + hl} bytes is not a multiple of 64")
                bad += 1
    print(f"numpy read {len(expected())} files written by tessera: {bad} wrong")
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("write", "check"):
        sys.exit(__doc__)
    sys.exit(write(sys.argv[2]) if sys.argv[1] == "write" else check(sys.argv[2]))
