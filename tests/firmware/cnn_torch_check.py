#!/usr/bin/python3
"""The CNN codelets against PyTorch 1.13: each runs as a vertex of tessera-firmware.elf on
the ISS (through fw_vertex_tool; the same vertex natively must give the same bits) on random
odd shapes (strides 1..3, pads -2..2, dilation 1..2, kernels 1..5, ceil-mode-like output
sizes), and is compared with torch.nn.functional: conv2d and its autograd input and weight
gradients, the bias gradient (channel_sum), max_pool2d and avg_pool2d (both
count_include_pad, ceil_mode both ways) and their backward, local_response_norm (odd sizes;
even sizes against ONNX's window in double precision), leaky_relu, sigmoid, tanh, hardtanh
and their gradients, and broadcasting add/sub/mul/div/maximum/minimum.

Tolerances: the fma-chain sums (conv and its gradients, channel_sum, global pooling) within
1e-5 of the sum of the terms' magnitudes (an f32 chain of n terms errs by at most about
n * 2^-24 of that); pooling, leaky_relu, hardtanh, the element-wise ops and the
sigmoid/tanh gradients given the same forward output bit for bit; sigmoid, tanh and lrn
within a few ulps (printed). Exits 77 (ctest: skipped) when torch or numpy is missing.

usage: cnn_torch_check.py path/to/fw_vertex_tool [seed]
"""
import random
import subprocess
import sys

try:
    import numpy as np
    import torch
    import torch.nn.functional as F
except ImportError:
    print("torch or numpy missing: skipped")
    sys.exit(77)

TOOL = sys.argv[1]
SEED = int(sys.argv[2]) if len(sys.argv) > 2 else random.SystemRandom().randrange(1 << 30)
print(f"seed {SEED} (rerun: cnn_torch_check.py TOOL {SEED})")
rng = random.Random(SEED)
torch.manual_seed(SEED)
f32 = np.float32
failures = []
worst = {}


def u32(v):
    if isinstance(v, float):
        return int(np.array([v], dtype=f32).view(np.uint32)[0])
    return int(v) & 0xffffffff


class Buf:
    def __init__(self, index):
        self.index = index


def vertex(codelet, buffers, fields):
    """Runs the vertex on the ISS and natively; the buffers after (the ISS's), as f32."""
    words = [len(buffers)]
    for b in buffers:
        a = np.ascontiguousarray(np.asarray(b, dtype=f32)).reshape(-1).view(np.uint32)
        words += [a.size] + a.tolist()
    words.append(len(fields))
    for f in fields:
        words += [1, f.index] if isinstance(f, Buf) else [0, u32(f)]
    data = np.array(words, dtype=np.uint32).tobytes()
    outs = {}
    for mode in ("iss", "native"):
        r = subprocess.run([TOOL, mode, codelet], input=data, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if r.returncode != 0:
            raise RuntimeError(f"{codelet} ({mode}): {r.stderr.decode()}")
        outs[mode] = np.frombuffer(r.stdout, dtype=np.uint32)
    a, b = outs["iss"], outs["native"]
    nan = lambda w: (w & 0x7fffffff) > 0x7f800000
    bad = int(((a != b) & ~(nan(a) & nan(b))).sum())
    if bad:
        failures.append(f"{codelet}: ISS and native differ in {bad} words")
    res, at = [], 0
    for buf in buffers:
        n = np.asarray(buf).size
        res.append(a[at:at + n].view(f32).copy())
        at += n
    return res


def ulps(a, b):
    def key(x):
        i = np.asarray(x, dtype=f32).reshape(-1).view(np.int32).astype(np.int64)
        return np.where(i < 0, -(i & 0x7fffffff), i)
    return np.abs(key(a) - key(b))


def note(what, value):
    worst[what] = max(worst.get(what, 0.0), float(value))


def check_sum(what, got, ref, mag, tol=1e-5):
    """|got - ref| within tol of the magnitude of the terms (and both NaN together)."""
    got, ref, mag = (np.asarray(v, dtype=np.float64).reshape(-1) for v in (got, ref, mag))
    err = np.abs(got - ref) / np.maximum(mag, 1e-30)
    note(what, err.max(initial=0))
    if np.isnan(err).any() or err.max(initial=0) > tol:
        failures.append(f"{what}: relative error {err.max():.3g} (tolerance {tol})")


def check_bits(what, got, ref):
    g = np.asarray(got, dtype=f32).reshape(-1)
    r = np.asarray(ref, dtype=f32).reshape(-1).copy()
    bad = (g.view(np.uint32) != r.view(np.uint32)) & ~(np.isnan(g) & np.isnan(r))
    note(what + " (words differing)", bad.sum())
    if bad.any():
        i = int(np.argmax(bad))
        failures.append(f"{what}: {int(bad.sum())} of {g.size} words differ, e.g. [{i}] {g[i]!r} vs torch {r[i]!r}")


def check_ulps(what, got, ref, tol):
    d = ulps(got, ref)
    note(what + " (ulps)", d.max(initial=0))
    if d.max(initial=0) > tol:
        failures.append(f"{what}: {int(d.max())} ulps from torch (tolerance {tol})")


def t(a):
    return torch.from_numpy(np.asarray(a, dtype=f32).copy())


# ---- convolution ---------------------------------------------------------------------

def conv_case():
    cin, cout = rng.randint(1, 4), rng.randint(1, 4)
    kh, kw = rng.randint(1, 5), rng.randint(1, 5)
    sh, sw = rng.randint(1, 3), rng.randint(1, 3)
    dh, dw = rng.randint(1, 2), rng.randint(1, 2)
    h = rng.randint(dh * (kh - 1) + 1, 13) | 1
    wd = rng.randint(dw * (kw - 1) + 1, 12)
    ph, pw = rng.randint(-2, 2), rng.randint(-2, 2)
    # outputs: as floor((n + 2p - d(k-1) - 1)/s) + 1, sometimes one more (windows past the
    # end, as ceil mode makes), at least 1
    oh = max(1, (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1 + rng.randint(0, 1))
    ow = max(1, (wd + 2 * pw - dw * (kw - 1) - 1) // sw + 1 + rng.randint(0, 1))
    return cin, h, wd, cout, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw


def torch_conv(c, x, w, b):
    """conv2d with these pads (negative: cropping) and output size, by explicit padding."""
    cin, h, wd, cout, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw = c
    # rows the windows reach: (oh - 1) sh + dh (kh - 1) + 1 from -ph
    bottom = (oh - 1) * sh + dh * (kh - 1) + 1 - ph - h
    right = (ow - 1) * sw + dw * (kw - 1) + 1 - pw - wd
    # pad the positive amounts, then crop the negative ones (F.pad crops before padding)
    xp = F.pad(x[None], (max(pw, 0), max(right, 0), max(ph, 0), max(bottom, 0)))
    xp = xp[:, :, max(-ph, 0):xp.shape[2] - max(-bottom, 0), max(-pw, 0):xp.shape[3] - max(-right, 0)]
    return F.conv2d(xp, w, b, stride=(sh, sw), dilation=(dh, dw))[0]


def check_conv(n):
    for _ in range(n):
        c = conv_case()
        cin, h, wd, cout, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw = c
        x, w, b = torch.randn(cin, h, wd), torch.randn(cout, cin, kh, kw), torch.randn(cout)
        dy = torch.randn(cout, oh, ow)
        fields = [cin, h, wd, cout, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw]
        name = f"conv {c}"
        y, = vertex("conv2d", [np.zeros(cout * oh * ow), x, w, b],
                    [Buf(0), Buf(1), Buf(2), Buf(3)] + fields)[:1]
        ref = torch_conv(c, x, w, b)
        assert ref.shape == (cout, oh, ow), (ref.shape, c)
        mag = torch_conv(c, x.abs(), w.abs(), b.abs())
        check_sum("conv2d", y, ref, mag)
        # gradients by autograd
        xg, wg = x.clone().requires_grad_(), w.clone().requires_grad_()
        torch_conv(c, xg, wg, b).backward(dy)
        xa, wa = x.abs().requires_grad_(), w.abs().requires_grad_()
        torch_conv(c, xa, wa, b).backward(dy.abs())
        dx, = vertex("conv2d_grad_input", [np.zeros(cin * h * wd), dy, w], [Buf(0), Buf(1), Buf(2)] + fields)[:1]
        check_sum("conv2d_grad_input", dx, xg.grad, xa.grad)
        # weight gradient summed over two images: the second accumulates into the first's
        x2, dy2 = torch.randn(cin, h, wd), torch.randn(cout, oh, ow)
        dwt, = vertex("conv2d_grad_weight", [np.zeros(wg.numel()), x, dy],
                      [Buf(0), Buf(1), Buf(2)] + fields + [0])[:1]
        check_sum("conv2d_grad_weight", dwt, wg.grad, wa.grad)
        dw2, = vertex("conv2d_grad_weight", [dwt, x2, dy2], [Buf(0), Buf(1), Buf(2)] + fields + [1])[:1]
        wg2 = w.clone().requires_grad_()
        (torch_conv(c, x, wg2, b) * dy + torch_conv(c, x2, wg2, b) * dy2).sum().backward()
        wa2 = w.abs().requires_grad_()
        (torch_conv(c, x.abs(), wa2, b) * dy.abs() + torch_conv(c, x2.abs(), wa2, b) * dy2.abs()).sum().backward()
        check_sum("conv2d_grad_weight (accumulate)", dw2, wg2.grad, wa2.grad)
        # the bias gradient: channel_sum over both images
        bs, = vertex("channel_sum", [np.zeros(cout), dy], [Buf(0), Buf(1), cout, oh * ow, 0])[:1]
        bs2, = vertex("channel_sum", [bs, dy2], [Buf(0), Buf(1), cout, oh * ow, 1])[:1]
        bg = b.clone().requires_grad_()
        (torch_conv(c, x, w, bg) * dy + torch_conv(c, x2, w, bg) * dy2).sum().backward()
        check_sum("channel_sum", bs2, bg.grad, (dy.abs() + dy2.abs()).sum((1, 2)))


# ---- pooling ---------------------------------------------------------------------------

def pool_case():
    c = rng.randint(1, 3)
    kh, kw = rng.randint(1, 5), rng.randint(1, 5)
    sh, sw = rng.randint(1, 3), rng.randint(1, 3)
    ph, pw = rng.randint(0, kh // 2), rng.randint(0, kw // 2)  # torch: pad <= kernel / 2
    h, wd = rng.randint(kh, 12) | 1, rng.randint(kw, 11)
    return c, h, wd, kh, kw, sh, sw, ph, pw, rng.random() < 0.5


def check_pool(n):
    for i in range(n):
        c, h, wd, kh, kw, sh, sw, ph, pw, ceil = pool_case()
        # max: values with ties (halves) so the pick matters for the gradient
        x = torch.round(torch.randn(c, h, wd) * 2) / 2 if i % 2 else torch.randn(c, h, wd)
        xg = x.clone().requires_grad_()
        ref = F.max_pool2d(xg[None], (kh, kw), (sh, sw), (ph, pw), ceil_mode=ceil)[0]
        oh, ow = ref.shape[1:]
        dy = torch.randn(c, oh, ow)
        ref.backward(dy)
        win = [c, h, wd, oh, ow, kh, kw, sh, sw, ph, pw]
        y, = vertex("maxpool2d", [np.zeros(c * oh * ow), x], [Buf(0), Buf(1)] + win)[:1]
        check_bits("maxpool2d", y, ref.detach())
        dx, = vertex("maxpool2d_grad", [np.zeros(c * h * wd), dy, x], [Buf(0), Buf(1), Buf(2)] + win)[:1]
        check_bits("maxpool2d_grad", dx, xg.grad)
        for include in (0, 1):
            x = torch.randn(c, h, wd)
            xg = x.clone().requires_grad_()
            ref = F.avg_pool2d(xg[None], (kh, kw), (sh, sw), (ph, pw), ceil_mode=ceil,
                               count_include_pad=bool(include))[0]
            oh, ow = ref.shape[1:]
            dy = torch.randn(c, oh, ow)
            ref.backward(dy)
            win = [c, h, wd, oh, ow, kh, kw, sh, sw, ph, pw, ph, pw, include]
            y, = vertex("avgpool2d", [np.zeros(c * oh * ow), x], [Buf(0), Buf(1)] + win)[:1]
            check_bits("avgpool2d", y, ref.detach())
            dx, = vertex("avgpool2d_grad", [np.zeros(c * h * wd), dy], [Buf(0), Buf(1)] + win)[:1]
            check_bits("avgpool2d_grad", dx, xg.grad)
    # global average pooling (GlobalAveragePool) against the mean
    for _ in range(3):
        c, h, wd = rng.randint(1, 8), rng.randint(1, 9), rng.randint(1, 9)
        x = torch.randn(c, h, wd)
        y, = vertex("avgpool2d", [np.zeros(c), x], [Buf(0), Buf(1), c, h, wd, 1, 1, h, wd, 1, 1, 0, 0, 0, 0, 0])[:1]
        check_sum("global avgpool2d", y, x.mean((1, 2)), x.abs().mean((1, 2)))


# ---- lrn -------------------------------------------------------------------------------

def onnx_lrn(x, size, alpha, beta, bias):
    x = x.astype(np.float64)
    c = x.shape[0]
    sq = np.zeros_like(x)
    for ci in range(c):
        lo, hi = max(0, ci - (size - 1) // 2), min(c - 1, ci + size // 2)
        sq[ci] = (x[lo:hi + 1] ** 2).sum(0)
    return x / (bias + alpha / size * sq) ** beta


def check_lrn(n):
    for _ in range(n):
        c, hw = rng.randint(1, 12), rng.randint(1, 20)
        size = rng.choice([1, 2, 3, 4, 5, 7])
        alpha, beta, bias = rng.choice([1e-4, 1e-3, 0.01, 0.5]), rng.choice([0.5, 0.75, 1.0]), rng.choice([1.0, 2.0])
        x = torch.randn(c, hw) * rng.choice([1.0, 10.0])
        y, = vertex("lrn", [np.zeros(c * hw), x], [Buf(0), Buf(1), c, hw, size, alpha, beta, bias])[:1]
        if size % 2:
            ref = F.local_response_norm(x[None, :, :, None], size, alpha, beta, bias)[0, :, :, 0]
            check_ulps("lrn (torch, odd sizes)", y, ref, 8)
        check_ulps("lrn (ONNX window in double)", y, onnx_lrn(x.numpy(), size, f32(alpha), f32(beta), f32(bias)).astype(f32), 8)


# ---- element-wise --------------------------------------------------------------------

def check_unary(n):
    for _ in range(n):
        m = rng.randint(1, 300)
        x = torch.randn(m) * rng.choice([0.01, 1.0, 4.0, 30.0])
        dy = torch.randn(m)
        slope = rng.choice([0.01, 0.2, -0.5])
        lo, hi = sorted([rng.uniform(-3, 1), rng.uniform(-1, 3)])
        lo, hi = float(f32(lo)), float(f32(hi))
        cases = [(0, slope, 0.0, lambda v: F.leaky_relu(v, slope)), (1, 0.0, 0.0, torch.sigmoid),
                 (2, 0.0, 0.0, torch.tanh), (3, lo, hi, lambda v: F.hardtanh(v, lo, hi)),
                 (4, 0.0, 0.0, lambda v: v.clone())]
        for op, p0, p1, fn in cases:
            xg = x.clone().requires_grad_()
            ref = fn(xg)
            ref.backward(dy)
            y, = vertex("ewise1", [np.zeros(m), x], [Buf(0), Buf(1), m, op, p0, p1])[:1]
            name = ["leaky_relu", "sigmoid", "tanh", "hardtanh", "identity"][op]
            if op in (1, 2):
                check_ulps(name, y, ref.detach(), 4)
            else:
                check_bits(name, y, ref.detach())
            # the gradient from torch's own forward output (sigmoid, tanh) or input
            v = ref.detach() if op in (1, 2) else x
            dx, = vertex("ewise1_grad", [np.zeros(m), dy, v], [Buf(0), Buf(1), Buf(2), m, op, p0, p1])[:1]
            check_bits(name + " grad", dx, xg.grad)
        # in place: dst = src
        y, = vertex("ewise1", [x], [Buf(0), Buf(0), m, 2, 0.0, 0.0])[:1]
        check_ulps("tanh (in place)", y, torch.tanh(x), 4)


def check_binary(n):
    ops = [torch.add, torch.sub, torch.mul, torch.div, torch.maximum, torch.minimum]
    for _ in range(n):
        nb, c, h, w = rng.randint(1, 3), rng.randint(1, 5), rng.randint(1, 6), rng.randint(1, 6)
        a = torch.randn(nb, c, h, w)
        for shape, bn, inner in (((nb, c, h, w), nb * c * h * w, 1), ((1,), 1, 1), ((c, 1, 1), c, h * w),
                                 ((1, c, 1, 1), c, h * w), ((h, w), h * w, 1)):
            b = torch.randn(*shape)
            for op in range(6):
                ref = ops[op](a, b)
                y, = vertex("ewise2", [np.zeros(a.numel()), a, b], [Buf(0), Buf(1), Buf(2), a.numel(), bn, inner, op])[:1]
                check_bits(f"ewise2 op {op}", y, ref)
        # in place: dst = a
        b = torch.randn(c, 1, 1)
        y, = vertex("ewise2", [a, b], [Buf(0), Buf(0), Buf(1), a.numel(), c, h * w, 2])[:1]
        check_bits("ewise2 (in place)", y, a * b)


check_conv(14)
check_pool(12)
check_lrn(10)
check_unary(6)
check_binary(4)
for what, v in sorted(worst.items()):
    print(f"  {what:45s} worst {v:.3g}")
for f in failures:
    print("FAIL:", f)
print("ok" if not failures else f"{len(failures)} failures")
sys.exit(1 if failures else 0)
