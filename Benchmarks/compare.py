#!/usr/bin/env python3
"""Time Visage and LiteRT on the same models, inputs and thread counts, in one run.

Visage is timed by `visage bench` (a release build); LiteRT (ai-edge-litert, its default
XNNPACK path) is timed here, in-process, around `invoke()` only. Both get the same input
values: SplitMix64(seed 42) mapped to [-1, 1), as `visage bench` fills them.

    swift build -c release --product visage
    python3 Benchmarks/compare.py --threads 1 --threads 2

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


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--threads", type=int, action="append")
    p.add_argument("--iterations", type=int, default=200)
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--only", action="append", choices=MODELS)
    p.add_argument("--visage", default=os.path.join(ROOT, ".build", "release", "visage"))
    p.add_argument("--output", choices=["json", "text"], default="text")
    a = p.parse_args()
    if not os.path.exists(a.visage):
        sys.exit(f"{a.visage} not found: run `swift build -c release --product visage` first")
    rows = []
    for threads in a.threads or [1]:
        for name in a.only or MODELS:
            v = visage(a.visage, name, threads, a.iterations, a.warmup)
            l = litert(name, threads, a.iterations, a.warmup)
            rows.append({"name": name, "threads": threads, "iterations": a.iterations,
                         "visageMedianMs": v["medianMs"], "visageMinMs": v["minMs"],
                         "litertMedianMs": l["medianMs"], "litertMinMs": l["minMs"],
                         "ratio": v["medianMs"] / l["medianMs"]})
    if a.output == "json":
        for r in rows:
            print(json.dumps(r))
        return
    print(f"{'model':28} {'thr':>3} {'visage med':>11} {'litert med':>11} {'visage min':>11} {'litert min':>11} {'ratio':>6}")
    for r in rows:
        print(f"{r['name']:28} {r['threads']:>3} {r['visageMedianMs']:>8.3f} ms {r['litertMedianMs']:>8.3f} ms "
              f"{r['visageMinMs']:>8.3f} ms {r['litertMinMs']:>8.3f} ms {r['ratio']:>6.2f}")


if __name__ == "__main__":
    main()
