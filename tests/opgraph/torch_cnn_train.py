#!/usr/bin/python3
"""PyTorch's side of tests/opgraph/cnn_train_test.cpp: a small CNN trained by SGD with
momentum, as the device trains it. Reads from DIR: c1.w [4,1,3,3], c1.b, c2.w [6,4,3,3], c2.b,
fc.w [24,10] ([in,out]), fc.b [10], x [steps,B,1,10,10], labels [steps,B] (u32), and
hyper.txt ("steps B lr0 momentum total"); writes loss.f32 [steps,B] (each step's losses
before its update) and final_<name>.f32 for every parameter.

The model: conv 3x3 pad 1 -> relu -> max_pool 2 -> conv 3x3 -> tanh -> avg_pool 2 stride 1 ->
flatten -> x fc.w + fc.b; the loss: mean softmax cross-entropy. The update, in float32:
v = v * m + g; w = w - lr_t * v with lr_t = lr0 * (total - t) / total (correctly rounded
to float32, as the firmware's lr_linear)."""
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

d = sys.argv[1]
steps, B, lr0, m, total = open(os.path.join(d, "hyper.txt")).read().split()
steps, B, lr0, m, total = int(steps), int(B), np.float32(lr0), np.float32(m), int(total)
shapes = {"c1.w": (4, 1, 3, 3), "c1.b": (4,), "c2.w": (6, 4, 3, 3), "c2.b": (6,), "fc.w": (24, 10), "fc.b": (10,)}
torch.set_num_threads(1)
p = {k: torch.from_numpy(np.fromfile(os.path.join(d, k + ".f32"), dtype="<f4").reshape(s)).requires_grad_(True)
     for k, s in shapes.items()}
v = {k: torch.zeros(s) for k, s in shapes.items()}
x = torch.from_numpy(np.fromfile(os.path.join(d, "x.f32"), dtype="<f4").reshape(steps, B, 1, 10, 10))
labels = torch.from_numpy(np.fromfile(os.path.join(d, "labels.u32"), dtype="<u4").astype(np.int64).reshape(steps, B))
losses = []
for t in range(steps):
    h = F.max_pool2d(torch.relu(F.conv2d(x[t], p["c1.w"], p["c1.b"], padding=1)), 2)
    h = F.avg_pool2d(torch.tanh(F.conv2d(h, p["c2.w"], p["c2.b"])), 2, 1)
    logits = h.reshape(B, 24) @ p["fc.w"] + p["fc.b"]
    loss = F.cross_entropy(logits, labels[t], reduction="none")
    losses.append(loss.detach().numpy())
    for q in p.values():
        q.grad = None
    loss.mean().backward()
    lr = np.float32(float(lr0) * (total - t) / total) if t < total else np.float32(0)
    with torch.no_grad():
        for k, q in p.items():
            v[k] = v[k] * m + q.grad
            q -= lr * v[k]
np.stack(losses).astype("<f4").tofile(os.path.join(d, "loss.f32"))
for k, q in p.items():
    q.detach().numpy().astype("<f4").tofile(os.path.join(d, "final_" + k + ".f32"))
