"""The cycle model's figures for one run (bench/cycle_model.sh): images/s at the target's
clock, the compute and exchange shares of the cycles, and the FPU utilisation of the compute
phases: the model's multiply-accumulates (counted here from the ONNX graph, independently of
the compiler) over what the tiles could do in the compute phases' cycles, one FMA per tile
per cycle.
    cycle_model_report.py MODEL.onnx REPORT.json TARGET.toml BATCH"""
import json
import re
import sys

import onnx
from onnx import shape_inference


def dims(vi, batch):
    # A symbolic dimension (the batch of a model exported with a dynamic batch) is the batch.
    return [d.dim_value if d.HasField("dim_value") else batch for d in vi.type.tensor_type.shape.dim]


def macs(path, batch):
    m = shape_inference.infer_shapes(onnx.load(path))
    g = m.graph
    shapes = {v.name: dims(v, batch) for v in list(g.input) + list(g.value_info) + list(g.output)}
    shapes.update({t.name: list(t.dims) for t in g.initializer})
    total = 0
    for n in g.node:
        if n.op_type == "Conv":
            w, y = shapes[n.input[1]], shapes[n.output[0]]
            total += y[0] * y[1] * y[2] * y[3] * w[1] * w[2] * w[3]  # per output: C_in/groups x kH x kW
        elif n.op_type in ("Gemm", "MatMul"):
            a, y = shapes[n.input[0]], shapes[n.output[0]]
            trans_a = any(at.name == "transA" and at.i for at in n.attribute)
            k = a[-2] if trans_a else a[-1]
            out = 1
            for d in y:
                out *= d
            total += out * k
    return total


def main():
    model, report, toml, batch = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    text = open(toml).read()
    clock = float(re.search(r"^clock_mhz\s*=\s*([0-9.]+)", text, re.M).group(1)) * 1e6
    r = json.load(open(report))
    tiles = r["tiles"]
    run = r["runs"][-1]
    steps = run["superstep_profile"]
    compute = sum(s["compute_cycles"] for s in steps)
    exchange = sum(s["exchange_cycles"] for s in steps)
    total = compute + exchange
    mac = macs(model, batch)
    print("  %s cycles (%.1f%% compute, %.1f%% exchange and sync), %d supersteps" %
          (f"{total:,}", 100.0 * compute / total, 100.0 * exchange / total, len(steps)))
    print("  at %.0f MHz: %.3f ms a batch of %d, %.1f images/s" % (clock / 1e6, 1e3 * total / clock, batch,
                                                                  batch * clock / total))
    wait = sum(s.get("dram_wait_cycles", 0) for s in steps)
    if run.get("device_memory_bytes"):
        print("  %s bytes streamed from device memory; host syncs waited %s cycles for it (%.1f%%)" %
              (f"{run['device_memory_bytes']:,}", f"{wait:,}", 100.0 * wait / total))
    print("  %s multiply-accumulates: FPU utilisation %.2f%% of the compute phases (%d tiles, one FMA a cycle each), "
          "%.2f%% of all cycles" % (f"{mac:,}", 100.0 * mac / (tiles * compute), tiles, 100.0 * mac / (tiles * total)))


if __name__ == "__main__":
    main()
