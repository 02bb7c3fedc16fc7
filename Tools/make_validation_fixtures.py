#!/usr/bin/env python3
"""Write Tests/Fixtures/validation/: a LiteRT tensor dump that `visage compare` must read.

Runs Tools/litert_dump.py (LiteRT's reference kernels) on the blendshape model with the
"face" input of Tests/Fixtures/runtime, then keeps only the tensors whose files are at most
4 KB (135 of 245, about 70 KB: the input, the output and most small intermediates), with a
manifest listing just those. ValidationCLITests compares Visage's own dump with it.
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
OUT = os.path.join(ROOT, "Tests", "Fixtures", "validation", "litert-blendshapes")
LIMIT = 4096


def main():
    with tempfile.TemporaryDirectory() as work:
        full = os.path.join(work, "dump")
        subprocess.run([sys.executable, os.path.join(ROOT, "Tools", "litert_dump.py"), MODEL, "--input", INPUT, full],
                       cwd=ROOT, check=True)
        with open(os.path.join(full, "manifest.json")) as f:
            manifest = json.load(f)
        kept = [t for t in manifest["tensors"] if os.path.getsize(os.path.join(full, t["file"])) <= LIMIT]
        shutil.rmtree(OUT, ignore_errors=True)
        os.makedirs(OUT)
        for t in kept:
            shutil.copy(os.path.join(full, t["file"]), OUT)
        manifest["trimmed"] = f"only the {len(kept)} of {len(manifest['tensors'])} tensors of at most {LIMIT} bytes"
        manifest["tensors"] = kept
        with open(os.path.join(OUT, "manifest.json"), "w") as f:
            json.dump(manifest, f, indent=0)
            f.write("\n")
    print(f"wrote {OUT}: {len(kept)} tensors")


if __name__ == "__main__":
    main()
