#!/usr/bin/python3
"""torchvision 0.14's ResNet-18 (architecture only: weights seeded, nothing downloaded),
exported to ONNX with seeded 224x224 images and PyTorch's logits, for
`tessera compile resnet18.onnx --target ipu-mk2 --batch 8` and the comparison with PyTorch.

Writes to OUT_DIR: resnet18.onnx (input "x" f32[N,3,224,224], output "logits" f32[N,1000],
N symbolic; BatchNormalization in inference form, which the importer folds into the Convs),
x.npy (f32 [--batch,3,224,224], seeded), logits.npy (PyTorch's, f32 [--batch,1000]).

Usage: /usr/bin/python3 examples/resnet/export_resnet18.py OUT_DIR [--batch 8] [--seed 0] [--size 224]
"""
import argparse
import os
import sys

import numpy as np
import torch
import torchvision


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out_dir")
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--size", type=int, default=224)
    ap.add_argument("--opset", type=int, default=13)
    a = ap.parse_args()
    torch.manual_seed(a.seed)
    torch.set_num_threads(1)
    m = torchvision.models.resnet18(weights=None).eval()
    # Non-trivial batch-norm statistics, so that folding them is tested.
    with torch.no_grad():
        for mod in m.modules():
            if isinstance(mod, torch.nn.BatchNorm2d):
                mod.running_mean.uniform_(-0.1, 0.1)
                mod.running_var.uniform_(0.5, 1.5)
                mod.weight.uniform_(0.5, 1.5)
                mod.bias.uniform_(-0.1, 0.1)
    x = torch.rand(a.batch, 3, a.size, a.size, generator=torch.Generator().manual_seed(a.seed + 1))
    with torch.no_grad():
        y = m(x)
    os.makedirs(a.out_dir, exist_ok=True)
    torch.onnx.export(m, x[:1], os.path.join(a.out_dir, "resnet18.onnx"), input_names=["x"], output_names=["logits"],
                      dynamic_axes={"x": {0: "N"}, "logits": {0: "N"}}, opset_version=a.opset)
    np.save(os.path.join(a.out_dir, "x.npy"), x.numpy().astype("<f4"))
    np.save(os.path.join(a.out_dir, "logits.npy"), y.numpy().astype("<f4"))
    print("wrote %s: logits range [%.3g, %.3g]" % (a.out_dir, float(y.min()), float(y.max())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
