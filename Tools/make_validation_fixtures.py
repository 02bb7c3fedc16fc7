#!/usr/bin/env python3
"""Write Tests/Fixtures/validation/: LiteRT tensor dumps that `visage compare` must read.

Runs Tools/litert_dump.py on the blendshape model with the "face" input of
Tests/Fixtures/runtime, with LiteRT's reference kernels (litert-blendshapes) and with its
XNNPACK path (litert-blendshapes-xnnpack), then keeps only the tensors whose files are at most
4 KB (the input, the output and most small intermediates, about 70 KB each), with a manifest
listing just those. ValidationCLITests compares Visage's own dumps with them.
Run with the venv of Tools/setup-python.sh:  .venv/bin/python Tools/make_validation_fixtures.py
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

from bundled_models import ROOT

MODEL = "Weights/face_landmarker.task:face_blendshapes.tflite"
INPUT = "Tests/Fixtures/runtime/face_blendshapes/face.input.npy"
FOLDER = os.path.join(ROOT, "Tests", "Fixtures", "validation")
LIMIT = 4096


def main():
    for kernels, name in (("reference", "litert-blendshapes"), ("xnnpack", "litert-blendshapes-xnnpack")):
        write(kernels, os.path.join(FOLDER, name))


def write(kernels, out):
    with tempfile.TemporaryDirectory() as work:
        full = os.path.join(work, "dump")
        subprocess.run([sys.executable, os.path.join(ROOT, "Tools", "litert_dump.py"), MODEL, "--input", INPUT, full,
                        "--kernels", kernels], cwd=ROOT, check=True)
        with open(os.path.join(full, "manifest.json")) as f:
            manifest = json.load(f)
        kept = [t for t in manifest["tensors"] if os.path.getsize(os.path.join(full, t["file"])) <= LIMIT]
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        for t in kept:
            shutil.copy(os.path.join(full, t["file"]), out)
        manifest["trimmed"] = f"only the {len(kept)} of {len(manifest['tensors'])} tensors of at most {LIMIT} bytes"
        manifest["tensors"] = kept
        with open(os.path.join(out, "manifest.json"), "w") as f:
            json.dump(manifest, f, indent=0)
            f.write("\n")
    print(f"wrote {out}: {len(kept)} tensors")


if __name__ == "__main__":
    main()
