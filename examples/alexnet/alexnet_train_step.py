#!/usr/bin/python3
"""The PyTorch reference for one AlexNet training step on the device.

  alexnet_train_step.py export OUT_DIR [--batch 4] [--seed 0] [--lr 0.01]
      torchvision 0.14's AlexNet (seeded weights, nothing downloaded), exported in eval mode
      (Dropout the identity) with one output, the logits: OUT_DIR/alexnet_train.onnx, for
      `tessera compile alexnet_train.onnx --train`; seeded images OUT_DIR/x.npy
      (f32 [B,3,224,224] in [0,1)) and labels OUT_DIR/labels.npy (u32 [B] in 0..999).
      Then one step of torch.optim.SGD(lr, momentum=0.9) on the mean softmax cross-entropy,
      Dropout off: OUT_DIR/ref/loss.npy (each image's loss before the step, f32 [B]) and
      OUT_DIR/ref/<parameter>.npy (each parameter after the step, by its ONNX name), and
      OUT_DIR/params.txt (the parameters' names in the compiled executable, one a line: the
      ONNX names, with "^T" after a Linear layer's weight, which the importer stores
      transposed, [in, out], as its Gemm's transB asks).
  alexnet_train_step.py compare OUT_DIR DEVICE_DIR [--tol 1e-5] [--logit-tol 1e-6]
      DEVICE_DIR/loss.f32 (the device's losses) and DEVICE_DIR/<parameter>.f32 against the
      reference: the loss within tol relative, every weight within tol absolute, and each
      tensor's update (the weights after the step minus before, from the ONNX file) within
      --update-tol of its largest PyTorch update (at lr 0.01 the updates are 4e-6 to 2.5e-3,
      so a missing or wrong update could pass the absolute bound alone). Prints the largest
      differences; exits 1 if any is over or missing (weights kept in device memory, where
      the SRAM cannot hold them, are read back from there: docs/weight-streaming.md). With
      DEVICE_DIR/logits.f32, the inference program's logits on OUT_DIR/x_infer.npy after the
      step, against PyTorch's model after its step (ref/logits_after.npy) within --logit-tol.
"""
import argparse
import os
import sys

import numpy as np
import onnx
import torch
import torchvision
from onnx import numpy_helper


def export(a):
    torch.manual_seed(a.seed)
    torch.set_num_threads(2)
    m = torchvision.models.alexnet(weights=None).eval()  # eval: Dropout is the identity
    gen = torch.Generator().manual_seed(a.seed + 1)
    x = torch.rand(a.batch, 3, 224, 224, generator=gen)
    labels = torch.randint(0, 1000, (a.batch,), generator=gen)
    os.makedirs(os.path.join(a.out_dir, "ref"), exist_ok=True)
    onnx_path = os.path.join(a.out_dir, "alexnet_train.onnx")
    torch.onnx.export(m, x[:1], onnx_path, input_names=["x"], output_names=["logits"],
                      dynamic_axes={"x": {0: "N"}, "logits": {0: "N"}}, opset_version=13,
                      do_constant_folding=False)
    np.save(os.path.join(a.out_dir, "x.npy"), x.numpy().astype("<f4"))
    np.save(os.path.join(a.out_dir, "labels.npy"), labels.numpy().astype("<u4"))
    # The ONNX initializers are the module's parameters by name; check, then take the step.
    names = [i.name for i in onnx.load(onnx_path).graph.initializer]
    params = dict(m.named_parameters())
    for n in names:
        if n not in params:
            sys.exit("initializer %s is not a parameter of the module" % n)
    # One more image, for the inference program after the step: its logits before and after.
    x_infer = torch.rand(1, 3, 224, 224, generator=gen)
    np.save(os.path.join(a.out_dir, "x_infer.npy"), x_infer.numpy().astype("<f4"))
    with torch.no_grad():
        before = m(x_infer)
    opt = torch.optim.SGD(m.parameters(), lr=a.lr, momentum=0.9)
    opt.zero_grad()
    per_image = torch.nn.functional.cross_entropy(m(x), labels, reduction="none")
    per_image.mean().backward()
    opt.step()
    with torch.no_grad():
        after = m(x_infer)
    np.save(os.path.join(a.out_dir, "ref", "loss.npy"), per_image.detach().numpy().astype("<f4"))
    np.save(os.path.join(a.out_dir, "ref", "logits_before.npy"), before.numpy().astype("<f4"))
    np.save(os.path.join(a.out_dir, "ref", "logits_after.npy"), after.numpy().astype("<f4"))
    with open(os.path.join(a.out_dir, "params.txt"), "w") as f:
        for n in names:
            np.save(os.path.join(a.out_dir, "ref", n + ".npy"), params[n].detach().numpy().astype("<f4"))
            f.write(n + ("^T" if params[n].dim() == 2 else "") + "\n")
    print("alexnet_train_step.py: batch %d, seed %d (weights torch.manual_seed(%d), images and labels "
          "Generator(%d)), lr %g, momentum 0.9; labels %s; loss %.7g"
          % (a.batch, a.seed, a.seed, a.seed + 1, a.lr, labels.tolist(), float(per_image.mean())))
    return 0


def compare(a):
    ref = os.path.join(a.out_dir, "ref")
    names = open(os.path.join(a.out_dir, "params.txt")).read().split()
    ok = True
    lr_ = np.load(os.path.join(ref, "loss.npy")).astype(np.float64)
    ld = np.fromfile(os.path.join(a.device_dir, "loss.f32"), np.float32).astype(np.float64)
    if ld.shape != lr_.shape:
        print("loss: device %s values, PyTorch %s" % (ld.shape, lr_.shape))
        return 1
    rel = abs(ld.mean() - lr_.mean()) / abs(lr_.mean())
    rel_each = (np.abs(ld - lr_) / np.abs(lr_)).max()
    print("loss (mean over the batch): device %.8g, PyTorch %.8g, relative difference %.3g "
          "(each image's, largest %.3g)" % (ld.mean(), lr_.mean(), rel, rel_each))
    ok &= rel <= a.tol and rel_each <= a.tol
    worst = (0.0, "")
    init = {i.name: numpy_helper.to_array(i).astype(np.float64)
            for i in onnx.load(os.path.join(a.out_dir, "alexnet_train.onnx")).graph.initializer}
    for n in names:
        r = np.load(os.path.join(ref, n.replace("^T", "") + ".npy")).astype(np.float64)
        r = (r.T if n.endswith("^T") else r).ravel()
        if not os.path.exists(os.path.join(a.device_dir, n + ".f32")):
            print("%s: not read back from the device" % n)
            return 1
        d = np.fromfile(os.path.join(a.device_dir, n + ".f32"), np.float32).astype(np.float64)
        if d.shape != r.shape:
            print("%s: device %d values, PyTorch %d" % (n, d.size, r.size))
            return 1
        diff = np.abs(d - r).max()
        w0 = init[n.replace("^T", "")]
        w0 = (w0.T if n.endswith("^T") else w0).ravel()
        step = np.abs(r - w0).max()
        udiff = np.abs((d - w0) - (r - w0)).max() / step if step > 0 else 0.0
        print("  %-22s %9d weights, largest |w| %.4g, difference %.3g; largest update %.3g, update difference "
              "%.3g of it" % (n, r.size, np.abs(r).max(), diff, step, udiff))
        if diff > worst[0]:
            worst = (diff, n)
        ok &= diff <= a.tol and udiff <= a.update_tol
    print("updated weights: largest absolute difference %.3g (%s), tolerance %g" % (worst[0], worst[1], a.tol))
    # The inference program after the step (DEVICE_DIR/logits.f32, if run): the updated
    # weights, those kept in device memory included, as PyTorch's model after its step sees
    # x_infer.npy. The step must move the logits by far more than the tolerance, else a lost
    # update would pass.
    logits = os.path.join(a.device_dir, "logits.f32")
    if os.path.exists(logits):
        d = np.fromfile(logits, np.float32).astype(np.float64)
        after = np.load(os.path.join(ref, "logits_after.npy")).astype(np.float64).ravel()
        before = np.load(os.path.join(ref, "logits_before.npy")).astype(np.float64).ravel()
        diff, moved = np.abs(d - after).max(), np.abs(after - before).max()
        print("logits after the step (inference program): largest difference from PyTorch's %.3g, tolerance %g; "
              "the step moved them by up to %.3g" % (diff, a.logit_tol, moved))
        ok &= d.shape == after.shape and diff <= a.logit_tol and moved > 100 * a.logit_tol
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("export")
    e.add_argument("out_dir")
    e.add_argument("--batch", type=int, default=4)
    e.add_argument("--seed", type=int, default=0)
    e.add_argument("--lr", type=float, default=0.01)
    c = sub.add_parser("compare")
    c.add_argument("out_dir")
    c.add_argument("device_dir")
    c.add_argument("--tol", type=float, default=1e-5)
    c.add_argument("--update-tol", type=float, default=1e-3)
    c.add_argument("--logit-tol", type=float, default=1e-6)
    a = ap.parse_args()
    return export(a) if a.cmd == "export" else compare(a)


if __name__ == "__main__":
    sys.exit(main())
