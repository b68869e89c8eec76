#!/usr/bin/python3
"""Small ONNX models and PyTorch's answers for the ONNX import tests (onnx_import_test.cpp).

Each model is built in PyTorch 1.13 with seeded weights (or, for what PyTorch never emits,
such as auto_pad or Gemm's alpha/beta, written with onnx.helper and computed here with
torch.nn.functional / numpy in float32), exported with torch.onnx.export at one or more
opsets, and written with seeded inputs and PyTorch's outputs as .npy:

  OUT/NAME.onnx  OUT/NAME.INPUT.npy  OUT/NAME.OUTPUT.npy

OUT/manifest.txt lists one model a line:  NAME BATCH lower|eval INPUT... -> OUTPUT...
(BATCH: the --batch to import with, 0 for none; `lower`: the lowering onto tiles supports
every op, so `tessera compile` must take it; `eval`: not yet, the CLI test skips it while
compile says so).
OUT/errors/ holds broken models for the error tests, named for what is wrong.

Usage: make_models.py OUT      (seed 2026 unless --seed; prints it)
"""
import argparse
import os

import numpy as np
import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F
from onnx import TensorProto, helper, numpy_helper

OUT = ""
MANIFEST = []


def save(name, batch, lowerable, inputs, outputs):
    for k, v in {**inputs, **outputs}.items():
        np.save(os.path.join(OUT, f"{name}.{k}.npy"), np.ascontiguousarray(v, dtype=np.float32))
    MANIFEST.append(f"{name} {batch} {'lower' if lowerable else 'eval'} {' '.join(inputs)} -> {' '.join(outputs)}")


def export(name, model, x, opsets, lowerable=True, dynamic_batch=False, keep_bn=False, x2=None):
    """Exports `model` at each opset as NAME_opsetN; inputs x (and x2), output y."""
    model.eval()
    args = (x,) if x2 is None else (x, x2)
    in_names = ["x"] if x2 is None else ["x", "x2"]
    with torch.no_grad():
        y = model(*args)
    for opset in opsets:
        full = f"{name}_opset{opset}"
        path = os.path.join(OUT, full + ".onnx")
        kw = {}
        if dynamic_batch:
            kw["dynamic_axes"] = {n: {0: "batch"} for n in in_names + ["y"]}
        if keep_bn:  # eval mode without the exporter's own Conv+BatchNorm fusion
            kw["training"] = torch.onnx.TrainingMode.PRESERVE
        torch.onnx.export(model, args, path, input_names=in_names, output_names=["y"], opset_version=opset, **kw)
        onnx.checker.check_model(onnx.load(path))
        ins = {"x": x.numpy()} if x2 is None else {"x": x.numpy(), "x2": x2.numpy()}
        save(full, x.shape[0] if dynamic_batch else 0, lowerable, ins, {"y": y.numpy()})


def write_helper_model(name, nodes, inputs, outputs, initializers, opset, feeds, results, lowerable=True):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializer=initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="make_models.py")
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(OUT, name + ".onnx"))
    save(name, 0, lowerable, feeds, results)


# ---- models PyTorch exports

class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2, self.fc3 = nn.Linear(20, 32), nn.Linear(32, 16), nn.Linear(16, 10)

    def forward(self, x):
        x = torch.flatten(x, 1)
        return F.softmax(self.fc3(F.relu(self.fc2(F.relu(self.fc1(x))))), dim=1)


class MlpMatMul(nn.Module):
    """x @ W + b with explicit parameters: MatMul and Add rather than Gemm."""

    def __init__(self):
        super().__init__()
        self.w1, self.b1 = nn.Parameter(torch.randn(24, 16) * 0.3), nn.Parameter(torch.randn(16))
        self.w2, self.b2 = nn.Parameter(torch.randn(16, 10) * 0.3), nn.Parameter(torch.randn(10))

    def forward(self, x):
        return torch.relu(x @ self.w1 + self.b1) @ self.w2 + self.b2


class SharedLinear(nn.Module):
    """One Linear applied twice: one initializer behind two Gemms."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(12, 12)

    def forward(self, x):
        return self.fc(torch.relu(self.fc(x)))


class LeNet5(nn.Module):
    def __init__(self, pool="max", act="relu"):
        super().__init__()
        self.conv1, self.conv2 = nn.Conv2d(1, 6, 5, padding=2), nn.Conv2d(6, 16, 5)
        self.pool = nn.MaxPool2d(2) if pool == "max" else nn.AvgPool2d(2)
        self.act = torch.relu if act == "relu" else torch.tanh
        self.fc1, self.fc2, self.fc3 = nn.Linear(16 * 5 * 5, 120), nn.Linear(120, 84), nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(self.act(self.conv1(x)))
        x = self.pool(self.act(self.conv2(x)))
        x = x.view(x.size(0), -1)
        return self.fc3(self.act(self.fc2(self.act(self.fc1(x)))))


class BnNet(nn.Module):
    """BatchNorm after convs (folded), after a relu and after a linear (mul + add)."""

    def __init__(self):
        super().__init__()
        self.c1, self.b1 = nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8)
        self.dw, self.b2 = nn.Conv2d(8, 8, 3, padding=1, groups=8), nn.BatchNorm2d(8)
        self.b3 = nn.BatchNorm2d(8)
        self.fc, self.b4 = nn.Linear(8 * 6 * 6, 12), nn.BatchNorm1d(12)
        for bn in (self.b1, self.b2, self.b3, self.b4):
            nn.init.uniform_(bn.weight, 0.5, 1.5)
            nn.init.uniform_(bn.bias, -0.5, 0.5)
            bn.running_mean.uniform_(-0.5, 0.5)
            bn.running_var.uniform_(0.5, 2.0)

    def forward(self, x):
        x = F.relu(self.b1(self.c1(x)))
        x = self.b3(F.relu(self.b2(self.dw(x))))
        return self.b4(self.fc(torch.flatten(x, 1)))


class ConvGeometry(nn.Module):
    """Stride, asymmetric sizes, dilation, groups, odd sizes."""

    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(4, 6, (3, 2), stride=(2, 1), padding=(1, 2), dilation=(1, 2))
        self.b = nn.Conv2d(6, 9, 3, stride=2, padding=1, groups=3)
        self.c = nn.Conv2d(9, 5, 1)

    def forward(self, x):
        return self.c(F.relu(self.b(F.relu(self.a(x)))))


class Activations(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 4, 3)

    def forward(self, x):
        a = F.leaky_relu(self.conv(x), 0.2)
        # Side by side rather than summed: a sum cancels, and PyTorch's sigmoid is not
        # correctly rounded (1-2 ulps), so a sum would test the cancellation, not the import.
        return torch.cat([torch.clamp(torch.sigmoid(a) * 3.0 - 1.0, -0.5, 1.25), torch.tanh(a),
                          F.relu6(a * 4.0) / 2.0], dim=1)


class Pools(nn.Module):
    def __init__(self):
        super().__init__()
        self.mp = nn.MaxPool2d(3, stride=2, padding=1, ceil_mode=True)
        self.ap = nn.AvgPool2d(3, stride=2, padding=1, ceil_mode=False, count_include_pad=False)
        self.ap2 = nn.AvgPool2d(2, stride=1)

    def forward(self, x):
        a = self.mp(x)
        b = self.ap(x)
        c = self.ap2(a)
        return torch.cat([torch.flatten(c, 1), torch.flatten(F.adaptive_avg_pool2d(b, 1), 1)], dim=1)


class Shapes(nn.Module):
    """Concat, Transpose, Reshape, Squeeze/Unsqueeze, a second input, elementwise ops."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 1)
        self.fc = nn.Linear(6 * 5 * 8, 7)

    def forward(self, x, x2):
        a = torch.cat([self.conv(x), x2], dim=1)          # [N,8,5,6]
        a = a.permute(0, 3, 2, 1)                         # [N,6,5,8]
        a = torch.unsqueeze(a, 1)                         # [N,1,6,5,8]
        a = torch.squeeze(a, 1) / 2.0 - 0.25              # [N,6,5,8]
        a = a.reshape(a.shape[0], -1)                     # [N,240]
        return torch.unsqueeze(self.fc(a) * 1.5, 2).squeeze(2)


class SoftmaxAxis(nn.Module):
    def forward(self, x):
        return torch.softmax(x, dim=1) + torch.softmax(x, dim=-1)


# ---- models written with onnx.helper (what PyTorch does not emit)

class ConvFc(nn.Module):
    """A conv whose windows and weights land on the tiles the fc's 0.75 MB of weights fill, on
    `small`: it fits only once the conv alone gets a smaller memory proportion (refit.h)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(8, 32, 3, padding=1)
        self.fc = nn.Linear(32 * 16 * 16, 23)
        # outputs near 1, so that sums of 8,192 terms in another order stay within 1e-5 relative
        nn.init.constant_(self.fc.bias, 1.0)

    def forward(self, x):
        return self.fc(torch.flatten(torch.relu(self.conv(x)), 1))


def auto_pad_model(rng, mode):
    # Odd total padding on both axes (1 each), so that SAME_UPPER and SAME_LOWER differ.
    x = rng.standard_normal((2, 3, 10, 9)).astype(np.float32)
    w = (rng.standard_normal((4, 3, 3, 4)) * 0.3).astype(np.float32)
    b = rng.standard_normal(4).astype(np.float32)
    stride = (2, 3)
    xt = torch.from_numpy(x)
    if mode == "VALID":
        y = F.conv2d(xt, torch.from_numpy(w), torch.from_numpy(b), stride=stride)
    else:
        pads = []
        for i, (n, k, s) in enumerate(zip((10, 9), (3, 4), stride)):
            out = -(-n // s)
            total = max(0, (out - 1) * s + k - n)
            small, big = total // 2, total - total // 2
            pads.append((small, big) if mode == "SAME_UPPER" else (big, small))
        # F.pad takes (left, right, top, bottom)
        xp = F.pad(xt, (pads[1][0], pads[1][1], pads[0][0], pads[0][1]))
        y = F.conv2d(xp, torch.from_numpy(w), torch.from_numpy(b), stride=stride)
    node = helper.make_node("Conv", ["x", "w", "b"], ["y"], name="conv", auto_pad=mode, strides=list(stride))
    write_helper_model(f"autopad_{mode.lower()}", [node],
                       [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
                       [helper.make_tensor_value_info("y", TensorProto.FLOAT, tuple(y.shape))],
                       [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")], 13, {"x": x},
                       {"y": y.numpy()})


def lrn_model(rng, size, alpha, beta, bias):
    # PyTorch exports LocalResponseNorm as a long decomposition, not LRN: written here.
    x = rng.standard_normal((2, 7, 4, 5)).astype(np.float32) * 2
    y = F.local_response_norm(torch.from_numpy(x), size, alpha=alpha, beta=beta, k=bias)
    node = helper.make_node("LRN", ["x"], ["y"], name="lrn", size=size, alpha=alpha, beta=beta, bias=bias)
    write_helper_model(f"lrn_size{size}", [node], [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
                       [helper.make_tensor_value_info("y", TensorProto.FLOAT, x.shape)], [], 13, {"x": x},
                       {"y": y.numpy()})


def pool_model(rng, name, op, kernel, stride, pad, ceil, cip=0):
    # AveragePool with count_include_pad and padding: PyTorch exports Pad + AveragePool.
    x = rng.standard_normal((2, 3, 9, 8)).astype(np.float32)
    xt = torch.from_numpy(x)
    if op == "MaxPool":
        y = F.max_pool2d(xt, kernel, stride, pad, ceil_mode=bool(ceil))
        attrs = {}
    else:
        y = F.avg_pool2d(xt, kernel, stride, pad, ceil_mode=bool(ceil), count_include_pad=bool(cip))
        attrs = {"count_include_pad": cip}
    node = helper.make_node(op, ["x"], ["y"], name=name, kernel_shape=[kernel, kernel], strides=[stride, stride],
                            pads=[pad] * 4, ceil_mode=ceil, **attrs)
    write_helper_model(name, [node], [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
                       [helper.make_tensor_value_info("y", TensorProto.FLOAT, tuple(y.shape))], [], 13, {"x": x},
                       {"y": y.numpy()})


def gemm_model(rng, name, trans_a, trans_b, alpha, beta, c_shape):
    a = rng.standard_normal((5, 7) if not trans_a else (7, 5)).astype(np.float32)
    bm = rng.standard_normal((7, 6) if not trans_b else (6, 7)).astype(np.float32)
    c = rng.standard_normal(c_shape).astype(np.float32)
    am = a.T if trans_a else a
    bb = bm.T if trans_b else bm
    y = (np.float64(alpha) * (am.astype(np.float64) @ bb.astype(np.float64)) + np.float64(beta) * c).astype(np.float32)
    node = helper.make_node("Gemm", ["a", "b", "c"], ["y"], name="gemm", alpha=alpha, beta=beta, transA=trans_a,
                            transB=trans_b)
    write_helper_model(name, [node], [helper.make_tensor_value_info("a", TensorProto.FLOAT, a.shape)],
                       [helper.make_tensor_value_info("y", TensorProto.FLOAT, y.shape)],
                       [numpy_helper.from_array(bm, "b"), numpy_helper.from_array(c, "c")], 13, {"a": a}, {"y": y})


def error_models(rng):
    d = os.path.join(OUT, "errors")
    os.makedirs(d, exist_ok=True)
    f32 = TensorProto.FLOAT

    def write(name, nodes, inputs, outputs, inits=(), opset=13, check=False):
        model = helper.make_model(helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits)),
                                  opset_imports=[helper.make_opsetid("", opset)])
        if check:
            onnx.checker.check_model(model)
        onnx.save(model, os.path.join(d, name + ".onnx"))

    x4 = helper.make_tensor_value_info("x", f32, [1, 2, 5, 5])
    w = numpy_helper.from_array(rng.standard_normal((3, 2, 3, 3)).astype(np.float32), "w")
    write("unsupported_op", [helper.make_node("Relu", ["x"], ["r"], name="first"),
                             helper.make_node("Elu", ["r"], ["y"], name="elu1")],
          [x4], [helper.make_tensor_value_info("y", f32, [1, 2, 5, 5])], check=True)
    write("bad_auto_pad", [helper.make_node("Conv", ["x", "w"], ["y"], name="c1", auto_pad="SAME_MIDDLE")],
          [x4], [helper.make_tensor_value_info("y", f32, None)], [w], check=False)
    write("conv3d", [helper.make_node("Conv", ["x", "w"], ["y"], name="c3")],
          [helper.make_tensor_value_info("x", f32, [1, 2, 4, 5, 5])], [helper.make_tensor_value_info("y", f32, None)],
          [numpy_helper.from_array(np.zeros((3, 2, 3, 3, 3), np.float32), "w")])
    write("maxpool_dilation", [helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2], dilations=[2, 2])],
          [x4], [helper.make_tensor_value_info("y", f32, None)])
    write("dynamic_dim", [helper.make_node("Relu", ["x"], ["y"])],
          [helper.make_tensor_value_info("x", f32, ["batch", 3, "height", 8])],
          [helper.make_tensor_value_info("y", f32, None)])
    write("dynamic_batch", [helper.make_node("Relu", ["x"], ["y"])],
          [helper.make_tensor_value_info("x", f32, ["batch", 3, 8, 8])], [helper.make_tensor_value_info("y", f32, None)])
    write("opset_9", [helper.make_node("Relu", ["x"], ["y"])], [x4], [helper.make_tensor_value_info("y", f32, None)],
          opset=9)
    write("missing_input", [helper.make_node("Add", ["x", "nowhere"], ["y"], name="add1")], [x4],
          [helper.make_tensor_value_info("y", f32, None)], check=False)
    # Truncated and random files: from LeNet (written above) and seeded bytes.
    with open(os.path.join(OUT, "lenet_max_opset13.onnx"), "rb") as f:
        full = f.read()
    with open(os.path.join(d, "truncated.onnx"), "wb") as f:
        f.write(full[: len(full) // 2])
    with open(os.path.join(d, "random.onnx"), "wb") as f:
        f.write(rng.integers(0, 256, 4096, dtype=np.uint8).tobytes())


def main():
    global OUT
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=2026)
    a = ap.parse_args()
    OUT = a.out
    os.makedirs(OUT, exist_ok=True)
    print(f"make_models.py: seed {a.seed}, torch {torch.__version__}, onnx {onnx.__version__}")
    torch.manual_seed(a.seed)
    rng = np.random.default_rng(a.seed)
    torch.set_num_threads(1)

    export("mlp", Mlp(), torch.randn(4, 1, 4, 5), [11, 13, 17])
    export("mlp_dynamic", Mlp(), torch.randn(6, 1, 4, 5), [13], dynamic_batch=True)
    export("mlp_matmul", MlpMatMul(), torch.randn(5, 24), [11, 17])
    export("shared_linear", SharedLinear(), torch.randn(3, 12), [13])
    export("lenet_max", LeNet5("max", "relu"), torch.randn(2, 1, 28, 28), [11, 13, 17])
    export("lenet_avg_tanh", LeNet5("avg", "tanh"), torch.randn(3, 1, 28, 28), [13])
    export("lenet_dynamic", LeNet5("max", "relu"), torch.randn(2, 1, 28, 28), [13], dynamic_batch=True)
    export("bn", BnNet(), torch.randn(2, 3, 6, 6), [11, 14, 17], keep_bn=True)
    export("bn_exporter_fused", BnNet(), torch.randn(2, 3, 6, 6), [13])
    export("conv_geometry", ConvGeometry(), torch.randn(2, 4, 11, 9), [11, 17])
    export("activations", Activations(), torch.randn(2, 2, 7, 6), [11, 13, 17])
    export("pools", Pools(), torch.randn(2, 3, 9, 10), [11, 17])
    export("shapes", Shapes(), torch.randn(2, 3, 5, 6), [11, 13, 17], x2=torch.randn(2, 4, 5, 6))
    # Softmax over an inner axis: rows of a transpose, not yet lowered onto tiles.
    export("softmax_axis", SoftmaxAxis(), torch.randn(2, 3, 4, 5), [11, 13])
    for mode in ("SAME_UPPER", "SAME_LOWER", "VALID"):
        auto_pad_model(rng, mode)
    pool_model(rng, "avgpool_include_pad", "AveragePool", 3, 2, 1, 0, 1)
    pool_model(rng, "avgpool_include_pad_ceil", "AveragePool", 3, 2, 1, 1, 1)
    pool_model(rng, "avgpool_exclude_pad_ceil", "AveragePool", 2, 2, 1, 1, 0)
    pool_model(rng, "maxpool_ceil", "MaxPool", 2, 3, 0, 1)
    lrn_model(rng, 3, 1e-2, 0.75, 2.0)
    lrn_model(rng, 5, 1e-4, 0.75, 1.0)
    gemm_model(rng, "gemm_plain", 0, 1, 1.0, 1.0, (6,))
    gemm_model(rng, "gemm_alpha_beta", 0, 0, 0.5, 2.0, (6,))
    gemm_model(rng, "gemm_trans_a_matrix_c", 1, 1, 1.5, 0.25, (5, 6))
    export("conv_fc", ConvFc(), torch.randn(8, 8, 16, 16), [13])
    error_models(rng)
    with open(os.path.join(OUT, "manifest.txt"), "w") as f:
        f.write("\n".join(MANIFEST) + "\n")
    print(f"make_models.py: {len(MANIFEST)} models in {OUT}")


if __name__ == "__main__":
    main()
