#!/usr/bin/python3
"""PyTorch's side of tests/opgraph/cnn_ops_test.cpp: writes seeded cases of the op graph's
N-D and CNN ops into DIR: for each case NAME, its inputs (NAME.<operand>.f32, raw
little-endian f32) and PyTorch 1.13's result (NAME.y.f32), and one line in DIR/cases.txt:

  NAME OP key=v1,v2,... ...

with the operands' shapes (x=, w=, b=, b2=), the op's attributes and the result's shape (y=).
Usage: torch_cnn_cases.py DIR SEED"""
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

d, seed = sys.argv[1], int(sys.argv[2])
os.makedirs(d, exist_ok=True)
g = torch.Generator().manual_seed(seed)
torch.set_num_threads(1)
lines = []


def rand(*shape):
    return torch.rand(*shape, generator=g, dtype=torch.float32) * 2 - 1


def emit(name, op, tensors, attrs, y, outputs=None):
    """outputs: more results by name (gradient cases: dx, dw, db), written as NAME.<k>.f32
    and listed in out=..."""
    outputs = dict(outputs or {})
    if y is not None:
        outputs = {"y": y, **outputs}
    for k, t in list(tensors.items()) + list(outputs.items()):
        t.detach().numpy().astype("<f4").tofile(os.path.join(d, f"{name}.{k}.f32"))
    fields = [f"{k}={','.join(str(s) for s in t.shape)}" for k, t in list(tensors.items()) + list(outputs.items())]
    fields += [f"{k}={','.join(str(v) for v in vs)}" for k, vs in attrs.items()]
    fields.append(f"out={','.join(outputs)}")
    lines.append(" ".join([name, op] + fields))


def conv(name, n, c, h, w, m, kh, kw, stride=(1, 1), pads=(0, 0, 0, 0), dil=(1, 1), groups=1, bias=True):
    x, wt = rand(n, c, h, w), rand(m, c // groups, kh, kw)
    b = rand(m) if bias else None
    t, l, bo, r = pads
    y = F.conv2d(F.pad(x, (l, r, t, bo)), wt, b, stride=stride, dilation=dil, groups=groups)
    tensors = {"x": x, "w": wt}
    if bias:
        tensors["b"] = b
    emit(name, "conv2d", tensors, {"stride": stride, "pads": pads, "dil": dil, "groups": [groups]}, y)


def pool(name, kind, n, c, h, w, k, stride, pad=(0, 0), ceil=False, include_pad=False):
    x = rand(n, c, h, w)
    if kind == "max_pool2d":
        y = F.max_pool2d(x, k, stride, pad, ceil_mode=ceil)
    else:
        y = F.avg_pool2d(x, k, stride, pad, ceil_mode=ceil, count_include_pad=include_pad)
    emit(name, kind, {"x": x}, {"kernel": k, "stride": stride, "pads": (pad[0], pad[1], pad[0], pad[1]),
                                 "ceil": [int(ceil)], "include_pad": [int(include_pad)]}, y)


conv("conv_plain", 2, 3, 9, 9, 4, 3, 3)
conv("conv_lenet1", 4, 1, 28, 28, 6, 5, 5, pads=(2, 2, 2, 2))
conv("conv_stride_pad", 2, 3, 11, 10, 5, 3, 3, stride=(2, 2), pads=(1, 1, 1, 1))
conv("conv_asym", 1, 2, 7, 9, 3, 2, 3, stride=(1, 2), pads=(0, 1, 1, 2), bias=False)
conv("conv_dilated", 2, 3, 12, 12, 4, 3, 3, pads=(2, 2, 2, 2), dil=(2, 2))
conv("conv_groups", 2, 4, 8, 8, 6, 3, 3, pads=(1, 1, 1, 1), groups=2)
conv("conv_depthwise", 2, 5, 9, 9, 5, 3, 3, stride=(2, 2), pads=(1, 1, 1, 1), groups=5)
conv("conv_1x1", 3, 16, 6, 6, 24, 1, 1)
conv("conv_wide", 1, 8, 30, 30, 32, 3, 3, pads=(1, 1, 1, 1))
pool("max_2x2", "max_pool2d", 2, 3, 8, 8, (2, 2), (2, 2))
pool("max_3x3s2p1", "max_pool2d", 2, 4, 11, 11, (3, 3), (2, 2), pad=(1, 1))
pool("max_ceil", "max_pool2d", 1, 3, 7, 9, (3, 3), (2, 2), ceil=True)
pool("avg_2x2", "avg_pool2d", 2, 3, 8, 8, (2, 2), (2, 2))
pool("avg_pad_excl", "avg_pool2d", 2, 3, 9, 9, (3, 3), (2, 2), pad=(1, 1))
pool("avg_pad_incl", "avg_pool2d", 2, 3, 9, 9, (3, 3), (2, 2), pad=(1, 1), include_pad=True)
pool("avg_ceil", "avg_pool2d", 1, 2, 7, 8, (2, 3), (2, 2), ceil=True, include_pad=True)
x = rand(2, 6, 5, 5)
emit("global_avg", "global_avg_pool", {"x": x}, {}, F.adaptive_avg_pool2d(x, 1))
x = rand(2, 7, 4, 5)
emit("lrn5", "lrn", {"x": x}, {"size": [5], "f": [1e-2, 0.75, 2.0]}, F.local_response_norm(x, 5, 1e-2, 0.75, 2.0))
x, b = rand(2, 6, 4, 5), rand(6, 1, 1)
emit("add_channel", "add", {"x": x, "b2": b}, {}, x + b)
x, b = rand(3, 7, 5), rand(5)
emit("mul_row", "mul", {"x": x, "b2": b}, {}, x * b)
x, b = rand(2, 3, 4, 4), rand(2, 3, 4, 4)
emit("sub_same", "sub", {"x": x, "b2": b}, {}, x - b)
x, b = rand(2, 3, 4), rand(1) + 3
emit("div_scalar", "div", {"x": x, "b2": b}, {}, x / b)
x = rand(2, 3, 5, 5) * 4
emit("leaky", "leaky_relu", {"x": x}, {"f": [0.1, 0]}, F.leaky_relu(x, 0.1))
emit("sigmoid", "sigmoid", {"x": x}, {}, torch.sigmoid(x))
emit("tanh", "tanh", {"x": x}, {}, torch.tanh(x))
emit("clip", "clip", {"x": x}, {"f": [-0.5, 1.5]}, torch.clamp(x, -0.5, 1.5))
x = rand(2, 3, 4, 5)
emit("transpose", "transpose", {"x": x}, {"perm": [0, 2, 3, 1]}, x.permute(0, 2, 3, 1))
x, b = rand(2, 3, 4, 4), rand(2, 5, 4, 4)
emit("concat_c", "concat", {"x": x, "b2": b}, {"axis": [1]}, torch.cat([x, b], 1))



# Gradients: PyTorch's autograd of the forward op given an upstream gradient dy.
def conv_grad(name, n, c, h, w, m, kh, kw, stride=(1, 1), pads=(0, 0, 0, 0), dil=(1, 1), groups=1):
    x = rand(n, c, h, w).requires_grad_(True)
    wt = rand(m, c // groups, kh, kw).requires_grad_(True)
    b = rand(m).requires_grad_(True)
    t, l, bo, r = pads
    y = F.conv2d(F.pad(x, (l, r, t, bo)), wt, b, stride=stride, dilation=dil, groups=groups)
    dy = rand(*y.shape)
    y.backward(dy)
    emit(name, "conv2d_grad", {"x": x, "w": wt, "dy": dy},
         {"stride": stride, "pads": pads, "dil": dil, "groups": [groups]}, None,
         {"dx": x.grad, "dw": wt.grad, "db": b.grad})


def pool_grad(name, kind, n, c, h, w, k, stride, pad=(0, 0), ceil=False, include_pad=False):
    x = rand(n, c, h, w).requires_grad_(True)
    if kind == "max_pool2d":
        y = F.max_pool2d(x, k, stride, pad, ceil_mode=ceil)
    else:
        y = F.avg_pool2d(x, k, stride, pad, ceil_mode=ceil, count_include_pad=include_pad)
    dy = rand(*y.shape)
    y.backward(dy)
    emit(name, kind + "_grad", {"x": x, "dy": dy}, {"kernel": k, "stride": stride, "pads": (pad[0], pad[1], pad[0], pad[1]),
         "ceil": [int(ceil)], "include_pad": [int(include_pad)]}, None, {"dx": x.grad})


def unary_grad(name, op, f, p=(0, 0)):
    x = (rand(2, 3, 5, 5) * 4).requires_grad_(True)
    y = f(x)
    dy = rand(*y.shape)
    y.backward(dy)
    emit(name, op + "_grad", {"x": x, "dy": dy}, {"f": p}, None, {"dx": x.grad})


conv_grad("conv_grad_lenet", 4, 1, 12, 12, 6, 5, 5, pads=(2, 2, 2, 2))
conv_grad("conv_grad_stride", 2, 3, 11, 10, 5, 3, 3, stride=(2, 2), pads=(1, 1, 1, 1))
conv_grad("conv_grad_dilated_groups", 3, 4, 9, 9, 6, 3, 3, pads=(2, 1, 2, 1), dil=(2, 1), groups=2)
conv_grad("conv_grad_many", 5, 16, 5, 5, 40, 3, 3)
pool_grad("max_grad_2x2", "max_pool2d", 2, 3, 8, 8, (2, 2), (2, 2))
pool_grad("max_grad_overlap", "max_pool2d", 2, 4, 9, 9, (3, 3), (2, 2), pad=(1, 1))
pool_grad("avg_grad_incl", "avg_pool2d", 2, 3, 9, 9, (3, 3), (2, 2), pad=(1, 1), include_pad=True)
pool_grad("avg_grad_ceil", "avg_pool2d", 1, 2, 7, 8, (2, 3), (2, 2), ceil=True)
unary_grad("leaky_grad", "leaky_relu", lambda x: F.leaky_relu(x, 0.1), (0.1, 0))
unary_grad("sigmoid_grad", "sigmoid", torch.sigmoid)
unary_grad("tanh_grad", "tanh", torch.tanh)
unary_grad("clip_grad", "clip", lambda x: torch.clamp(x, -0.5, 1.5), (-0.5, 1.5))

with open(os.path.join(d, "cases.txt"), "w") as f:
    f.write("\n".join(lines) + "\n")
