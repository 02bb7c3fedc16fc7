#!/usr/bin/env python3
"""Photos per second, decode included: `visage landmark` against MediaPipe's Python loop.

It makes its own inputs (in --work, default /tmp/visage-throughput) from the repository's
photos, different crops of them resized, so that no two files are alike:
  12mp   4000x3000 JPEGs, quality 92
  3mp    2000x1500 JPEGs, quality 92
  png    PNGs of mixed sizes (640x480 up to 3000x2000)
Each set is run, in --rounds alternating blocks, by:
  visage   `visage landmark --num-faces 4 --blendshapes --transformation-matrices --output json
           --threads T FILES` (a release build; one process per block, so its start and the
           models' loading are counted), for each T of --threads;
  mediapipe  mediapipe 1.2.2's FaceLandmarker in IMAGE mode with the same options
           (num_faces 4, blendshapes and matrices on), created once beforehand, timed around
           `cv2.imread` + `mp.Image` + `detect()` for every file: what a Python batch does.
The figure is images per second over all blocks (the best block is printed too); peak RSS
is the largest a visage process reached (GNU time, /usr/bin/time, must be installed). Ratios are Visage's images/s over MediaPipe's.

    swift build -c release --product visage
    bash Tools/setup-python.sh                 # .venv with mediapipe (and OpenCV)
    .venv/bin/python Benchmarks/throughput.py --threads 1 --threads 2
"""

import argparse
import subprocess
import tempfile
import time
from pathlib import Path

import cv2
import mediapipe as mp
import numpy as np
from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
PHOTOS = [ROOT / "Tests/Fixtures/images/astronaut.png", ROOT / "Tests/Fixtures/images/camera.png"]
SETS = {
    "12mp": ("jpg", [(4000, 3000)]),
    "3mp": ("jpg", [(2000, 1500)]),
    "png": ("png", [(640, 480), (1280, 960), (1920, 1080), (3000, 2000), (1024, 1024)]),
}


def make_inputs(work: Path, count: int) -> dict[str, list[str]]:
    """Writes each set once (kept between runs) and returns its file names."""
    rng = np.random.default_rng(2026)
    sources = [Image.open(p).convert("RGB") for p in PHOTOS]
    sets = {}
    for name, (ext, sizes) in SETS.items():
        folder = work / name
        folder.mkdir(parents=True, exist_ok=True)
        files = []
        for i in range(count):
            path = folder / f"{name}-{i:02d}.{ext}"
            files.append(str(path))
            if path.exists():
                continue
            source = sources[i % len(sources)]
            w, h = sizes[i % len(sizes)]
            # A random crop of at least 70% of the photo, so that every file differs.
            cw, ch = int(source.width * rng.uniform(0.7, 1)), int(source.height * rng.uniform(0.7, 1))
            x, y = int(rng.integers(0, source.width - cw + 1)), int(rng.integers(0, source.height - ch + 1))
            image = source.crop((x, y, x + cw, y + ch)).resize((w, h), Image.BICUBIC)
            image.save(path, quality=92) if ext == "jpg" else image.save(path)
        sets[name] = files
    return sets


def run_visage(visage: str, files: list[str], threads: int) -> tuple[float, int]:
    """Seconds for one process over the files, and its peak RSS in MB (GNU time's %M: the
    rusage of a child forked from this large Python process would count the parent's pages)."""
    with tempfile.NamedTemporaryFile("r") as peak:
        args = ["/usr/bin/time", "-f", "%M", "-o", peak.name, visage, "landmark", "--num-faces", "4",
                "--blendshapes", "--transformation-matrices", "--output", "json", "--threads", str(threads)] + files
        start = time.perf_counter()
        status = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
        seconds = time.perf_counter() - start
        if status != 0:
            raise SystemExit(f"visage failed on {files[0]}...: exit status {status}")
        return seconds, int(peak.read().split()[-1]) // 1024


def make_mediapipe():
    options = mp.tasks.vision.FaceLandmarkerOptions(
        base_options=mp.tasks.BaseOptions(model_asset_path=str(ROOT / "Weights/face_landmarker.task")),
        running_mode=mp.tasks.vision.RunningMode.IMAGE, num_faces=4,
        output_face_blendshapes=True, output_facial_transformation_matrixes=True)
    return mp.tasks.vision.FaceLandmarker.create_from_options(options)


def run_mediapipe(landmarker, files: list[str]) -> float:
    start = time.perf_counter()
    for path in files:
        bgr = cv2.imread(path, cv2.IMREAD_COLOR)
        image = mp.Image(image_format=mp.ImageFormat.SRGB, data=cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB))
        landmarker.detect(image)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--visage", default=str(ROOT / ".build/release/visage"))
    parser.add_argument("--work", default="/tmp/visage-throughput")
    parser.add_argument("--count", type=int, default=24, help="files per set")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--threads", type=int, action="append", help="visage --threads (repeatable; default 1 and 2)")
    parser.add_argument("--only", action="append", choices=list(SETS), help="sets to run (default all)")
    args = parser.parse_args()
    thread_counts = args.threads or [1, 2]

    sets = make_inputs(Path(args.work), args.count)
    landmarker = make_mediapipe()
    print(f"{'set':6} {'files':>5}  {'runner':14} {'images/s':>9} {'best':>8} {'peak MB':>8} {'vs MediaPipe':>13}")
    for name in args.only or list(SETS):
        files = sets[name]
        run_mediapipe(landmarker, files[:2])  # warm-up
        totals = {t: 0.0 for t in thread_counts}
        bests = {t: float("inf") for t in thread_counts}
        peaks = {t: 0 for t in thread_counts}
        mediapipe_total, mediapipe_best = 0.0, float("inf")
        for _ in range(args.rounds):
            for t in thread_counts:
                seconds, peak = run_visage(args.visage, files, t)
                totals[t] += seconds
                bests[t] = min(bests[t], seconds)
                peaks[t] = max(peaks[t], peak)
            seconds = run_mediapipe(landmarker, files)
            mediapipe_total += seconds
            mediapipe_best = min(mediapipe_best, seconds)
        n = len(files)
        mediapipe_rate = n * args.rounds / mediapipe_total
        print(f"{name:6} {n:5}  {'mediapipe':14} {mediapipe_rate:9.2f} {n / mediapipe_best:8.2f} {'':>8} {'1.00':>13}")
        for t in thread_counts:
            rate = n * args.rounds / totals[t]
            label = f"visage -t {t}"
            print(f"{name:6} {n:5}  {label:14} {rate:9.2f} {n / bests[t]:8.2f} {peaks[t]:8d} {rate / mediapipe_rate:13.2f}")


if __name__ == "__main__":
    main()
