#!/usr/bin/env python3
"""Static estimates, with llvm-mca, of the micro-kernels' inner loops on arm64 cores.

ESTIMATES, NOT MEASUREMENTS: nothing here runs on arm64 hardware (docs/speed.md, "arm64").

Compiles Sources/VisageMicroKernels for AArch64 in Embedded Swift (as .ci/arm64 does), the
fused copy (VISAGE_FMA, arm64's default) unless --exact, finds every innermost loop in the
assembly (LLVM's "Inner Loop Header" comments), and runs each loop body through llvm-mca for
Apple M1 and Neoverse-N1 (and Neoverse-N2 with llvm-mca-16 if installed). Prints, per loop:
instructions, fp32 FMA lanes and vector spills (loads/stores at sp) per iteration, llvm-mca's
block reciprocal throughput in cycles and the share of the core's FMA peak that implies
(M1: 4 x 128-bit FMA pipes = 16 lanes a cycle; N1 and N2: 2 x 128-bit = 8).

--wide-depthwise compiles a copy whose 3x3 depthwise row kernel takes 16-channel blocks on
arm64, as it did before 8-channel blocks were chosen there: the "before" of docs/speed.md.

Needs swiftc (with the Embedded standard library for aarch64-none-none-elf) and llvm-mca
(Debian's llvm-14 package). Usage:
    python3 Benchmarks/arm64_estimates.py [--exact] [--wide-depthwise] [--filter TEXT]
"""
import argparse
import os
import pathlib
import re
import shutil
import subprocess
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
CPUS = [("apple-m1", 16, "llvm-mca"), ("neoverse-n1", 8, "llvm-mca"), ("neoverse-n2", 8, "llvm-mca-16")]


def compile_kernels(work, exact, wide_depthwise):
    sources = work / "src"
    shutil.copytree(ROOT / "Sources/VisageMicroKernels", sources)
    if wide_depthwise:
        path = sources / "Depthwise3x3.swift"
        text = path.read_text()
        old = "#if arch(arm64)\n    false"
        if old not in text:
            raise SystemExit("Depthwise3x3.swift no longer has the arm64 block choice this option changes")
        path.write_text(text.replace(old, "#if arch(arm64)\n    true"))
    include = work / "include"
    include.mkdir()
    shutil.copy(ROOT / "Sources/CVisageISA/include/CVisageISA.h", include)
    (include / "module.modulemap").write_text('module CVisageISA {\n  header "CVisageISA.h"\n  export *\n}\n')
    assembly = work / "kernels.s"
    flags = [] if exact else ["-D", "VISAGE_FMA"]
    subprocess.run(
        ["swiftc", "-target", "aarch64-none-none-elf", "-enable-experimental-feature", "Embedded", "-wmo",
         "-parse-as-library", "-O", *flags, "-module-name", "VisageMicroKernels", "-I", str(include), "-S",
         *sorted(str(p) for p in sources.glob("*.swift")), "-o", str(assembly)], check=True)
    return assembly.read_text().split("\n")


def inner_loops(lines):
    """(function name, loop instructions) for every innermost loop."""
    functions, function, block = [], None, None
    for line in lines:
        if m := re.match(r"^([$_][^:\s]*):", line):
            function = {"name": m.group(1), "blocks": []}
            functions.append(function)
            block = None
            continue
        if function is None:
            continue
        if line.startswith(".Lfunc_end"):
            function = None
            continue
        if m := re.match(r"^(\.LBB([0-9_]+):|// %bb\.\d+:)", line):
            loop = re.search(r"in Loop: Header=BB([0-9_]+)", line)
            block = {"label": m.group(2), "header": "Inner Loop Header" in line,
                     "loop": loop.group(1) if loop else None, "code": []}
            function["blocks"].append(block)
            continue
        if block is None:
            continue
        if "Inner Loop Header" in line:
            block["header"] = True
            continue
        text = line.split("//")[0].strip()
        if text and not text.startswith(".") and not text.endswith(":"):
            block["code"].append(text)
    names = subprocess.run(["swift", "demangle", "--compact"], input="\n".join(f["name"] for f in functions),
                           capture_output=True, text=True, check=True).stdout.split("\n")
    for function, name in zip(functions, names):
        for header in (b for b in function["blocks"] if b["header"]):
            body = [i for b in function["blocks"] if b is header or b["loop"] == header["label"] for i in b["code"]]
            yield name, body


def lanes(body, mnemonic):
    total = 0
    for instruction in body:
        if m := re.match(mnemonic + r"\s+v\d+\.(\d+)s", instruction):
            total += int(m.group(1))
        elif re.match(mnemonic + r"\s+s\d+", instruction):
            total += 1
    return total


def spills(body, kind):
    return sum(2 if i.startswith(kind + "p") else 1 for i in body if re.match(kind + r"\w*\s+q.*\[(sp|x29)", i))


def throughput(path, cpu, tool):
    if shutil.which(tool) is None:
        return None
    out = subprocess.run([tool, "-mtriple=aarch64", f"-mcpu={cpu}", "-iterations=100", str(path)],
                         capture_output=True, text=True)
    if out.returncode:
        return None
    return float(re.search(r"Block RThroughput:\s+([\d.]+)", out.stdout).group(1))


def short(name):
    """The kernel function's own name, and the types it is specialized for."""
    name = name.replace("Swift.", "").replace("VisageMicroKernels.", "")
    types = ""
    while prefix := next((p for p in ("generic specialization ", "function signature specialization ")
                          if name.startswith(p + "<")), None):
        depth, start = 0, len(prefix)
        for end in range(start, len(name)):
            depth += {"<": 1, ">": -1}.get(name[end], 0)
            if depth == 0:
                break
        if prefix.startswith("generic"):
            types = " [" + name[start + 1:end] + "]"
        name = name[end + 1:].removeprefix(" of ")
    name = name.removeprefix("static ")
    # A private function demangles as "(name in _HASH)".
    name = name[1:].split(" in ")[0] if name.startswith("(") else name.split("(")[0].split("<")[0]
    return (name + types)[:60]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--exact", action="store_true", help="the copy that multiplies and adds apart")
    parser.add_argument("--wide-depthwise", action="store_true", help="16-channel depthwise blocks on arm64")
    parser.add_argument("--filter", default="", help="only loops whose function name contains this")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        work = pathlib.Path(folder)
        lines = compile_kernels(work, args.exact, args.wide_depthwise)
        print("ESTIMATES from llvm-mca, not measurements. % = FMA lanes per cycle / the core's peak.")
        print(f"{'loop':60s} {'instr':>5s} {'FMA':>4s} {'spill ld/st':>11s}  "
              + "  ".join(f"{cpu:>18s}" for cpu, _, _ in CPUS))
        for index, (name, body) in enumerate(inner_loops(lines)):
            if args.filter not in name:
                continue
            path = work / f"loop{index}.s"
            path.write_text("\n".join(body) + "\n")
            fma = lanes(body, "fmla") or lanes(body, "fmul")
            cells = []
            for cpu, peak, tool in CPUS:
                cycles = throughput(path, cpu, tool)
                cells.append(f"{'n/a':>18s}" if cycles is None else
                             f"{cycles:7.1f} cyc {100 * fma / cycles / peak:5.1f}%")
            print(f"{short(name):60s} {len(body):5d} {fma:4d} {spills(body, 'ld'):5d}/{spills(body, 'st'):<5d}  "
                  + "  ".join(cells))


if __name__ == "__main__":
    main()
