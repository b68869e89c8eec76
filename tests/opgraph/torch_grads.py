#!/usr/bin/python3
"""PyTorch's side of tests/opgraph/autodiff_test.cpp: reads an MLP's weights and a batch
from DIR (raw little-endian: x.f32 [m,in], labels.u32 [m], w1.f32 [in,h1], b1.f32, w2.f32,
b2.f32, w3.f32, b3.f32; shapes in shapes.txt as "name d0 d1" lines), computes the mean
softmax cross-entropy of relu(relu(x w1 + b1) w2 + b2) w3 + b3 with autograd in float32,
and writes loss.f32 (1 value) and g_<name>.f32 for every weight."""
import os
import sys

import numpy as np
import torch

d = sys.argv[1]
shapes = {}
with open(os.path.join(d, "shapes.txt")) as f:
    for line in f:
        name, *dims = line.split()
        shapes[name] = [int(v) for v in dims]


def load(name, dtype):
    return np.fromfile(os.path.join(d, name + (".u32" if dtype == np.uint32 else ".f32")), dtype=dtype).reshape(shapes[name])


torch.set_num_threads(1)
x = torch.from_numpy(load("x", np.float32))
labels = torch.from_numpy(load("labels", np.uint32).astype(np.int64))
names = ["w1", "b1", "w2", "b2", "w3", "b3"]
p = {n: torch.from_numpy(load(n, np.float32)).requires_grad_(True) for n in names}
h = torch.relu(x @ p["w1"] + p["b1"])
h = torch.relu(h @ p["w2"] + p["b2"])
logits = h @ p["w3"] + p["b3"]
loss = torch.nn.functional.cross_entropy(logits, labels)
loss.backward()
loss.detach().numpy().astype(np.float32).reshape(1).tofile(os.path.join(d, "loss.f32"))
for n in names:
    p[n].grad.numpy().astype(np.float32).tofile(os.path.join(d, "g_" + n + ".f32"))
