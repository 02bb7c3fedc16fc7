#!/usr/bin/env python3
"""Time Visage and LiteRT on the same models, inputs and thread counts, in one run.

Visage is timed by `visage bench` (a release build); LiteRT (ai-edge-litert, its default
XNNPACK path) is timed here, in-process, around `invoke()` only. Both get the same input
values: SplitMix64(seed 42) mapped to [-1, 1), as `visage bench` fills them.

Pipeline item `detector_image`: MediaPipe 1.2.2's Tasks FaceDetector (short range, IMAGE mode,
default options) timed around `detect()` on Tests/Fixtures/images/astronaut.png, decoded and
wrapped in an mp.Image once beforehand (decoding excluded), against `visage bench --only
detector_image`. MediaPipe's Python API has no thread-count option; its CPU inference uses one
XNNPACK thread on desktop Linux (the cpu/wall ratio printed with it, about 1.0, shows that), so
its figure is the same whatever --threads says. If the visage binary does not know the item
yet, only MediaPipe's figure is printed.

    swift build -c release --product visage
    python3 Benchmarks/compare.py --threads 1 --threads 2
    python3 Benchmarks/compare.py --only detector_image

Needs `pip install -r Benchmarks/requirements.txt` (Tools/setup-python.sh makes a venv).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np
from ai_edge_litert.interpreter import Interpreter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "Tools"))
from bundled_models import MODELS, model_bytes  # noqa: E402

PIPELINES = ["detector_image"]  # timed against MediaPipe Tasks instead of LiteRT
ASTRONAUT = os.path.join(ROOT, "Tests", "Fixtures", "images", "astronaut.png")


def splitmix64_floats(count, seed=42):
    """The values `visage bench` writes into each input: SplitMix64, top 24 bits, to [-1, 1)."""
    mask = (1 << 64) - 1
    state = seed
    out = np.empty(count, dtype=np.float32)
    for i in range(count):
        state = (state + 0x9E3779B97F4A7C15) & mask
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        z ^= z >> 31
        out[i] = np.float32(z >> 40) / np.float32(1 << 24) * np.float32(2) - np.float32(1)
    return out


def stats(times_ms):
    s = sorted(times_ms)
    p90 = s[max(0, -(-9 * len(s) // 10) - 1)]
    return {"minMs": s[0], "medianMs": s[len(s) // 2], "p90Ms": p90}


def litert(name, threads, iterations, warmup):
    it = Interpreter(model_content=model_bytes(name), num_threads=threads)
    it.allocate_tensors()
    for d in it.get_input_details():
        it.set_tensor(d["index"], splitmix64_floats(int(np.prod(d["shape"]))).reshape(d["shape"]))
    for _ in range(warmup):
        it.invoke()
    times = []
    for _ in range(iterations):
        t0 = time.perf_counter_ns()
        it.invoke()
        times.append((time.perf_counter_ns() - t0) / 1e6)
    return stats(times)


def visage(binary, name, threads, iterations, warmup):
    out = subprocess.run(
        [binary, "bench", "--only", name, "--threads", str(threads), "--iterations", str(iterations),
         "--warmup", str(warmup), "--output", "json"],
        check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


_noted = set()


def visage_if_supported(binary, name, threads, iterations, warmup):
    """`visage bench` for an item it may not know yet (or with no binary at all): None then."""
    if not os.path.exists(binary):
        return None
    try:
        return visage(binary, name, threads, iterations, warmup)
    except subprocess.CalledProcessError as e:
        if name in _noted:
            return None
        _noted.add(name)
        first = (e.stderr or "").strip().splitlines()
        print(f"note: `visage bench --only {name}` failed ({first[0] if first else e.returncode}); "
              "showing MediaPipe only", file=sys.stderr)
        return None


def mediapipe_detector_image(iterations, warmup):
    """MediaPipe Tasks FaceDetector.detect on the decoded astronaut.png: min, median, p90 ms."""
    os.environ.setdefault("GLOG_minloglevel", "2")
    import mediapipe as mp
    from mediapipe.tasks.python import BaseOptions, vision
    from make_detector_fixtures import decode_rgb

    image = mp.Image(image_format=mp.ImageFormat.SRGB, data=decode_rgb(ASTRONAUT))
    options = vision.FaceDetectorOptions(
        base_options=BaseOptions(model_asset_buffer=model_bytes("face_detector")),
        running_mode=vision.RunningMode.IMAGE)
    with vision.FaceDetector.create_from_options(options) as detector:
        for _ in range(warmup):
            detector.detect(image)
        times = []
        cpu0, wall0 = time.process_time(), time.perf_counter()
        for _ in range(iterations):
            t0 = time.perf_counter_ns()
            detector.detect(image)
            times.append((time.perf_counter_ns() - t0) / 1e6)
        cpu_per_wall = (time.process_time() - cpu0) / (time.perf_counter() - wall0)
    return {**stats(times), "cpuPerWall": cpu_per_wall}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--threads", type=int, action="append")
    p.add_argument("--iterations", type=int, default=200)
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--only", action="append", choices=MODELS + PIPELINES)
    p.add_argument("--visage", default=os.path.join(ROOT, ".build", "release", "visage"))
    p.add_argument("--output", choices=["json", "text"], default="text")
    a = p.parse_args()
    names = a.only or MODELS + PIPELINES
    models = [n for n in names if n in MODELS]
    pipelines = [n for n in names if n in PIPELINES]
    if models and not os.path.exists(a.visage):
        sys.exit(f"{a.visage} not found: run `swift build -c release --product visage` first")
    rows = []
    for threads in a.threads or [1]:
        for name in models:
            v = visage(a.visage, name, threads, a.iterations, a.warmup)
            l = litert(name, threads, a.iterations, a.warmup)
            rows.append({"name": name, "threads": threads, "iterations": a.iterations,
                         "visageMedianMs": v["medianMs"], "visageMinMs": v["minMs"],
                         "litertMedianMs": l["medianMs"], "litertMinMs": l["minMs"],
                         "ratio": v["medianMs"] / l["medianMs"]})
    pipeline_rows = []
    if pipelines:
        reference = {"detector_image": mediapipe_detector_image(a.iterations, a.warmup)}
        for threads in a.threads or [1]:
            for name in pipelines:
                v = visage_if_supported(a.visage, name, threads, a.iterations, a.warmup)
                m = reference[name]
                pipeline_rows.append({
                    "name": name, "threads": threads, "iterations": a.iterations,
                    "visageMedianMs": v["medianMs"] if v else None, "visageMinMs": v["minMs"] if v else None,
                    "mediapipeMedianMs": m["medianMs"], "mediapipeMinMs": m["minMs"],
                    "mediapipeCpuPerWall": m["cpuPerWall"],
                    "ratio": v["medianMs"] / m["medianMs"] if v else None})
    if a.output == "json":
        for r in rows + pipeline_rows:
            print(json.dumps(r))
        return
    if rows:
        print(f"{'model':28} {'thr':>3} {'visage med':>11} {'litert med':>11} {'visage min':>11} {'litert min':>11} {'ratio':>6}")
    for r in rows:
        print(f"{r['name']:28} {r['threads']:>3} {r['visageMedianMs']:>8.3f} ms {r['litertMedianMs']:>8.3f} ms "
              f"{r['visageMinMs']:>8.3f} ms {r['litertMinMs']:>8.3f} ms {r['ratio']:>6.2f}")
    if pipeline_rows:
        if rows:
            print()
        print(f"{'pipeline':28} {'thr':>3} {'visage med':>11} {'mediapipe med':>14} {'visage min':>11} "
              f"{'mediapipe min':>14} {'ratio':>6}")
        missing = f"{'-':>11}"
        for r in pipeline_rows:
            vmed = f"{r['visageMedianMs']:>8.3f} ms" if r["visageMedianMs"] is not None else missing
            vmin = f"{r['visageMinMs']:>8.3f} ms" if r["visageMinMs"] is not None else missing
            ratio = f"{r['ratio']:>6.2f}" if r["ratio"] is not None else f"{'-':>6}"
            print(f"{r['name']:28} {r['threads']:>3} {vmed} {r['mediapipeMedianMs']:>11.3f} ms {vmin} "
                  f"{r['mediapipeMinMs']:>11.3f} ms {ratio}")
        print(f"MediaPipe: default CPU options (no thread setting in its API); cpu/wall during its timed "
              f"runs {pipeline_rows[0]['mediapipeCpuPerWall']:.2f}")


if __name__ == "__main__":
    main()
