// node bench/ort_infer.js MODEL.onnx INPUT.npy RUNS THREADS [OUTPUT.npy]
// ONNX Runtime (npm onnxruntime-node, CPU) on one f32 .npy input: a warm-up run, then RUNS
// timed runs; prints "ort: median S s per run (min S), THREADS threads" and writes the first
// output as f32 .npy. The anchor bench/onnx_bench.sh compares Tessera's native mode with.
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require(path.join(__dirname, '..', 'third_party', 'npm', 'node_modules', 'onnxruntime-node'));

function readNpy(file) {
  const b = fs.readFileSync(file);
  if (b.toString('latin1', 0, 6) !== '\x93NUMPY') throw new Error(`${file}: not a .npy file`);
  const major = b[6];
  const hlen = major === 1 ? b.readUInt16LE(8) : b.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = b.toString('latin1', start, start + hlen);
  if (!/'descr':\s*'<f4'/.test(header) || /'fortran_order':\s*True/.test(header))
    throw new Error(`${file}: want little-endian f32 in C order, header ${header.trim()}`);
  const shape = header.match(/'shape':\s*\(([^)]*)\)/)[1].split(',').filter((s) => s.trim()).map(Number);
  const off = start + hlen;
  const data = new Float32Array(b.buffer.slice(b.byteOffset + off, b.byteOffset + b.length));
  return { shape, data };
}

function writeNpy(file, dims, data) {
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${dims.join(', ')}${dims.length === 1 ? ',' : ''}), }`;
  const pad = 64 - ((10 + header.length + 1) % 64);
  header += ' '.repeat(pad % 64) + '\n';
  const h = Buffer.alloc(10);
  h.write('\x93NUMPY', 0, 'latin1');
  h[6] = 1;
  h[7] = 0;
  h.writeUInt16LE(header.length, 8);
  fs.writeFileSync(file, Buffer.concat([h, Buffer.from(header, 'latin1'), Buffer.from(data.buffer, data.byteOffset, data.byteLength)]));
}

async function main() {
  const [model, input, runsArg, threadsArg, output] = process.argv.slice(2);
  if (!model || !input) throw new Error('usage: node ort_infer.js MODEL.onnx INPUT.npy RUNS THREADS [OUTPUT.npy]');
  const runs = Number(runsArg || 10), threads = Number(threadsArg || 1);
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: threads, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all',
  });
  const x = readNpy(input);
  const feeds = { [session.inputNames[0]]: new ort.Tensor('float32', x.data, x.shape) };
  let out = await session.run(feeds);
  const times = [];
  for (let i = 0; i < runs; ++i) {
    const t0 = process.hrtime.bigint();
    out = await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - t0) / 1e9);
  }
  times.sort((a, b) => a - b);
  console.log(`ort: median ${times[times.length >> 1].toFixed(6)} s per run (min ${times[0].toFixed(6)}), ${threads} threads`);
  if (output) {
    const y = out[session.outputNames[0]];
    writeNpy(output, y.dims, y.data);
  }
}

main().catch((e) => { console.error(`ort_infer.js: ${e.message}`); process.exit(1); });
