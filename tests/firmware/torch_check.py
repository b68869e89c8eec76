#!/usr/bin/python3
"""The training codelets in native mode (through fw_train_tool) against PyTorch on the same
inputs: sgd_momentum bit for bit against torch.optim.SGD (foreach False and the default),
lr_linear against LambdaLR(lambda t: 1 - t/total) (equal, or 1 ulp in rare cases),
softmax_xent against F.cross_entropy and its gradient (a few ulps; the numbers measured are
printed). Exits 77 (ctest: skipped) when torch or numpy is missing.

usage: torch_check.py path/to/fw_train_tool
"""
import subprocess
import sys

try:
    import numpy as np
    import torch
except ImportError:
    print("torch or numpy missing: skipped")
    sys.exit(77)

TOOL = sys.argv[1]
f32 = np.float32
failures = []


def tool(args, data=b""):
    out = subprocess.run([TOOL] + [str(a) for a in args], input=data, stdout=subprocess.PIPE,
                         check=True).stdout
    return np.frombuffer(out, dtype=np.uint32)


def ulps(a, b):
    """Distance in ulps between float32 arrays (ordered integer view)."""
    def key(x):
        i = np.asarray(x, dtype=f32).view(np.int32).astype(np.int64)
        return np.where(i < 0, -(i & 0x7fffffff), i)
    return np.abs(key(a) - key(b))


def check_sgd():
    torch.manual_seed(1)
    for foreach in (False, None):
        for n, lr, momentum in ((1003, 0.05, 0.9), (7, 0.1234567, 0.99), (64, 1e-3, 0.5)):
            w0 = torch.randn(n)
            p = torch.nn.Parameter(w0.clone())
            opt = torch.optim.SGD([p], lr=lr, momentum=momentum, foreach=foreach)
            w, v = w0.numpy().copy(), np.zeros(n, dtype=f32)
            for step in range(4):
                g = (torch.randn(n) * 10.0 ** -step).numpy()
                p.grad = torch.from_numpy(g.copy())
                opt.step()
                data = w.tobytes() + v.tobytes() + g.tobytes()
                out = tool(["sgd_momentum", n, repr(momentum), repr(lr)], data)
                w, v = out[:n].view(f32).copy(), out[n:].view(f32).copy()
                tw = p.detach().numpy()
                tv = opt.state[p]["momentum_buffer"].numpy()
                bad = int((w.view(np.uint32) != tw.view(np.uint32)).sum() +
                          (v.view(np.uint32) != tv.view(np.uint32)).sum())
                if bad:
                    failures.append(f"sgd_momentum foreach={foreach} n={n} step {step}: {bad} words differ")
    print("sgd_momentum: bit for bit against torch.optim.SGD" if not failures else "sgd_momentum: MISMATCH")


def check_lr():
    import warnings
    warnings.filterwarnings("ignore")
    worst, differ, total_steps = 0, 0, 0
    for lr0 in (0.1, 0.01, 0.003, 1e-3):
        lr0 = float(f32(lr0))
        for total in (10, 100, 1000, 3000):
            p = torch.nn.Parameter(torch.zeros(1))
            opt = torch.optim.SGD([p], lr=lr0)
            sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda t, T=total: 1 - t / T)
            ref = []
            for _ in range(total + 1):
                ref.append(f32(opt.param_groups[0]["lr"]))
                opt.step()
                sched.step()
            got = tool(["lr_linear", repr(lr0), total, total + 1]).view(f32)
            d = ulps(got, np.array(ref, dtype=f32))
            worst, differ, total_steps = max(worst, int(d.max())), differ + int((d != 0).sum()), total_steps + len(d)
    print(f"lr_linear: {differ} of {total_steps} steps differ from LambdaLR's f32 lr, by at most {worst} ulp")
    if worst > 1 or differ * 1000 > total_steps:
        failures.append(f"lr_linear: {differ} steps differ, worst {worst} ulps")


def check_xent():
    torch.manual_seed(2)
    worst_loss = worst_grad = elem = 0.0
    same = words = 0
    for rows, cols, spread in ((32, 10, 3.0), (7, 13, 1.0), (64, 100, 10.0), (5, 3, 30.0)):
        x = (torch.randn(rows, cols) * spread).requires_grad_()
        y = torch.randint(0, cols, (rows,))
        loss = torch.nn.functional.cross_entropy(x.detach(), y, reduction="none")
        torch.nn.functional.cross_entropy(x, y).backward()  # mean: scale = 1/rows
        scale = f32(1) / f32(rows)
        data = x.detach().numpy().tobytes() + y.numpy().astype(np.uint32).tobytes()
        out = tool(["softmax_xent", rows, cols, repr(float(scale))], data)
        dx = out[:rows * cols].view(f32).reshape(rows, cols)
        lo = out[rows * cols:].view(f32)
        tl = loss.detach().numpy()
        tg = x.grad.numpy()
        # relative to the magnitude of the terms (a loss near 0 comes from cancellation)
        rel_loss = np.abs(lo.astype(np.float64) - tl) / np.maximum(np.abs(tl), 1e-3)
        rel_grad = np.abs(dx.astype(np.float64) - tg) / float(scale)
        worst_loss, worst_grad = max(worst_loss, rel_loss.max()), max(worst_grad, rel_grad.max())
        same += int((lo.view(np.uint32) == tl.view(np.uint32)).sum() + (dx.view(np.uint32) == tg.view(np.uint32)).sum())
        words += lo.size + dx.size
        big = np.abs(tg) > 1e-3 * float(scale)
        elem = max(elem, float((np.abs(dx.astype(np.float64) - tg) / np.abs(tg))[big].max()))
    print(f"softmax_xent: loss within {worst_loss:.2e} relative of F.cross_entropy (reduction none), "
          f"gradient within {worst_grad:.2e} of the scale (1/batch) of torch's mean-loss gradient "
          f"({elem:.2e} relative where |grad| > scale/1000); {same} of {words} words bit-identical")
    if worst_loss > 1e-5 or worst_grad > 1e-5:
        failures.append(f"softmax_xent: loss {worst_loss:.2e}, gradient {worst_grad:.2e}")


check_sgd()
check_lr()
check_xent()
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
