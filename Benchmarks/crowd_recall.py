#!/usr/bin/env python3
"""Recall, false positives and time of `visage detect` for each range, with and without
--any-rotation, on the crowd set of Tools/make_crowd_fixtures.py (issue 16).

A face counts as found when a detection overlaps its ground-truth box with IoU >= 0.5 (each
detection matches one face at most, best overlap first). Every detection that matches no face
is a false positive, in crowd images and negatives alike. Recall is over faces of at least
20 px (the set has faces from 16 px); the time is the wall time of one single-threaded
release `visage detect` run over the whole set, divided by the number of images, and "× short"
that time over the short range's without turns in the same run (when `--ranges` has `short`).

    swift build -c release --product visage
    .venv/bin/python Tools/make_crowd_fixtures.py --out /tmp/crowd
    .venv/bin/python Benchmarks/crowd_recall.py /tmp/crowd
    .venv/bin/python Tools/make_crowd_fixtures.py --out /tmp/crowd-heldout --seed 2727
    .venv/bin/python Benchmarks/crowd_recall.py /tmp/crowd-heldout   # other crowds of the same photos
    .venv/bin/python Tools/make_crowd_fixtures.py --out /tmp/crowd3 --seed 31337   # a third set
    .venv/bin/python Benchmarks/crowd_recall.py Tests/Fixtures/crowd   # the committed subset
    .venv/bin/python Benchmarks/crowd_recall.py Tests/Fixtures/crowd/group --min-size 0   # a real group photo
    .venv/bin/python Benchmarks/crowd_recall.py /tmp/crowd --min-detection-confidence 0.4   # three looks
    .venv/bin/python Benchmarks/crowd_recall.py /tmp/crowd --min-detection-confidence 0.4 --min-face-presence-confidence 0.5   # checked faces
    .venv/bin/python Tools/make_crowd_fixtures.py --out /tmp/crowd-blind --seed 5151   # made after the tuning
    .venv/bin/python Benchmarks/crowd_recall.py /tmp/crowd-blind --min-detection-confidence 0.4 --ranges all
    .venv/bin/python Tools/make_crowd_fixtures.py --out /tmp/crowd-blind2 --seed 6262   # made after the 112 px tiles
    # (as were --out /tmp/crowd-7001 --seed 7001, and 7002, 7003)
    .venv/bin/python Benchmarks/crowd_recall.py /tmp/crowd-blind2 --min-detection-confidence 0.4 --ranges all

After the table, for `all` with any rotation: the faces missed, counted by source photo (the
part of each face's `source` before its first "-", so a photo and its mirrored variant count
together), with how many of them are under 30 px; then, for each person (a portrait and its
mirrored variant are one person; each of the group photo's six people is one), the faces
found of those pasted, split at 40 px.
"""
import argparse
import json
import os
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def iou(a, b):
    ax1, ay1, bx1, by1 = a[0] + a[2], a[1] + a[3], b[0] + b[2], b[1] + b[3]
    w, h = min(ax1, bx1) - max(a[0], b[0]), min(ay1, by1) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    inter = w * h
    return inter / (a[2] * a[3] + b[2] * b[3] - inter)


def match(faces, boxes):
    """Indices of matched faces and the number of unmatched detections."""
    pairs = sorted(((iou((f["x"], f["y"], f["size"], f["size"]), b), i, j)
                    for i, f in enumerate(faces) for j, b in enumerate(boxes)), reverse=True)
    found, used = set(), set()
    for overlap, i, j in pairs:
        if overlap < 0.5:
            break
        if i not in found and j not in used:
            found.add(i)
            used.add(j)
    return found, len(boxes) - len(used)


def run(visage, directory, truth, args):
    files = [os.path.join(directory, im["file"]) for im in truth["images"]]
    start = time.perf_counter()
    out = subprocess.run([visage, "detect", "--threads", "1", "--output", "json", *args, *files],
                         check=True, capture_output=True, text=True).stdout
    seconds = time.perf_counter() - start
    results = {os.path.basename(r["source"]): r for r in map(json.loads, out.splitlines())}
    return results, seconds / len(files)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("set", help="a directory with truth.json and its images")
    parser.add_argument("--visage", default=os.path.join(ROOT, ".build/release/visage"))
    parser.add_argument("--min-size", type=float, default=20)
    parser.add_argument("--min-detection-confidence", default="0.5", help="passed to visage detect")
    parser.add_argument("--min-face-presence-confidence", help="passed to visage detect: the landmark model's check")
    parser.add_argument("--ranges", default="short,full,all", help="comma-separated ranges to measure")
    a = parser.parse_args()
    truth = json.load(open(os.path.join(a.set, "truth.json")))
    images = truth["images"]
    counted = sum(1 for im in images for f in im["faces"] if f["size"] >= a.min_size)
    print(f"{a.set}: {len(images)} images, {counted} faces >= {a.min_size:g} px, "
          f"{sum(1 for im in images if not im['faces'])} negatives")
    print("| range | any rotation | recall (faces >= %g px) | 0° | 90° | 180° | 270° | false positives / image "
          "| s / image | × short |" % a.min_size)
    print("|---|---|---|---|---|---|---|---|---|---|")
    # The cost ratio is against the short range upright, timed in the same run (issue 31's measure).
    last_missed, people, short_seconds = None, {}, None
    for rng in a.ranges.split(","):
        for rotation in [False, True]:
            args = ["--range", rng, "--min-detection-confidence", a.min_detection_confidence]
            if a.min_face_presence_confidence is not None:
                args += ["--min-face-presence-confidence", a.min_face_presence_confidence]
            results, seconds = run(a.visage, a.set, truth, args + (["--any-rotation"] if rotation else []))
            hits, totals, false_positives, missed = {}, {}, 0, {}
            for im in images:
                boxes = [(d["boundingBox"]["originX"], d["boundingBox"]["originY"], d["boundingBox"]["width"],
                          d["boundingBox"]["height"]) for d in results[im["file"]]["detections"]]
                found, extra = match(im["faces"], boxes)
                false_positives += extra
                for i, f in enumerate(im["faces"]):
                    if f["size"] < a.min_size:
                        continue
                    totals[f["turn"]] = totals.get(f["turn"], 0) + 1
                    hits[f["turn"]] = hits.get(f["turn"], 0) + (i in found)
                    if rng == "all" and rotation:
                        key = (person(f["source"]), "< 40 px" if f["size"] < 40 else ">= 40 px")
                        pasted, hit = people.get(key, (0, 0))
                        people[key] = (pasted + 1, hit + (i in found))
                    if i not in found:
                        photo = f["source"].split("-")[0]
                        count, small = missed.get(photo, (0, 0))
                        missed[photo] = (count + 1, small + (f["size"] < 30))
            recall = sum(hits.values()) / max(1, sum(totals.values()))
            turns = " | ".join(f"{hits.get(t, 0)}/{totals.get(t, 0)}" for t in [0, 90, 180, 270])
            if rng == "short" and not rotation:
                short_seconds = seconds
            ratio = f"{seconds / short_seconds:.1f}" if short_seconds else "-"
            print(f"| {rng} | {'yes' if rotation else 'no'} | {recall:.1%} | {turns} | "
                  f"{false_positives / len(images):.2f} | {seconds:.3f} | {ratio} |", flush=True)
            if rng == "all" and rotation:
                last_missed = missed
    if last_missed is None:
        return
    print("\nmissed by all with any rotation, by source photo: "
          + ", ".join(f"{k} {n} ({small} under 30 px)" for k, (n, small) in sorted(last_missed.items(), key=lambda kv: -kv[1][0])))
    print("found by all with any rotation, by person: "
          + ", ".join(f"{who} {size} {hit}/{pasted}" for (who, size), (pasted, hit) in sorted(people.items())))


def person(source):
    """The person a face's `source` shows: the photo's name, or `group-N` for the group photo's people."""
    parts = source.split("-")
    return "-".join(parts[:2]) if parts[0] == "group" and len(parts) > 1 else parts[0]


if __name__ == "__main__":
    main()
