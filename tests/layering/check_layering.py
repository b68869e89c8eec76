#!/usr/bin/env python3
"""The layering rules of the tree (docs/device.md, "Layers"), checked on #include lines.

  host/runtime  includes nothing from sim/ (it reaches devices through the device contract)
  compiler/     includes nothing from sim/ or host/
  exe/          includes nothing of the project but itself and arch/ (the generated chip
                description every layer shares)

A public header `tessera/LIB/...` ("..." or <...>) belongs to the folder whose include/ holds
`tessera/LIB/` (found by walking the tree, so a new library is known without editing this
script); a quoted include naming a folder of the tree ("sim/...", "../host/...") belongs to
that folder. The same rules are checked on the CMakeLists.txt of those folders: they link
no library built under a folder they may not include.

  check_layering.py ROOT         prints every violation (file:line: what) and exits 1 if any
  check_layering.py --self-test  plants one violation of each rule in a scratch tree and
                                 fails unless each is reported (and a clean tree passes)
"""
import os
import re
import sys
import tempfile

# (folder checked, folders it may not reach, folders it may reach or None for "any other")
RULES = [
    ("host/runtime", ["sim"], None),
    ("compiler", ["sim", "host"], None),
    ("exe", None, ["exe", "arch"]),
]
SOURCE_EXT = (".h", ".hpp", ".cpp", ".cc", ".inc", ".def")
SKIP_DIRS = {".git", "third_party", "node_modules", "__pycache__"}
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*(?:"([^"]+)"|<(tessera/[^>]+)>)')
LIBRARY_RE = re.compile(r"\b(tessera_[A-Za-z0-9_]+)\b")


def walk(root):
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS and not x.startswith("build"))
        for f in sorted(files):
            yield os.path.join(d, f)


def rel(root, path):
    return os.path.relpath(path, root).replace(os.sep, "/")


def header_owners(root):
    """tessera/LIB -> the set of top folders (rel paths) whose include/ holds it."""
    owners = {}
    for d, dirs, _ in os.walk(root):
        dirs[:] = [x for x in dirs if x not in SKIP_DIRS and not x.startswith("build")]
        if os.path.basename(d) == "tessera" and os.path.basename(os.path.dirname(d)) == "include":
            lib_root = rel(root, os.path.dirname(os.path.dirname(d)))
            for lib in dirs:
                owners.setdefault(lib, set()).add(lib_root)
    return owners


def library_owners(root):
    """tessera_X (a CMake library or executable target) -> the folder of the CMakeLists.txt
    that defines it."""
    owners = {}
    define = re.compile(r"^\s*(?:tessera_library|add_library|tessera_executable|add_executable)\(\s*(tessera_[A-Za-z0-9_]+)",
                        re.M)
    for p in walk(root):
        if os.path.basename(p) != "CMakeLists.txt":
            continue
        with open(p, encoding="utf-8", errors="replace") as f:
            for m in define.finditer(f.read()):
                owners[m.group(1)] = rel(root, os.path.dirname(p))
    return owners


def under(path, folder):
    return path == folder or path.startswith(folder + "/")


def allowed(owner, forbidden, permitted, here):
    """Whether code under `here` may reach something that lives under `owner`."""
    if under(owner, here):
        return True
    if forbidden is not None:
        return not any(under(owner, f) for f in forbidden)
    return any(under(owner, p) for p in permitted)


def include_owner(root, path, target, headers):
    """The folder (rel path) an include names, or None (system, firmware-relative, private)."""
    m = re.match(r"tessera/([^/]+)/", target)
    if m and m.group(1) in headers:
        # The folder whose include/ holds the file (several share tessera/vlt/); all of
        # them if none does (a header yet to be written is still reported).
        owners = sorted(headers[m.group(1)])
        holding = [o for o in owners if os.path.exists(os.path.join(root, o, "include", target))]
        return holding or owners
    # A path relative to the including file, or to the root.
    for base in (os.path.dirname(path), root):
        candidate = os.path.normpath(os.path.join(base, target))
        if os.path.exists(candidate) and os.path.commonpath([candidate, root]) == root:
            owner = rel(root, candidate)
            return [owner]
    return None


def check(root):
    root = os.path.abspath(root)
    headers = header_owners(root)
    libraries = library_owners(root)
    problems = []
    for here, forbidden, permitted in RULES:
        base = os.path.join(root, here)
        if not os.path.isdir(base):
            problems.append(f"{here}: no such folder (the layering rules name it)")
            continue
        for p in walk(base):
            name = rel(root, p)
            if p.endswith(SOURCE_EXT):
                with open(p, encoding="utf-8", errors="replace") as f:
                    for n, line in enumerate(f, 1):
                        m = INCLUDE_RE.match(line)
                        if not m:
                            continue
                        target = m.group(1) or m.group(2)
                        owners = include_owner(root, p, target, headers) or []
                        bad = [o for o in owners if not allowed(o, forbidden, permitted, here)]
                        if bad:
                            problems.append(f"{name}:{n}: includes \"{target}\" (from {', '.join(bad)}), "
                                            f"which {here}/ may not include")
            elif os.path.basename(p) == "CMakeLists.txt":
                with open(p, encoding="utf-8", errors="replace") as f:
                    for n, line in enumerate(f, 1):
                        code = line.split("#", 1)[0]
                        for lib in LIBRARY_RE.findall(code):
                            owner = libraries.get(lib)
                            if owner and not allowed(owner, forbidden, permitted, here):
                                problems.append(f"{name}:{n}: links {lib} (from {owner}), which {here}/ may not use")
    return problems


def self_test():
    planted = {
        "host/runtime/src/a.cpp": '#include "tessera/emu/machine.h"\n',
        "compiler/passes/src/b.cpp": '#include <tessera/runtime/engine.h>\n',
        "compiler/ops/src/c.cpp": '#include "../../../sim/emu/include/tessera/emu/machine.h"\n',
        "exe/src/d.cpp": '#include "tessera/graph/graph.h"\n',
        "exe/CMakeLists.txt": "tessera_library(tessera_exe SRCS src/d.cpp DEPS tessera_graph)\n",
    }
    clean = {
        "host/runtime/src/ok.cpp": '#include "tessera/exe/elf.h"\n#include "tessera/device/device.h"\n',
        "compiler/passes/src/ok.cpp": '#include "tessera/exe/elf.h"\n#include "tessera/arch/targets.h"\n',
        "exe/src/ok.cpp": '#include "tessera/exe/elf.h"\n#include "tessera/arch/targets.h"\n#include <vector>\n',
        "sim/emu/include/tessera/emu/machine.h": "",
        "sim/emu/CMakeLists.txt": "tessera_library(tessera_emu SRCS x.cpp)\n",
        "host/runtime/include/tessera/runtime/engine.h": "",
        "host/device/include/tessera/device/device.h": "",
        "compiler/graph/include/tessera/graph/graph.h": "",
        "compiler/graph/CMakeLists.txt": "tessera_library(tessera_graph SRCS g.cpp)\n",
        "exe/include/tessera/exe/elf.h": "",
        "arch/include/tessera/arch/targets.h": "",
    }
    with tempfile.TemporaryDirectory() as d:
        for p, text in clean.items():
            os.makedirs(os.path.join(d, os.path.dirname(p)), exist_ok=True)
            with open(os.path.join(d, p), "w") as f:
                f.write(text)
        found = check(d)
        if found:
            print("self-test: a clean tree was reported:\n  " + "\n  ".join(found))
            return 1
        for p, text in planted.items():
            os.makedirs(os.path.join(d, os.path.dirname(p)), exist_ok=True)
            with open(os.path.join(d, p), "w") as f:
                f.write(text)
        found = check(d)
        missed = [p for p in planted if not any(x.startswith(p + ":") for x in found)]
        for x in found:
            print("self-test: reported as it should be: " + x)
        if missed or len(found) != len(planted):
            print("self-test: FAILED; not reported: " + ", ".join(missed) + f" ({len(found)} reports for {len(planted)} plants)")
            return 1
    print(f"self-test: every one of the {len(planted)} planted violations was reported")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) != 2:
        print("usage: check_layering.py ROOT | --self-test", file=sys.stderr)
        return 2
    problems = check(argv[1])
    for p in problems:
        print(p)
    if problems:
        print(f"layering: {len(problems)} violation(s) of the rules in docs/device.md (\"Layers\")")
        return 1
    print("layering: host/runtime, compiler/ and exe/ keep to their layers")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
