#!/usr/bin/env python3
"""Time a camera frame into an image: Visage's NV12 conversion against OpenCV's, in one run.

Visage is timed by `visage bench --only nv12_frame` (a release build): a 1920x1080 video-range
NV12 frame of random samples into an `MPImage`, the RGB storage allocated every time, on one
thread. OpenCV is timed here around `cv2.cvtColor(frame, cv2.COLOR_YUV2RGB_NV12)` on a frame of
the same size, also allocating its output each time, with `cv2.setNumThreads(1)`. The two give
the same pixels (Tests/VisageTests/MPImageYUVTests checks OpenCV's answers bit for bit). Each
side is timed in --rounds alternating blocks, because this kind of machine has slow spells of
seconds. Both sides are summarized alike: the median of the blocks' medians, and the smallest
time of any block; the ratio is Visage's median over OpenCV's.

    swift build -c release --product visage
    .venv/bin/python Benchmarks/camera_frame.py            # .venv from Tools/setup-python.sh

The issue's bar for Visage is 2 ms per 1920x1080 frame on one core.
"""

import argparse
import json
import statistics
import subprocess
import time

import cv2
import numpy as np

WIDTH, HEIGHT = 1920, 1080


def visage_block(visage: str, iterations: int) -> dict:
    out = subprocess.run(
        [visage, "bench", "--only", "nv12_frame", "--threads", "1", "--iterations", str(iterations),
         "--warmup", "20", "--output", "json"],
        check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def opencv_block(frame: np.ndarray, iterations: int) -> list[float]:
    for _ in range(20):
        cv2.cvtColor(frame, cv2.COLOR_YUV2RGB_NV12)
    times = []
    for _ in range(iterations):
        start = time.perf_counter()
        cv2.cvtColor(frame, cv2.COLOR_YUV2RGB_NV12)
        times.append((time.perf_counter() - start) * 1000)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--visage", default=".build/release/visage")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--iterations", type=int, default=200)
    args = parser.parse_args()

    cv2.setNumThreads(1)
    frame = np.random.default_rng(42).integers(0, 256, (HEIGHT * 3 // 2, WIDTH), dtype=np.uint8)
    visage_medians, visage_mins, opencv_medians, opencv_mins = [], [], [], []
    for _ in range(args.rounds):
        block = visage_block(args.visage, args.iterations)
        visage_medians.append(block["medianMs"])
        visage_mins.append(block["minMs"])
        times = opencv_block(frame, args.iterations)
        opencv_medians.append(statistics.median(times))
        opencv_mins.append(min(times))
    visage_median = statistics.median(visage_medians)
    opencv_median = statistics.median(opencv_medians)
    print(f"1920x1080 NV12 -> RGB, one thread, {args.rounds} rounds of {args.iterations}")
    print(f"  visage  median {visage_median:.3f} ms  min {min(visage_mins):.3f} ms "
          f"(instruction set {block['instructionSet']})")
    print(f"  opencv  median {opencv_median:.3f} ms  min {min(opencv_mins):.3f} ms ({cv2.__version__})")
    print(f"  visage / opencv (medians): {visage_median / opencv_median:.2f}")


if __name__ == "__main__":
    main()
