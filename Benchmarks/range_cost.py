#!/usr/bin/env python3
"""Time of `visage detect` per image for each range, with and without --any-rotation, on a
1280x960 and a 4000x3000 image (issue 16: the cost of --range all), single-threaded unless
--threads says otherwise.

The images are the first crowd image of Tools/make_crowd_fixtures.py's committed subset
scaled to each size (so both hold the same faces). Each configuration runs the image
`--repeat` times in one process after one warm-up run in another; the figure is the median
of three such processes' mean time per image, model loading included once per process.

    swift build -c release --product visage
    .venv/bin/python Benchmarks/range_cost.py --min-detection-confidence 0.4   # docs/every-face.md's figures
    .venv/bin/python Benchmarks/range_cost.py --min-detection-confidence 0.4 --threads 2

With --breakdown it instead says where the time of `--range all --any-rotation` goes (issue 31),
from `visage detect --profile-search`: per pass kind and turn, the suppression and the looks
(wall seconds and model runs per image), then over all model runs the warps, the models and
the output decoding, and how many candidates reach the looks and how many the looks confirm.
It runs on the crowd images of Tests/Fixtures/crowd (or the .jpg files of --crowd DIR, such as
a set of Tools/make_crowd_fixtures.py) and on the first of them scaled to 4000x3000; each input
is run once after one warm-up process.

    .venv/bin/python Benchmarks/range_cost.py --breakdown --min-detection-confidence 0.4
    .venv/bin/python Benchmarks/range_cost.py --breakdown --min-detection-confidence 0.4 --crowd /tmp/crowd

With --threads-speedup it times `--range all`, with and without --any-rotation, at 1 and 2
threads in alternating rounds (the median of --rounds, one image per process, model loading
included), and checks that both give byte-identical output (issue 31, item 5).

    .venv/bin/python Benchmarks/range_cost.py --threads-speedup --min-detection-confidence 0.4
"""
import glob
import json
import re
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
    parser.add_argument("--breakdown", action="store_true", help="where the all-scales, any-rotation search's time goes")
    parser.add_argument("--crowd", help="folder of crowd .jpg files for --breakdown (default: Tests/Fixtures/crowd)")
    parser.add_argument("--threads-speedup", action="store_true", help="`all` at 1 and 2 threads, output compared")
    parser.add_argument("--rounds", type=int, default=3, help="rounds for --threads-speedup")
    a = parser.parse_args()
    if a.breakdown:
        breakdown(a)
        return
    if a.threads_speedup:
        threads_speedup(a)
        return
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


def threads_speedup(a):
    """`all` with and without any rotation at 1 and 2 threads: the search's own seconds per
    image (the sum of its phases, from --profile-search) and the wall time per image, each the
    median over rounds of a process's mean over --repeat copies; and whether the outputs are
    byte-identical."""
    source = Image.open(os.path.join(ROOT, "Tests/Fixtures/crowd/crowd_00.jpg")).convert("RGB")
    tmp = tempfile.mkdtemp(prefix="visage-range-threads-")
    print("| image | any rotation | search, 1 thread | search, 2 threads | speed-up | wall, 1 thread | "
          "wall, 2 threads | speed-up | same output |")
    print("|---|---|---|---|---|---|---|---|---|")
    for w, h in [(1280, 960), (4000, 3000)]:
        path = os.path.join(tmp, f"crowd_{w}x{h}.png")
        source.resize((w, h), Image.BICUBIC).save(path)
        for rotation in [False, True]:
            def run(threads):
                args = [a.visage, "detect", "--threads", str(threads), "--range", "all", "--output", "json",
                        "--profile-search", "--min-detection-confidence", a.min_detection_confidence] + \
                    (["--any-rotation"] if rotation else []) + [path] * a.repeat
                start = time.perf_counter()
                done = subprocess.run(args, check=True, capture_output=True, text=True)
                wall = (time.perf_counter() - start) / a.repeat
                found = [json.loads(line)["searchProfile"] for line in done.stderr.splitlines() if line.startswith("{")]
                search = sum(p["seconds"] for f in found for p in f["phases"]) / len(found)
                return search, wall, done.stdout
            outputs = {t: run(t)[2] for t in (1, 2)}
            times = {1: [], 2: []}
            for _ in range(a.rounds):
                for t in (1, 2):
                    times[t].append(run(t)[:2])
            median = {t: [statistics.median(x[k] for x in times[t]) for k in (0, 1)] for t in (1, 2)}
            (s1, w1), (s2, w2) = median[1], median[2]
            print(f"| {w}×{h} | {'yes' if rotation else 'no'} | {s1:.3f} s | {s2:.3f} s | {s1 / s2:.2f}× | "
                  f"{w1:.3f} s | {w2:.3f} s | {w1 / w2:.2f}× | {'yes' if outputs[1] == outputs[2] else 'NO'} |",
                  flush=True)


def profiles(a, paths):
    """`visage detect --profile-search` over `paths` in one process: one profile per input."""
    args = [a.visage, "detect", "--threads", a.threads, "--range", "all", "--any-rotation", "--profile-search",
            "--min-detection-confidence", a.min_detection_confidence, "--output", "json"]
    subprocess.run(args + paths[:1], check=True, capture_output=True)  # warm-up
    err = subprocess.run(args + paths, check=True, capture_output=True, text=True).stderr
    return [json.loads(line)["searchProfile"] for line in err.splitlines() if line.startswith("{")]


def report(title, found):
    """Prints the mean per image of every phase kind (turns apart and summed) and the totals."""
    n = len(found)
    rows = {}
    for profile in found:
        for phase in profile["phases"]:
            kind = re.sub(r" \d+°$", "", phase["name"])
            turn = phase["name"][len(kind):].strip() or "-"
            for key in [(kind, turn), (kind, "all")]:
                seconds, runs = rows.get(key, (0.0, 0))
                rows[key] = (seconds + phase["seconds"], runs + phase["inferences"])
    total = sum(seconds for (kind, turn), (seconds, _) in rows.items() if turn == "all")
    print(f"\n{title}: {n} image(s), mean per image")
    print("| phase | turn | s | share | model runs |")
    print("|---|---|---|---|---|")
    for (kind, turn), (seconds, runs) in rows.items():
        if turn != "all" and kind not in ("suppression", "looks"):
            print(f"| {kind} | {turn} | {seconds / n:.3f} | {seconds / total:.0%} | {runs / n:.0f} |")
    for (kind, turn), (seconds, runs) in rows.items():
        if turn == "all":
            print(f"| **{kind}** | all | {seconds / n:.3f} | {seconds / total:.0%} | {runs / n:.0f} |")
    warp, model, decode = (sum(p[k] for p in found) / n for k in ("warpSeconds", "modelSeconds", "decodeSeconds"))
    runs = sum(p["inferences"] for p in found) / n
    print(f"| **search** | | {total / n:.3f} | 100% | {runs:.0f} |")
    print(f"\nOver all model runs: warp {warp:.3f} s, model {model:.3f} s, output decoding {decode:.3f} s per image "
          f"({model / runs * 1000:.2f} ms a run); candidates reaching the looks "
          f"{sum(p['candidates'] for p in found) / n:.1f}, confirmed {sum(p['confirmed'] for p in found) / n:.1f} per image")


def breakdown(a):
    folder = a.crowd or os.path.join(ROOT, "Tests/Fixtures/crowd")
    crowd = sorted(p for p in glob.glob(os.path.join(folder, "*.jpg")) if "negative" not in os.path.basename(p))
    print(f"`visage detect --range all --any-rotation --min-detection-confidence {a.min_detection_confidence} "
          f"--threads {a.threads} --profile-search`")
    report(f"crowd images ({folder})", profiles(a, crowd))
    tmp = tempfile.mkdtemp(prefix="visage-range-cost-")
    big = os.path.join(tmp, "crowd_4000x3000.png")
    Image.open(crowd[0]).convert("RGB").resize((4000, 3000), Image.BICUBIC).save(big)
    report(f"{os.path.basename(crowd[0])} scaled to 4000x3000", profiles(a, [big]))


if __name__ == "__main__":
    main()
