#!/usr/bin/env python3
"""Before/after timing of one bench item: two or more `visage` binaries, alternated.

Each round runs `visage bench --only ITEM --output json` once per binary, in turn, so a slow
spell of the machine lands on every binary alike; the result per binary is the median of its
per-round medians and the median (and spread) of its per-round ratios to the first binary.
This is how the speed-ups' figures in the commit messages were measured: build the commit
before and the commit after into separate scratch paths, then

    python3 Benchmarks/ab.py --only face_blendshapes --threads 1 --rounds 12 before/visage after/visage

Needs only Python 3 (no packages).
"""

import argparse
import json
import subprocess


def median(values):
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("binaries", nargs="+", help="visage executables; the first is the baseline")
    p.add_argument("--only", required=True, help="a `visage bench` item, such as face_blendshapes")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--iterations", type=int, default=100)
    p.add_argument("--rounds", type=int, default=8)
    a = p.parse_args()
    times = {b: [] for b in a.binaries}
    for _ in range(a.rounds):
        for b in a.binaries:
            out = subprocess.run(
                [b, "bench", "--only", a.only, "--threads", str(a.threads), "--iterations", str(a.iterations),
                 "--output", "json"], capture_output=True, text=True, check=True).stdout
            times[b].append(json.loads(out.strip().splitlines()[-1])["medianMs"])
    base = times[a.binaries[0]]
    for b in a.binaries:
        ratios = [x / y for x, y in zip(times[b], base)]
        print(f"{b:40} median {median(times[b]):.3f} ms  min {min(times[b]):.3f} ms  "
              f"ratio {median(ratios):.3f} ({min(ratios):.3f}-{max(ratios):.3f})")


if __name__ == "__main__":
    main()
