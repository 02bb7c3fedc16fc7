#!/usr/bin/env python3
"""Write the runtime parity fixtures: LiteRT's reference-kernel outputs for each bundled model.

For each of the four models and two inputs ("face": a real face from astronaut.png;
"random": seeded uniform noise in the model's input range), runs ai-edge-litert with
OpResolverType.BUILTIN_REF on one thread and writes, under Tests/Fixtures/runtime/<model>/:

    <input>.input.npy     the input, float32, the model's input shape
    <input>.out<k>.npy    output k in the interpreter's output order
    <input>.layers.json   per-operator output fingerprints in execution order (DEQUANTIZE
                          skipped): op, tensor, name, shape, count, mean, rms, min, max and
                          8 samples at flat indices round(i*(n-1)/7)

plus Tests/Fixtures/runtime/manifest.json. Run from anywhere with the venv of
Tools/setup-python.sh:  .venv/bin/python Tools/make_runtime_fixtures.py
"""
import json
import os

import numpy as np
from PIL import Image
import ai_edge_litert
from ai_edge_litert.interpreter import Interpreter, OpResolverType

from bundled_models import ROOT, MODELS, model_bytes

OUT = os.path.join(ROOT, "Tests", "Fixtures", "runtime")
IMAGE = os.path.join(ROOT, "Tests", "Fixtures", "images", "astronaut.png")
TOLERANCE = "max|ours-ref| <= 1e-5 * max(1, max|ref|)"

# The 146 landmarks the blendshape model reads (MediaPipe's kLandmarksSubsetIdxs).
BLENDSHAPE_LANDMARKS = [
    0, 1, 4, 5, 6, 7, 8, 10, 13, 14, 17, 21, 33, 37, 39, 40, 46, 52, 53, 54, 55, 58, 61, 63, 65,
    66, 67, 70, 78, 80, 81, 82, 84, 87, 88, 91, 93, 95, 103, 105, 107, 109, 127, 132, 133, 136,
    144, 145, 146, 148, 149, 150, 152, 153, 154, 155, 157, 158, 159, 160, 161, 162, 163, 168,
    172, 173, 176, 178, 181, 185, 191, 195, 197, 234, 246, 249, 251, 263, 267, 269, 270, 276,
    282, 283, 284, 285, 288, 291, 293, 295, 296, 297, 300, 308, 310, 311, 312, 314, 317, 318,
    321, 323, 324, 332, 334, 336, 338, 356, 361, 362, 365, 373, 374, 375, 377, 378, 379, 380,
    381, 382, 384, 385, 386, 387, 388, 389, 390, 397, 398, 400, 402, 405, 409, 415, 454, 466,
    468, 469, 470, 471, 472, 473, 474, 475, 476, 477,
]
assert len(BLENDSHAPE_LANDMARKS) == 146


def reference_interpreter(name):
    it = Interpreter(model_content=model_bytes(name), num_threads=1,
                     experimental_op_resolver_type=OpResolverType.BUILTIN_REF,
                     experimental_preserve_all_tensors=True)
    it.allocate_tensors()
    return it


def run(it, x):
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()
    return [it.get_tensor(d["index"]).copy() for d in it.get_output_details()]


def fingerprints(it):
    tensors = {t["index"]: t for t in it.get_tensor_details()}
    result = []
    for op in it._get_ops_details():
        if op["op_name"] == "DEQUANTIZE":
            continue
        index = int(op["outputs"][0])
        v = it.get_tensor(index).astype(np.float64).ravel()
        n = v.size
        result.append({
            "op": op["op_name"], "tensor": index, "name": tensors[index]["name"],
            "shape": [int(d) for d in tensors[index]["shape"]], "count": n,
            "mean": float(v.mean()), "rms": float(np.sqrt((v * v).mean())),
            "min": float(v.min()), "max": float(v.max()),
            "samples": [float(v[round(i * (n - 1) / 7)]) for i in range(8)],
        })
    return result


def face_image(size, box=None):
    image = Image.open(IMAGE).convert("RGB")
    if box:
        image = image.crop(box)
    return np.asarray(image.resize((size, size), Image.BILINEAR), dtype=np.uint8)


def inputs_for(name, rng):
    """The face and random inputs, each float32 in the model's input shape and range."""
    if name in ("face_detector", "face_detection_full_range"):
        size = 128 if name == "face_detector" else 192
        face = face_image(size).astype(np.float32) / np.float32(127.5) - np.float32(1)
        noise = rng.uniform(-1, 1, (1, size, size, 3))
        return face[None], noise.astype(np.float32)
    if name == "face_landmarks_detector":
        face = face_image(256, (160, 30, 340, 210)).astype(np.float32) / np.float32(255)
        return face[None], rng.uniform(0, 1, (1, 256, 256, 3)).astype(np.float32)
    # Blendshapes read landmark x, y in pixels: take them from the landmark model on the face.
    landmarks_input, _ = inputs_for("face_landmarks_detector", rng)
    mesh = run(reference_interpreter("face_landmarks_detector"), landmarks_input)[0].reshape(478, 3)
    points = mesh[BLENDSHAPE_LANDMARKS, :2].astype(np.float32)[None]
    return points, rng.uniform(0, 256, (1, 146, 2)).astype(np.float32)


def main():
    manifest = {"litert": ai_edge_litert.__version__ if hasattr(ai_edge_litert, "__version__") else "unknown",
                "resolver": "BUILTIN_REF", "threads": 1, "tolerance": TOLERANCE, "models": {}}
    for name in MODELS:
        folder = os.path.join(OUT, name)
        os.makedirs(folder, exist_ok=True)
        rng = np.random.default_rng(20261121)
        face, noise = inputs_for(name, rng)
        it = reference_interpreter(name)
        entry = {"inputs": {}, "outputs": [{"name": d["name"], "shape": [int(s) for s in d["shape"]]}
                                           for d in it.get_output_details()]}
        for label, x in (("face", face), ("random", noise)):
            outputs = run(it, x)
            np.save(os.path.join(folder, f"{label}.input.npy"), x)
            for k, y in enumerate(outputs):
                np.save(os.path.join(folder, f"{label}.out{k}.npy"), y.astype(np.float32))
            with open(os.path.join(folder, f"{label}.layers.json"), "w") as f:
                json.dump(fingerprints(it), f, indent=0)
            fast = Interpreter(model_content=model_bytes(name), num_threads=1)
            fast.allocate_tensors()
            gap = max(float(np.abs(a - b).max() / max(1.0, float(np.abs(b).max())))
                      for a, b in zip(run(fast, x), outputs))
            entry["inputs"][label] = {"shape": list(x.shape), "xnnpackScaledGap": gap}
            print(f"{name:28} {label:7} XNNPACK vs reference, scaled max gap {gap:.3g}")
        manifest["models"][name] = entry
    with open(os.path.join(OUT, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    total = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(OUT) for f in fs)
    print(f"wrote {OUT}: {total / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
