#!/usr/bin/env python3
"""Time Visage and LiteRT on the same models, inputs and thread counts, in one run.

Visage is timed by `visage bench` (a release build); LiteRT (ai-edge-litert, its default
XNNPACK path) is timed here, in-process, around `invoke()` only. Both get the same input
values: SplitMix64(seed 42) mapped to [-1, 1), as `visage bench` fills them. Each item is
timed in --rounds alternating blocks (Visage then LiteRT for models, MediaPipe then Visage
for pipelines, and again) because this kind of machine has slow spells lasting seconds that
one long block each would pin on one side; the ratio is the median of the blocks' ratios,
and their spread is printed too (the last column).

Pipeline item `detector_image`: MediaPipe 1.2.2's Tasks FaceDetector (short range, IMAGE mode,
default options) timed around `detect()` on Weights/bench/astronaut.png, decoded and
wrapped in an mp.Image once beforehand (decoding excluded), against `visage bench --only
detector_image`. MediaPipe's Python API has no thread-count option; its CPU inference uses one
XNNPACK thread on desktop Linux (the cpu/wall ratio printed with it, about 1.0, shows that), so
its figure is the same whatever --threads says.

Pipeline item `landmarker_image`: MediaPipe's Tasks FaceLandmarker (Weights/face_landmarker.task,
IMAGE mode, num_faces 1, output_face_blendshapes and output_facial_transformation_matrixes on)
timed around `detect()` on the same decoded astronaut.png: detector, landmarks, blendshapes and
geometry on every call.

Pipeline item `landmarker_video`: the same options in VIDEO mode, timed around each
`detect_for_video()` call, so the figures are per frame. The frames are
Weights/bench/pan/*.jpg (320x240, copies of the frames
Tools/make_landmarker_fixtures.py writes to Tests/Fixtures/landmarker/frames/pan), decoded once beforehand and played forward then backward
(0, 1, .., 11, 10, .., 1, 0, 1, ..) for the warm-up frames and then the timed ones, frame k at
round(k * 1000 / 30) ms. The face is tracked throughout, so after the first frame the detector
does not run: a frame is landmarks from the previous frame's ROI, smoothing, blendshapes and
geometry.

Visage's figures come from `visage bench --only <item> ... --output json` (all requested pipeline
items in one call). Each MediaPipe task is created and warmed up once and then timed in
--rounds blocks between Visage's.

    swift build -c release --product visage
    python3 Benchmarks/compare.py --threads 1 --threads 2
    VISAGE_MAX_ISA=avx2 python3 Benchmarks/compare.py      # Visage capped at AVX2 (or baseline)
    python3 Benchmarks/compare.py --only detector_image
    python3 Benchmarks/compare.py --only landmarker_image --only landmarker_video

Needs `pip install -r Benchmarks/requirements.txt` (Tools/setup-python.sh makes a venv).
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np
from ai_edge_litert.interpreter import Interpreter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "Tools"))
from bundled_models import MODELS, model_bytes  # noqa: E402

PIPELINES = ["detector_image", "landmarker_image", "landmarker_video"]  # against MediaPipe Tasks
# The inputs `visage bench` times its pipelines on (copies of Tests/Fixtures/images/astronaut.png
# and Tests/Fixtures/landmarker/frames/pan, see Weights/README.md), so both sides read the same files.
ASTRONAUT = os.path.join(ROOT, "Weights", "bench", "astronaut.png")
VIDEO_FRAMES = os.path.join(ROOT, "Weights", "bench", "pan")


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


def mid(values):
    """The median of block medians (the upper one of an even count)."""
    return sorted(values)[len(values) // 2]


def stats(times_ms):
    s = sorted(times_ms)
    p90 = s[max(0, -(-9 * len(s) // 10) - 1)]
    return {"minMs": s[0], "medianMs": s[len(s) // 2], "p90Ms": p90}


class LiteRT:
    """One LiteRT interpreter for a model, inputs filled, warmed up once; `time(n)` times n invokes."""

    def __init__(self, name, threads, warmup):
        self.it = Interpreter(model_content=model_bytes(name), num_threads=threads)
        self.it.allocate_tensors()
        for d in self.it.get_input_details():
            self.it.set_tensor(d["index"], splitmix64_floats(int(np.prod(d["shape"]))).reshape(d["shape"]))
        for _ in range(warmup):
            self.it.invoke()

    def time(self, iterations):
        times = []
        for _ in range(iterations):
            t0 = time.perf_counter_ns()
            self.it.invoke()
            times.append((time.perf_counter_ns() - t0) / 1e6)
        return stats(times)


def interleaved(name, binary, threads, iterations, warmup, rounds):
    """Visage and LiteRT on one model in `rounds` alternating blocks of iterations/rounds runs
    each, so that a slow spell of the machine lands on both. Medians are the median of the
    blocks' medians, minimums the least, and the ratio the median of the blocks' ratios."""
    lite = LiteRT(name, threads, warmup)
    per = max(1, iterations // rounds)
    ours, theirs = [], []
    for _ in range(rounds):
        ours.append(visage(binary, name, threads, per, warmup))
        theirs.append(lite.time(per))
    ratios = [v["medianMs"] / l["medianMs"] for v, l in zip(ours, theirs)]
    return {"visageMedianMs": mid([v["medianMs"] for v in ours]), "visageMinMs": min(v["minMs"] for v in ours),
            "litertMedianMs": mid([l["medianMs"] for l in theirs]), "litertMinMs": min(l["minMs"] for l in theirs),
            "ratio": mid(ratios), "ratioRange": [min(ratios), max(ratios)]}


def visage(binary, name, threads, iterations, warmup):
    out = subprocess.run(
        [binary, "bench", "--only", name, "--threads", str(threads), "--iterations", str(iterations),
         "--warmup", str(warmup), "--output", "json"],
        check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def visage_pipelines(binary, names, threads, iterations, warmup):
    """{name: `visage bench` result} for the pipeline items, from one call with every --only."""
    args = [binary, "bench"]
    for name in names:
        args += ["--only", name]
    args += ["--threads", str(threads), "--iterations", str(iterations), "--warmup", str(warmup),
             "--output", "json"]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    rows = (json.loads(line) for line in out.strip().splitlines() if line.startswith("{"))
    return {row["name"]: row for row in rows}


def _mediapipe():
    os.environ.setdefault("GLOG_minloglevel", "2")
    import mediapipe as mp
    from mediapipe.tasks.python import BaseOptions, vision
    return mp, BaseOptions, vision


class MediaPipeItem:
    """One MediaPipe Tasks pipeline item, set up and warmed up once; `time(n)` times the next n
    calls. Calls are numbered across blocks, so video timestamps keep increasing."""

    def __init__(self, task, call, warmup, done=None):
        self.task, self.call, self.calls, self.done = task, call, 0, done
        for _ in range(warmup):
            self.call(self.calls)
            self.calls += 1

    def time(self, iterations):
        """min, median, p90 ms of the next `iterations` calls, and the process's cpu/wall
        ratio over them."""
        times = []
        cpu0, wall0 = time.process_time(), time.perf_counter()
        for _ in range(iterations):
            t0 = time.perf_counter_ns()
            self.call(self.calls)
            times.append((time.perf_counter_ns() - t0) / 1e6)
            self.calls += 1
        cpu_per_wall = (time.process_time() - cpu0) / max(1e-9, time.perf_counter() - wall0)
        return {**stats(times), "cpuPerWall": cpu_per_wall}

    def close(self):
        self.task.close()
        if self.done:
            self.done()


def _astronaut(mp):
    from make_detector_fixtures import decode_rgb
    return mp.Image(image_format=mp.ImageFormat.SRGB, data=decode_rgb(ASTRONAUT))


def _landmarker(vision, BaseOptions, mode):
    with open(os.path.join(ROOT, "Weights", "face_landmarker.task"), "rb") as f:
        task = f.read()
    return vision.FaceLandmarker.create_from_options(vision.FaceLandmarkerOptions(
        base_options=BaseOptions(model_asset_buffer=task), running_mode=mode, num_faces=1,
        output_face_blendshapes=True, output_facial_transformation_matrixes=True))


def mediapipe_landmarker_image(warmup):
    """MediaPipe Tasks FaceLandmarker.detect on the decoded astronaut.png (blendshapes and
    matrices on, one face)."""
    mp, BaseOptions, vision = _mediapipe()
    image = _astronaut(mp)
    landmarker = _landmarker(vision, BaseOptions, vision.RunningMode.IMAGE)
    assert len(landmarker.detect(image).face_landmarks) == 1
    return MediaPipeItem(landmarker, lambda k: landmarker.detect(image), warmup)


def mediapipe_landmarker_video(warmup):
    """MediaPipe Tasks FaceLandmarker.detect_for_video per frame over the pan sequence, played
    forward and backward (blendshapes and matrices on, one face); warns if the face is lost."""
    mp, BaseOptions, vision = _mediapipe()
    from make_detector_fixtures import decode_rgb

    names = sorted(n for n in os.listdir(VIDEO_FRAMES) if n.endswith(".jpg"))
    frames = [mp.Image(image_format=mp.ImageFormat.SRGB, data=decode_rgb(os.path.join(VIDEO_FRAMES, n)))
              for n in names]
    cycle = list(range(len(frames))) + list(range(len(frames) - 2, 0, -1))  # ping-pong
    landmarker = _landmarker(vision, BaseOptions, vision.RunningMode.VIDEO)

    found = []

    def call(k):
        result = landmarker.detect_for_video(frames[cycle[k % len(cycle)]], round(k * 1000 / 30))
        found.append(len(result.face_landmarks))

    def done():
        if found.count(1) != len(found):
            print(f"note: landmarker_video lost the face on {found.count(0)} of {len(found)} frames",
                  file=sys.stderr)

    return MediaPipeItem(landmarker, call, warmup, done)


def mediapipe_detector_image(warmup):
    """MediaPipe Tasks FaceDetector.detect on the decoded astronaut.png."""
    mp, BaseOptions, vision = _mediapipe()
    image = _astronaut(mp)
    detector = vision.FaceDetector.create_from_options(vision.FaceDetectorOptions(
        base_options=BaseOptions(model_asset_buffer=model_bytes("face_detector")),
        running_mode=vision.RunningMode.IMAGE))
    return MediaPipeItem(detector, lambda k: detector.detect(image), warmup)


def compare_pipelines(a, pipelines, items, reference):
    """Rows for the pipeline items: MediaPipe's block of each (from `items`), then Visage's,
    --rounds times per thread count; `reference` gets MediaPipe's figures per item."""
    rows = []
    # Alternating blocks here too: MediaPipe's block, then Visage's, --rounds times.
    per = max(1, a.iterations // a.rounds)
    for threads in a.threads or [1]:
        blocks = {name: [] for name in pipelines}
        for _ in range(a.rounds):
            theirs = {name: items[name].time(per) for name in pipelines}
            ours = visage_pipelines(a.visage, pipelines, threads, per, a.warmup)
            for name in pipelines:
                blocks[name].append((ours[name], theirs[name]))
        for name in pipelines:
            pairs = blocks[name]
            m = {"medianMs": mid([t["medianMs"] for _, t in pairs]), "minMs": min(t["minMs"] for _, t in pairs),
                 "cpuPerWall": mid([t["cpuPerWall"] for _, t in pairs])}
            reference[name] = m
            ratios = [v["medianMs"] / t["medianMs"] for v, t in pairs]
            rows.append({
                "name": name, "threads": threads, "iterations": a.iterations, "rounds": a.rounds,
                "visageMedianMs": mid([v["medianMs"] for v, _ in pairs]),
                "visageMinMs": min(v["minMs"] for v, _ in pairs),
                "mediapipeMedianMs": m["medianMs"], "mediapipeMinMs": m["minMs"],
                "mediapipeCpuPerWall": m["cpuPerWall"],
                "ratio": mid(ratios), "ratioRange": [min(ratios), max(ratios)]})
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--threads", type=int, action="append")
    p.add_argument("--iterations", type=int, default=200)
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--rounds", type=int, default=5,
                   help="alternate Visage and the reference in this many blocks of iterations/rounds runs")
    p.add_argument("--only", action="append", choices=MODELS + PIPELINES)
    p.add_argument("--visage", default=os.path.join(ROOT, ".build", "release", "visage"))
    p.add_argument("--output", choices=["json", "text"], default="text")
    a = p.parse_args()
    names = a.only or MODELS + PIPELINES
    models = [n for n in names if n in MODELS]
    pipelines = [n for n in names if n in PIPELINES]
    if not os.path.exists(a.visage):
        sys.exit(f"{a.visage} not found: run `swift build -c release --product visage` first")
    # The micro-kernel level `visage bench` runs (the CPU's best, or VISAGE_MAX_ISA's cap,
    # which the subprocesses inherit), printed with the tables so a figure says what it timed.
    instruction_set = visage(a.visage, "face_blendshapes", 1, 1, 0).get("instructionSet", "unknown")
    rows = []
    for threads in a.threads or [1]:
        for name in models:
            rows.append({"name": name, "threads": threads, "iterations": a.iterations, "rounds": a.rounds,
                         **interleaved(name, a.visage, threads, a.iterations, a.warmup, a.rounds)})
    pipeline_rows = []
    reference = {}
    if pipelines:
        measure = {"detector_image": mediapipe_detector_image,
                   "landmarker_image": mediapipe_landmarker_image,
                   "landmarker_video": mediapipe_landmarker_video}
        items = {}
        try:
            for name in pipelines:
                items[name] = measure[name](a.warmup)
            pipeline_rows = compare_pipelines(a, pipelines, items, reference)
        finally:
            for item in items.values():
                item.close()
    if a.output == "json":
        for r in rows + pipeline_rows:
            print(json.dumps({**r, "instructionSet": instruction_set}))
        return
    print(f"Visage instruction set: {instruction_set}")
    if rows:
        print(f"{'model':28} {'thr':>3} {'visage med':>11} {'litert med':>11} {'visage min':>11} {'litert min':>11} {'ratio':>6} {'rounds':>11}")
    for r in rows:
        print(f"{r['name']:28} {r['threads']:>3} {r['visageMedianMs']:>8.3f} ms {r['litertMedianMs']:>8.3f} ms "
              f"{r['visageMinMs']:>8.3f} ms {r['litertMinMs']:>8.3f} ms {r['ratio']:>6.2f} "
              f"{r['ratioRange'][0]:>5.2f}-{r['ratioRange'][1]:.2f}")
    if pipeline_rows:
        if rows:
            print()
        print(f"{'pipeline':28} {'thr':>3} {'visage med':>11} {'mediapipe med':>14} {'visage min':>11} "
              f"{'mediapipe min':>14} {'ratio':>6} {'rounds':>11}")
        for r in pipeline_rows:
            print(f"{r['name']:28} {r['threads']:>3} {r['visageMedianMs']:>8.3f} ms {r['mediapipeMedianMs']:>11.3f} ms "
                  f"{r['visageMinMs']:>8.3f} ms {r['mediapipeMinMs']:>11.3f} ms {r['ratio']:>6.2f} "
                  f"{r['ratioRange'][0]:>5.2f}-{r['ratioRange'][1]:.2f}")
        ratios = ", ".join(f"{name} {reference[name]['cpuPerWall']:.2f}" for name in pipelines)
        print(f"MediaPipe: default CPU options (no thread setting in its API); cpu/wall during its timed "
              f"runs: {ratios}")


if __name__ == "__main__":
    main()
