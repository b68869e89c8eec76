#!/usr/bin/env python3
"""Writes the small seed corpus of the fuzz harnesses (tests/fuzz/seeds/<name>/): a few
valid inputs of each format, so that the fuzzer starts past the first checks. The .tsx
seed (seeds/exe) comes from the exe tests' synthetic executable; this script writes the
others. Deterministic: running it again gives the same files."""
import gzip
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
SRAM = 0x80000000


def put(name, fname, data):
    d = os.path.join(HERE, "seeds", name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, fname), "wb") as f:
        f.write(data)


# ---- ELF: stripped RV32 executables of one PT_LOAD at SRAM's base ----
def lui(rd, upper): return (upper << 12) | (rd << 7) | 0x37
def addi(rd, rs1, imm): return ((imm & 0xfff) << 20) | (rs1 << 15) | (rd << 7) | 0x13
def jalr(rd, rs1, imm): return ((imm & 0xfff) << 20) | (rs1 << 15) | (rd << 7) | 0x67
def sw(rs2, rs1, imm):
    i = imm & 0xfff
    return ((i >> 5) << 25) | (rs2 << 20) | (rs1 << 15) | (2 << 12) | ((i & 31) << 7) | 0x23
def lw(rd, rs1, imm): return ((imm & 0xfff) << 20) | (rs1 << 15) | (2 << 12) | (rd << 7) | 0x03
def csrrw(rd, csr, rs1): return (csr << 20) | (rs1 << 15) | (1 << 12) | (rd << 7) | 0x73
MRET = 0x30200073
J_SELF = 0x0000006f


def elf(code, bss=0):
    body = struct.pack("<%dI" % len(code), *code)
    eh = b"\x7fELF\x01\x01\x01" + b"\0" * 9
    eh += struct.pack("<HHIIIIIHHHHHH", 2, 243, 1, SRAM, 52, 0, 0x2, 52, 32, 1, 40, 0, 0)
    ph = struct.pack("<IIIIIIII", 1, 84, SRAM, SRAM, len(body), len(body) + bss, 7, 4)
    return eh + ph + body


EXIT = 0x0C4 - 2048  # the EXIT register, off x0
put("elf", "exit0.elf", elf([addi(10, 0, 0), sw(10, 0, EXIT), J_SELF]))
put("elf", "exit7.elf", elf([addi(10, 0, 7), sw(10, 0, EXIT), J_SELF]))
# A trap handler that returns past the faulting instruction, then a load below SRAM.
put("elf", "trap_handler.elf", elf([
    lui(5, 0x80000), addi(5, 5, 0x20), csrrw(0, 0x305, 5),  # mtvec = base + 0x20
    lui(6, 0x80000), lw(7, 6, -4),                           # load at 0x7ffffffc
    addi(10, 0, 0), sw(10, 0, EXIT), J_SELF,
    csrrw(11, 0x341, 0), addi(11, 11, 4), csrrw(0, 0x341, 11), MRET]))
put("elf", "jump_below_sram.elf", elf([lui(5, 0x80000), addi(5, 5, -4), jalr(0, 5, 0)]))
put("elf", "bss.elf", elf([J_SELF], bss=4096))

# ---- control: a tile's memory from its base, first byte = flags (bit 0: force magic) ----
def control_image(program, compute_sets=(), exchanges=(), streams=(), conds=()):
    mem = bytearray(4096)
    def place(at, words):
        mem[at:at + 4 * len(words)] = struct.pack("<%dI" % len(words), *words)
        return SRAM + at
    prog = place(0x100, program)
    vlists = []
    at = 0x400
    for verts in compute_sets:
        words = [w for v in verts for w in v]
        vlists.append((place(at, words) if words else SRAM + at, len(verts)))
        at += 0x40
    cs = place(0x300, [w for e in vlists for w in e])
    xs = place(0x340, [w for e in exchanges for w in e])
    ss = place(0x380, list(streams))
    cond_words = []
    for i, value in enumerate(conds):
        cond_words.append(place(0x600 + 4 * i, [value]))
    cd = place(0x3c0, cond_words)
    header = [0x44485354, 1, prog, len(program), cs, len(vlists), xs, len(exchanges), ss, len(streams), cd, len(conds)]
    place(0, header)
    return b"\x01" + bytes(mem)


END, EXECUTE, EXCHANGE, SYNC, REPEAT, IF, HOSTSYNC = 0, 1, 2, 3, 4, 5, 6
put("control", "all_ops.bin", control_image(
    [REPEAT, 3, 11, EXECUTE, 0, EXCHANGE, 0, IF, 0, 2, 1, HOSTSYNC, 0, SYNC, END],
    compute_sets=[[]], exchanges=[(SRAM + 0x700, 0, 0)], streams=[4], conds=[1]))
put("control", "nested.bin", control_image(
    [REPEAT, 2, 9, REPEAT, 2, 6, IF, 0, 1, 1, SYNC, SYNC, END], conds=[0]))
put("control", "codelet.bin", control_image(
    [EXECUTE, 0, SYNC, END], compute_sets=[[(0, SRAM + 0x800)]]))
# Idle supersteps (empty compute sets and exchanges, a Repeat of them) before a vertex and a
# receive; flags bit 2: each turn first passes the idle supersteps, as the machine does.
put("control", "idle.bin", b"\x05" + control_image(
    [EXECUTE, 0, EXCHANGE, 0, SYNC, REPEAT, 2, 3, EXECUTE, 0, SYNC, EXECUTE, 1, EXCHANGE, 1, END],
    compute_sets=[[], [(0, SRAM + 0x800)]], exchanges=[(SRAM + 0x700, 0, 0), (SRAM + 0x700, 0, 1)])[1:])

# One vertex of a codelet with a state that once ran away or left the tile (found by reading
# the codelets, docs/hardening.md): state at +0x800, 1.0s at +0x900 for its tensors. Flags:
# bit 0 forces the header's magic, bit 1 runs the portable loops (no AVX2 kernels).
def vertex_seed(codelet, state, flags=1):
    img = bytearray(control_image([EXECUTE, 0, SYNC, END], compute_sets=[[(codelet, SRAM + 0x800)]]))
    img[0] = flags
    img[1 + 0x800:1 + 0x800 + 4 * len(state)] = struct.pack("<%dI" % len(state), *state)
    img[1 + 0x900:1 + 0x940] = struct.pack("<16I", *([0x3F800000] * 16))
    return bytes(img)


B, BIG, W31 = SRAM + 0x900, 0xFFFFFFFF, 0x80000000
for name, codelet, state, flags in [
    ("matmul-tn-empty-rows", 17, [B, B, B, BIG, 0, 0], 3),
    ("matmul-nt-empty-rows", 18, [B, B, B, BIG, 0, 0], 3),
    ("add-bias-empty-rows", 12, [B, B, B, BIG, 0], 1),
    ("conv2d-no-input-channels", 22, [B, B, B, B, 0, 0, 1, 1, 1, 1, BIG, 1, 1, 1, 0, 0, 1, 1], 1),
    ("conv2d-grad-input-no-output-channels", 23, [B, B, B, 1, 1, 1, 0, 1, 1, BIG, 1, 1, 1, 0, 0, 0, 1], 1),
    ("conv2d-grad-weight-empty-dy-rows", 24, [B, B, B, 1, 0, 1, 1, BIG, 0, 1, 1, 1, 1, 0, 0, 1, 1, 0], 1),
    ("maxpool2d-tall-window", 26, [B, B, 1, 1, 1, 1, 1, BIG, 1, 1, 1, 0, 0], 1),
    ("maxpool2d-grad-tall-window", 27, [B, B, B, 1, 1, 1, 1, 1, BIG, 1, 1, 1, 0, 0], 1),
    ("avgpool2d-wrapping-count", 28, [B, B, 2, 1, 1, 2977518503, 3097670771, 1, 1, 1, 1, 0, 0, 0, 0, 0], 1),
    ("maxpool2d-wrapping-plane", 26, [B, B, 1, 65536, 65536, 1, 1, 1, 1, 1, 1, 0, 0], 3),
    ("conv2d-wrapping-kernel", 22, [B, B, B, B, 1, 1, 1, 1, 1, 1, 65536, 65536, 1, 1, 0, 0, 1, 1], 1),
    ("conv2d-dilation-2-31", 22, [B, B, B, B, 1, 1, 1, 1, 1, 1, 3, 1, 1, 1, 0, 0, W31, 1], 1),
    ("conv2d-grad-weight-stride-2-31", 24, [B, B, B, 1, 1, 1, 1, 3, 1, 1, 1, W31, 1, 0, 0, 1, 1, 0], 1),
]:
    put("control", "edge-" + name + ".bin", vertex_seed(codelet, state, flags))

# ---- send_list: tile 0's send list, 16-byte slots (4 tiles, 64 KiB, firmware below +0x2000) ----
REPEAT_BIT = 0x80000000
def slots(*entries):
    return b"".join(struct.pack("<4I", *e) for e in entries)
put("send_list", "plain.bin", slots((SRAM + 0x4000, 64, 1, SRAM + 0x3000), (SRAM + 0x4100, 0, 3, SRAM + 0x2000)))
# 8 channels' 4-row windows packed, then a source run sent to 5 places, then a plain entry.
put("send_list", "strided.bin", slots(
    (SRAM + 0x4000, 128, 2 | REPEAT_BIT, SRAM + 0x3000), (8, 256, 128, 0),
    (SRAM + 0x5000, 16, 3 | REPEAT_BIT, SRAM + 0x6000), (5, 0, 24, 0),
    (SRAM + 0x4000, 32, 1, SRAM + 0x7000)))
put("send_list", "missing_repeat.bin", slots((SRAM + 0x4000, 64, 1 | REPEAT_BIT, SRAM + 0x3000)))

# ---- plan.json ----
put("plan", "default.json", b'{"format": "tessera-mnist-plan-1", "batch": 32, "steps": 3750, '
    b'"layers": [784, 256, 128, 10], "seed": 1, "epochs": 15, "steps_per_epoch": 250, "shift_max": 2}\n')
put("plan", "minimal.json", b'{"batch": 1, "steps": 1}')

# ---- data: first byte picks the parser (0 images, 1 labels, 2 digits JSON, 3 split) ----
images = struct.pack(">IIII", 0x803, 2, 28, 28) + bytes(range(256)) * 6 + bytes(2 * 784 - 1536)
labels = struct.pack(">II", 0x801, 4) + bytes([0, 3, 9, 1])
put("data", "images.idx", b"\x00" + images)
put("data", "images.idx.gz", b"\x00" + gzip.compress(images, mtime=0))
put("data", "labels.idx", b"\x01" + labels)
put("data", "labels.idx.gz", b"\x01" + gzip.compress(labels, mtime=0))
put("data", "digits.json", b"\x02" + b'{"data":[' + b",".join([b"0", b"0.5", b"1e-3", b"1"] * 196) + b"]}")
put("data", "split.txt", b"\x03# a comment\n" + b"".join(b"%d\n" % i for i in range(10000)))

# ---- npy: numpy .npy files (version 1.0 and 2.0 headers) ----
def npy(descr, shape, payload, version=1):
    shape_s = "(" + "".join("%d," % d for d in shape) + ")" if len(shape) != 1 else "(%d,)" % shape[0]
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape_s)
    prefix = 10 if version == 1 else 12
    pad = (64 - (prefix + len(header) + 1) % 64) % 64
    header = (header + " " * pad + "\n").encode()
    size = struct.pack("<H", len(header)) if version == 1 else struct.pack("<I", len(header))
    return b"\x93NUMPY" + bytes([version, 0]) + size + header + payload


put("npy", "f32_2x3.npy", npy("<f4", (2, 3), struct.pack("<6f", 0, 1.5, -2, 3e-3, 4, 5)))
put("npy", "i32_4.npy", npy("<i4", (4,), struct.pack("<4i", -1, 0, 1, 7)))
put("npy", "u8_scalar.npy", npy("|u1", (), b"\x2a"))
put("npy", "u32_v2.npy", npy("<u4", (1, 2), struct.pack("<2I", 1, 2), version=2))

# ---- onnx: first byte = batch for a symbolic first dimension; the rest a ModelProto ----
# Written with the onnx package where it is installed (the seeds are in the tree, so this
# part only matters when they are made again).
try:
    import onnx
    from onnx import TensorProto, helper
except ImportError:
    onnx = None

if onnx is not None:
    def init(name, dims, seed):
        n = 1
        for d in dims:
            n *= d
        vals = [((i * 7 + seed) % 11 - 5) / 8.0 for i in range(n)]
        return helper.make_tensor(name, TensorProto.FLOAT, dims, vals)

    def model(nodes, inputs, outputs, inits, opset):
        g = helper.make_graph(nodes, "seed", inputs, outputs, inits)
        m = helper.make_model(g, producer_name="seed", opset_imports=[helper.make_opsetid("", opset)])
        m.ir_version = 8
        return m.SerializeToString()

    cnn = model(
        [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
         helper.make_node("Relu", ["c1"], ["r1"]),
         helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
         helper.make_node("AveragePool", ["p1"], ["p2"], kernel_shape=[2, 2], strides=[1, 1], ceil_mode=1),
         helper.make_node("Flatten", ["p2"], ["f"], axis=1),
         helper.make_node("Gemm", ["f", "w2", "b2"], ["g"], transB=1),
         helper.make_node("Softmax", ["g"], ["y"], axis=1)],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 1, 6, 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3])],
        [init("w1", [2, 1, 3, 3], 1), init("b1", [2], 2), init("w2", [3, 8], 3), init("b2", [3], 4)], 13)
    put("onnx", "cnn.onnx", b"\x02" + cnn)

    shapes = model(
        [helper.make_node("Constant", [], ["shape"], value=helper.make_tensor("v", TensorProto.INT64, [3], [1, 4, 3])),
         helper.make_node("Reshape", ["x", "shape"], ["r"]),
         helper.make_node("Transpose", ["r"], ["t"], perm=[0, 2, 1]),
         helper.make_node("Add", ["t", "bias"], ["a"]),
         helper.make_node("Concat", ["a", "t"], ["c"], axis=2),
         helper.make_node("Unsqueeze", ["c", "axes"], ["u"]),
         helper.make_node("BatchNormalization", ["u", "s", "bb", "m", "v2"], ["bn"]),
         helper.make_node("LeakyRelu", ["bn"], ["y"], alpha=0.1)],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 12])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1, 3, 8])],
        [init("bias", [4], 5), helper.make_tensor("axes", TensorProto.INT64, [1], [1]),
         init("s", [1], 6), init("bb", [1], 7), init("m", [1], 8),
         helper.make_tensor("v2", TensorProto.FLOAT, [1], [0.5])], 17)
    put("onnx", "shapes.onnx", b"\x00" + shapes)
