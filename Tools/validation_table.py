#!/usr/bin/env python3
"""The validation table of docs/validation.md: every bundled model, on the "face" and
"random" inputs of Tests/Fixtures/runtime, dumped by Visage (optimized and reference kernels)
and by LiteRT (reference kernels and XNNPACK, Tools/litert_dump.py), then compared with
`visage compare` at the default tolerance and at atol = rtol = 0.

    swift build -c release && .venv/bin/python Tools/validation_table.py [--visage PATH] [--work DIR]
"""
import argparse
import json
import os
import subprocess
import sys

from bundled_models import ROOT, MODELS

PAIRS = [("visage-reference", "litert-reference"), ("visage-optimized", "litert-reference"),
         ("visage-optimized", "litert-xnnpack"), ("visage-optimized", "visage-reference")]


def reference(name):
    if name == "face_detection_full_range":
        return f"Weights/{name}.tflite"
    return f"Weights/face_landmarker.task:{name}.tflite"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--visage", default=os.path.join(ROOT, ".build", "release", "visage"))
    parser.add_argument("--work", default=os.path.join(ROOT, "out", "validation"))
    args = parser.parse_args()
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "cwd": ROOT, "check": True}
    print("| model | input | A | B | tensors | out of default tolerance | max abs | min SNR dB | exact |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in MODELS:
        for label in ("face", "random"):
            x = f"Tests/Fixtures/runtime/{name}/{label}.input.npy"
            dirs = {k: os.path.join(args.work, name, label, k) for pair in PAIRS for k in pair}
            for kernels in ("optimized", "reference"):
                subprocess.run([args.visage, "run", reference(name), "--input", x, "--kernels", kernels,
                                "--dump-tensors", dirs[f"visage-{kernels}"], "--output-dir", args.work], **quiet)
            for kernels in ("reference", "xnnpack"):
                subprocess.run([sys.executable, "Tools/litert_dump.py", reference(name), "--input", x,
                                dirs[f"litert-{kernels}"], "--kernels", kernels], **quiet)
            for a, b in PAIRS:
                def report(*extra):
                    out = subprocess.run([args.visage, "compare", dirs[a], dirs[b], "--output", "json", *extra],
                                         cwd=ROOT, capture_output=True, text=True)
                    return json.loads(out.stdout)
                r = report()
                exact = report("--atol", "0", "--rtol", "0")["failed"] == 0
                stats = [t for t in r["tensors"] if t.get("maxAbsError") is not None]
                worst = max(t["maxAbsError"] for t in stats)
                # "inf" for an exact tensor, "-inf" for error against an all-zero reference.
                snrs = [float(t["snrDb"]) for t in stats]
                snr = f"{min(snrs):.0f}" if min(snrs, default=float("inf")) != float("inf") else "inf"
                print(f"| {name} | {label} | {a} | {b} | {r['compared']} | {r['failed']} | {worst:.2g} | {snr} | "
                      f"{'yes' if exact else 'no'} |")


if __name__ == "__main__":
    main()
