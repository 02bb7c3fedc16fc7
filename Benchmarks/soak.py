#!/usr/bin/env python3
"""Soak test: a long YUV4MPEG2 stream on standard input through `visage landmark
--running-mode video`, with the process's resident memory sampled every second.

    python3 Benchmarks/soak.py [--frames 10000] [--visage .build/release/visage] [extra visage options]

The stream loops over Tests/Fixtures/images/astronaut.png shifted sideways by 0 to 8 pixels
(read with `convert FILE.png ppm:-`, turned into 4:4:4 BT.601 limited-range YUV, the reader's
default below 720 rows). Prints one line per sample and ends with

    soak: FRAMES frames, RESULTS results in SECONDS s = FPS frames/s; RSS start S kB, end E kB, max M kB

where "start" is the first sample, taken once the models are loaded and frames flow. Exits
non-zero if visage fails or gives fewer result lines than frames. Needs numpy.
"""
import argparse
import os
import subprocess
import sys
import threading
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def frames_as_yuv444():
    """The astronaut fixture as one 4:4:4 frame, and the same picture shifted a few pixels
    sideways for the others, so the tracker follows a moving face."""
    path = os.path.join(ROOT, "Tests", "Fixtures", "images", "astronaut.png")
    ppm = subprocess.check_output(["convert", path, "ppm:-"])
    magic, width, height, maxval, pixels = ppm.split(maxsplit=4)
    if magic != b"P6" or maxval != b"255":
        sys.exit("soak: expected an 8-bit binary PPM from convert")
    width, height = int(width), int(height)
    rgb = np.frombuffer(pixels[: width * height * 3], np.uint8).reshape(height, width, 3).astype(np.float64)
    frames = []
    for shift in (0, 2, 4, 6, 8, 6, 4, 2):
        shifted = np.roll(rgb, shift, axis=1)
        r, g, b = shifted[..., 0], shifted[..., 1], shifted[..., 2]
        luma = 0.299 * r + 0.587 * g + 0.114 * b
        planes = [16 + luma * 219 / 255, 128 + (b - luma) / 1.772 * 224 / 255, 128 + (r - luma) / 1.402 * 224 / 255]
        frames.append(b"FRAME\n" + b"".join(np.clip(np.rint(p), 0, 255).astype(np.uint8).tobytes() for p in planes))
    return (width, height), frames


def rss_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except FileNotFoundError:
        return None
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=10_000)
    parser.add_argument("--visage", default=os.path.join(ROOT, ".build", "release", "visage"))
    args, extra = parser.parse_known_args()
    (width, height), frames = frames_as_yuv444()
    command = [args.visage, "landmark", "--running-mode", "video", "--output", "json", *extra, "-"]
    print("soak:", " ".join(command), f"< {args.frames} frames {width}x{height}", flush=True)
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def write():
        try:
            process.stdin.write(f"YUV4MPEG2 W{width} H{height} F30:1 Ip A1:1 C444\n".encode())
            for i in range(args.frames):
                process.stdin.write(frames[i % len(frames)])
            process.stdin.close()
        except BrokenPipeError:
            pass

    results = [0]

    def read():
        for _ in process.stdout:
            results[0] += 1

    threads = [threading.Thread(target=write, daemon=True), threading.Thread(target=read, daemon=True)]
    start = time.monotonic()
    for thread in threads:
        thread.start()
    samples = []
    while process.poll() is None:
        time.sleep(1)
        kb = rss_kb(process.pid)
        if kb is not None and process.poll() is None:
            samples.append(kb)
            print(f"soak: {time.monotonic() - start:7.1f} s  {results[0]:6d} results  RSS {kb} kB", flush=True)
    elapsed = time.monotonic() - start
    for thread in threads:
        thread.join()
    if not samples:
        sys.exit("soak: visage ended before the first sample")
    print(
        f"soak: {args.frames} frames, {results[0]} results in {elapsed:.1f} s = {results[0] / elapsed:.1f} frames/s; "
        f"RSS start {samples[0]} kB, end {samples[-1]} kB, max {max(samples)} kB")
    if process.returncode != 0 or results[0] < args.frames:
        sys.exit(f"soak: visage exited {process.returncode} after {results[0]} results")


if __name__ == "__main__":
    main()
