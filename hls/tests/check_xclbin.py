#!/usr/bin/env python3
"""Checks what scripts/xclbin generated (hls.xclbin_files_*), independently of the script:
kernel.xml well-formed, the user-managed kernel tess_card with every register of
arch/device_regs.toml at its offset and nothing else on s_axi_control; link.cfg's every
stream connection and memory mapping names a port that exists (kernel.xml for tess_card, the
movers' HLS sources for tess_h2d/tess_d2h, with the interface kind the connection needs);
one mover pair per host node of the target.

  check_xclbin.py SOURCE_DIR TARGET OUT_DIR
"""
import pathlib
import re
import sys
import tomllib
import xml.dom.minidom

src, target, out = pathlib.Path(sys.argv[1]), sys.argv[2], pathlib.Path(sys.argv[3])
errors = []


def err(msg):
    errors.append(msg)


dom = xml.dom.minidom.parse(str(out / "kernel.xml"))  # raises on malformed XML
kernels = dom.getElementsByTagName("kernel")
if len(kernels) != 1 or kernels[0].getAttribute("name") != "tess_card":
    err("kernel.xml: expected one kernel named tess_card")
k = kernels[0]
if k.getAttribute("hwControlProtocol") != "user_managed":
    err("kernel.xml: tess_card is not user_managed")
ports = {p.getAttribute("name"): p for p in k.getElementsByTagName("port")}
regs = tomllib.loads((src / "arch" / "device_regs.toml").read_text())
ctrl = ports.get("s_axi_control")
if ctrl is None or int(ctrl.getAttribute("range"), 16) != regs["bytes"]:
    err("kernel.xml: s_axi_control missing or its range differs from arch/device_regs.toml")
args = {a.getAttribute("name"): a for a in k.getElementsByTagName("arg") if a.getAttribute("port") == "s_axi_control"}
for r in regs["reg"]:
    a = args.get(r["name"])
    if a is None:
        err(f"kernel.xml: no register {r['name']}")
    elif int(a.getAttribute("offset"), 16) != r["offset"]:
        err(f"kernel.xml: {r['name']} at {a.getAttribute('offset')}, arch/ has {r['offset']:#05x}")
extra = set(args) - {r["name"] for r in regs["reg"]}
if extra:
    err(f"kernel.xml: registers arch/ does not have: {sorted(extra)}")


def mover_ports(name):
    """The mover's arguments and their interface kinds, from its HLS source."""
    text = (src / "hls" / "movers" / f"{name}.cpp").read_text()
    kinds = {}
    for m in re.finditer(r"#pragma HLS INTERFACE (\w+) port = (\w+)", text):
        if m.group(1) in ("axis", "m_axi"):
            kinds[m.group(2)] = m.group(1)
    return kinds


movers = {"tess_h2d": mover_ports("tess_h2d"), "tess_d2h": mover_ports("tess_d2h")}
hosts = tomllib.loads((src / "arch" / "targets" / f"{target}.toml").read_text())["host_nodes"]
inst = {}
for line in (out / "link.cfg").read_text().splitlines():
    if line.startswith("nk="):
        kernel, n, names = line[3:].split(":")
        if len(names.split(".")) != int(n):
            err(f"link.cfg: {line}: {n} instances, names {names}")
        for i in names.split("."):
            inst[i] = kernel


def port_kind(endpoint, line):
    i, p = endpoint.split(".")
    kernel = inst.get(i)
    if kernel is None:
        err(f"link.cfg: {line}: no instance {i} (nk=)")
        return None, None
    if kernel == "tess_card":
        if p not in ports:
            err(f"link.cfg: {line}: kernel.xml has no port {p}")
            return kernel, None
        return kernel, {"read_only": "in", "write_only": "out"}.get(ports[p].getAttribute("mode"))
    kinds = movers[kernel]
    if p not in kinds:
        err(f"link.cfg: {line}: {kernel} has no AXI port {p}")
        return kernel, None
    return kernel, kinds[p]


sc = 0
for line in (out / "link.cfg").read_text().splitlines():
    if line.startswith("sc="):
        a, b = line[3:].split(":")
        ka, pa = port_kind(a, line)
        kb, pb = port_kind(b, line)
        ok = (ka != "tess_card" or pa == "out") and (kb != "tess_card" or pb == "in")
        if not ok or "tess_card" not in (ka, kb) or (ka if kb == "tess_card" else kb) not in movers:
            err(f"link.cfg: {line}: not a mover stream into a kernel input or out of a kernel output")
        for kk, pp in ((ka, pa), (kb, pb)):
            if kk in movers and pp != "axis":
                err(f"link.cfg: {line}: {kk}'s port is not an AXI4-Stream")
        sc += 1
    elif line.startswith("sp="):
        ep, bank = line[3:].split(":")
        kk, pp = port_kind(ep, line)
        if kk not in movers or pp != "m_axi":
            err(f"link.cfg: {line}: not a mover's memory port")
        if not re.fullmatch(r"(DDR|HBM)\[\d+\]", bank):
            err(f"link.cfg: {line}: bank {bank}")
if sc != 2 * hosts:
    err(f"link.cfg: {sc} stream connections, the target has {hosts} host nodes (2 each)")
for h in range(hosts):
    for p in (f"s_axis_h2d_{h}", f"m_axis_d2h_{h}"):
        if p not in ports:
            err(f"kernel.xml: no port {p}")
if errors:
    print("\n".join(errors), file=sys.stderr)
    sys.exit(1)
print(f"{out}: kernel.xml ({len(args)} registers, {len(ports)} ports) and link.cfg ({sc} stream connections) agree with arch/")
