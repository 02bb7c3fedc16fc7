#!/usr/bin/env python3
"""Time of `visage detect` per image for each range, with and without --any-rotation, on a
1280x960 and a 4000x3000 image (issue 16: the cost of --range all), single-threaded unless
--threads says otherwise.

The images are the first crowd image of Tools/make_crowd_fixtures.py's committed subset
scaled to each size (so both hold the same faces). Each configuration runs the image
`--repeat` times in one process after one warm-up run in another; the figure is the median
of three such processes' mean time per image, model loading included once per process.

    swift build -c release --product visage
    .venv/bin/python Benchmarks/range_cost.py --min-detection-confidence 0.4   # the README's figures
    .venv/bin/python Benchmarks/range_cost.py --min-detection-confidence 0.4 --threads 2
"""
import argparse
import os
import statistics
import subprocess
import tempfile
import time

from PIL import Image

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--visage", default=os.path.join(ROOT, ".build/release/visage"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--min-detection-confidence", default="0.5",
                        help="passed to visage detect (how many candidates get a second and third look)")
    parser.add_argument("--threads", default="1", help="passed to visage detect")
    a = parser.parse_args()
    source = Image.open(os.path.join(ROOT, "Tests/Fixtures/crowd/crowd_00.jpg")).convert("RGB")
    tmp = tempfile.mkdtemp(prefix="visage-range-cost-")
    print("| image | range | any rotation | s / image | × short |")
    print("|---|---|---|---|---|")
    for w, h in [(1280, 960), (4000, 3000)]:
        path = os.path.join(tmp, f"crowd_{w}x{h}.png")
        source.resize((w, h), Image.BICUBIC).save(path)
        baseline = None
        for rng in ["short", "full", "all"]:
            for rotation in [False, True]:
                args = [a.visage, "detect", "--threads", a.threads, "--range", rng,
                        "--min-detection-confidence", a.min_detection_confidence] + (["--any-rotation"] if rotation else [])
                subprocess.run(args + [path], check=True, capture_output=True)
                runs = []
                for _ in range(3):
                    start = time.perf_counter()
                    subprocess.run(args + [path] * a.repeat, check=True, capture_output=True)
                    runs.append((time.perf_counter() - start) / a.repeat)
                seconds = statistics.median(runs)
                baseline = baseline or seconds
                print(f"| {w}×{h} | {rng} | {'yes' if rotation else 'no'} | {seconds:.3f} | {seconds / baseline:.1f} |", flush=True)


if __name__ == "__main__":
    main()
