#!/usr/bin/env python3
"""Each bundled model at each GEMM tile height (8, 6, 4, 2 rows) and each instruction set this CPU
runs: the measurement behind `TileHeight`'s table (Sources/VisageKernels/TileHeight.swift).

Runs `visage bench --only MODEL --output json` with VISAGE_TILE_ROWS and VISAGE_MAX_ISA set,
the heights in turn within each round so that a slow spell lands on all of them, and prints
the min over rounds of each run's min, in ms, with the fastest height marked.

    swift build -c release --product visage
    python3 Benchmarks/tile_heights.py --visage .build/release/visage

Needs only Python 3 (no packages).
"""

import argparse
import json
import os
import subprocess

MODELS = ["face_detector", "face_landmarks_detector", "face_blendshapes", "face_detection_full_range"]
HEIGHTS = [8, 6, 4, 2]


def run(visage, model, level, rows, iterations):
    env = dict(os.environ, VISAGE_MAX_ISA=level, VISAGE_TILE_ROWS=str(rows))
    out = subprocess.run(
        [visage, "bench", "--only", model, "--iterations", str(iterations), "--output", "json"],
        env=env, check=True, capture_output=True, text=True).stdout
    record = json.loads(out.strip().splitlines()[-1])
    assert record["tileRows"] == rows and record["instructionSet"] == level, record
    return record["minMs"]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--visage", default=".build/release/visage")
    p.add_argument("--levels", default="baseline,avx2,avx512",
                   help="levels to try; those above the CPU's are skipped")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--iterations", type=int, default=100)
    args = p.parse_args()

    top = json.loads(subprocess.run([args.visage, "bench", "--only", "face_blendshapes", "--iterations", "1",
                                     "--warmup", "0", "--output", "json"], check=True, capture_output=True,
                                    text=True).stdout.strip().splitlines()[-1])["instructionSet"]
    order = ["baseline", "avx2", "avx512"]
    levels = [l for l in args.levels.split(",") if order.index(l) <= order.index(top)]
    print(f"min ms over {args.rounds} rounds of {args.iterations} runs, one thread")
    print(f"{'level':9} {'model':27}" + "".join(f"{str(h) + ' rows':>10}" for h in HEIGHTS) + "   fastest")
    for level in levels:
        for model in MODELS:
            best = {h: float("inf") for h in HEIGHTS}
            for _ in range(args.rounds):
                for h in HEIGHTS:
                    best[h] = min(best[h], run(args.visage, model, level, h, args.iterations))
            fastest = min(HEIGHTS, key=lambda h: best[h])
            print(f"{level:9} {model:27}" + "".join(f"{best[h]:10.3f}" for h in HEIGHTS) + f"   {fastest}")


if __name__ == "__main__":
    main()
