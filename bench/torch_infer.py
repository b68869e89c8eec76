#!/usr/bin/python3
"""bench/torch_infer.py MODEL.onnx ARCH INPUT.npy RUNS THREADS: PyTorch's time for one
inference of INPUT (a batch) with ARCH's architecture (lenet: examples/lenet's LeNet5;
resnet18, alexnet: torchvision's) and, for lenet, MODEL's weights (its initializers by PyTorch's parameter names; the others
keep torchvision's initialisation, which does not change the time);
a warm-up run, then RUNS timed runs; prints "torch: median S s per run (min S), T threads"."""
import os
import sys
import time

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "examples", "lenet"))


def build(arch):
    if arch == "lenet":
        from train_lenet import LeNet5
        return LeNet5()
    if arch in ("resnet18", "alexnet"):
        import torchvision
        return getattr(torchvision.models, arch)()
    sys.exit("torch_infer.py: unknown architecture %r (lenet, resnet18, alexnet)" % arch)


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    model_path, arch, input_path, runs, threads = sys.argv[1:]
    torch.set_num_threads(int(threads))
    model = build(arch).eval()
    from train_lenet_plan import load_weights
    if arch == "lenet":
        load_weights(model, model_path)
    x = torch.from_numpy(np.load(input_path))
    times = []
    with torch.no_grad():
        model(x)
        for _ in range(int(runs)):
            t0 = time.perf_counter()
            model(x)
            times.append(time.perf_counter() - t0)
    times.sort()
    print("torch: median %.6f s per run (min %.6f), %s threads" % (times[len(times) // 2], times[0], threads))


if __name__ == "__main__":
    main()
