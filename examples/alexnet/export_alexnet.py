#!/usr/bin/python3
"""torchvision 0.14's AlexNet (architecture only: weights seeded, nothing downloaded),
exported to ONNX with seeded 224x224 images and PyTorch's logits and features, for
`tessera compile alexnet.onnx --target ipu-mk2 --batch 8` and the comparison with PyTorch.

Writes to OUT_DIR: alexnet.onnx (input "x" f32[N,3,224,224], outputs "logits" f32[N,1000]
and "features" f32[N,9216], the classifier's input, so that the device's can be compared
too; N symbolic; Dropout is the identity in inference), x.npy (f32 [--batch,3,224,224],
seeded), logits.npy (PyTorch's, f32 [--batch,1000]) and features.npy (the 9,216 values
after the last pool and the adaptive average pool, flattened, f32 [--batch,9216]).

Usage: /usr/bin/python3 examples/alexnet/export_alexnet.py OUT_DIR [--batch 8] [--seed 0]
"""
import argparse
import os
import sys

import numpy as np
import torch
import torchvision


class WithFeatures(torch.nn.Module):
    """AlexNet returning its logits and the 9,216 features its classifier reads."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, x):
        f = torch.flatten(self.m.avgpool(self.m.features(x)), 1)
        return self.m.classifier(f), f


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out_dir")
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--opset", type=int, default=13)
    a = ap.parse_args()
    torch.manual_seed(a.seed)
    torch.set_num_threads(1)
    m = torchvision.models.alexnet(weights=None).eval()
    x = torch.rand(a.batch, 3, 224, 224, generator=torch.Generator().manual_seed(a.seed + 1))
    with torch.no_grad():
        features = torch.flatten(m.avgpool(m.features(x)), 1)
        y = m.classifier(features)
    os.makedirs(a.out_dir, exist_ok=True)
    torch.onnx.export(WithFeatures(m), x[:1], os.path.join(a.out_dir, "alexnet.onnx"), input_names=["x"],
                      output_names=["logits", "features"],
                      dynamic_axes={"x": {0: "N"}, "logits": {0: "N"}, "features": {0: "N"}}, opset_version=a.opset)
    np.save(os.path.join(a.out_dir, "x.npy"), x.numpy().astype("<f4"))
    np.save(os.path.join(a.out_dir, "logits.npy"), y.numpy().astype("<f4"))
    np.save(os.path.join(a.out_dir, "features.npy"), features.numpy().astype("<f4"))
    print("wrote %s: logits range [%.3g, %.3g]" % (a.out_dir, float(y.min()), float(y.max())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
