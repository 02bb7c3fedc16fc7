#!/usr/bin/env python3
"""An experiment for issue 16, not a feature: would the landmark model's face presence
weed out `--range all --any-rotation`'s false positives? Measured on the crowd set of
Tools/make_crowd_fixtures.py with the CLI alone:

  detect      `visage detect --range all --any-rotation` at the default threshold 0.5.
  landmark    `visage landmark --detector-range all --any-rotation --num-faces 60` at a face
              presence threshold (--presence): the landmarker's own cascade, each face's box
              taken as the square around its 478 landmarks.
  union       detections scoring at least --sure (a `detect` run at that threshold), plus
              landmarker faces no such detection already covers: the rule a verifier would
              apply (keep a sure detection; keep an unsure one only if the landmark model
              sees a face there).

Landmark boxes are not detector boxes, so every row counts a face found when a box's centre
lies in the face's ground-truth square and its side is 0.5 to 2 times the square's: a looser
criterion than crowd_recall.py's IoU >= 0.5, the same for all three rows.

    swift build -c release --product visage
    .venv/bin/python Tools/make_crowd_fixtures.py --out /tmp/crowd
    .venv/bin/python Benchmarks/crowd_verifier.py /tmp/crowd --presence 0.9 --sure 0.65
"""
import argparse
import json
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def covers(face, box):
    cx, cy, side = box
    return (face["x"] <= cx <= face["x"] + face["size"] and face["y"] <= cy <= face["y"] + face["size"]
            and 0.5 <= side / face["size"] <= 2.0)


def evaluate(truth, boxes, min_size):
    """Recall over faces of at least `min_size` px and false positives per image."""
    total = found = false_positives = 0
    for im in truth["images"]:
        own = boxes.get(im["file"], [])
        used = set()
        for face in im["faces"]:
            if face["size"] < min_size:
                continue
            total += 1
            j = next((j for j, b in enumerate(own) if j not in used and covers(face, b)), None)
            if j is not None:
                used.add(j)
                found += 1
        false_positives += sum(1 for j, b in enumerate(own)
                               if j not in used and not any(covers(f, b) for f in im["faces"]))
    return found / max(1, total), false_positives / len(truth["images"])


def visage(a, files, *args):
    out = subprocess.run([a.visage, *args, "--threads", "1", "--output", "json", *files],
                         check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines()]


def detections(a, files, threshold):
    boxes = {}
    for r in visage(a, files, "detect", "--range", "all", "--any-rotation", "--min-detection-confidence", threshold):
        boxes[os.path.basename(r["source"])] = [
            (d["boundingBox"]["originX"] + d["boundingBox"]["width"] / 2,
             d["boundingBox"]["originY"] + d["boundingBox"]["height"] / 2, d["boundingBox"]["width"])
            for d in r["detections"]]
    return boxes


def landmark_faces(a, files):
    boxes = {}
    for r in visage(a, files, "landmark", "--detector-range", "all", "--any-rotation", "--num-faces", "60",
                    "--min-face-presence-confidence", a.presence):
        own = []
        for face in r["faceLandmarks"]:
            xs = [p["x"] * r["width"] for p in face]
            ys = [p["y"] * r["height"] for p in face]
            own.append(((max(xs) + min(xs)) / 2, (max(ys) + min(ys)) / 2, max(max(xs) - min(xs), max(ys) - min(ys))))
        boxes[os.path.basename(r["source"])] = own
    return boxes


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("set", help="a directory with truth.json and its images")
    parser.add_argument("--visage", default=os.path.join(ROOT, ".build/release/visage"))
    parser.add_argument("--min-size", type=float, default=20)
    parser.add_argument("--presence", default="0.9", help="the landmarker's face presence threshold")
    parser.add_argument("--sure", default="0.65", help="the detection score kept without verification")
    a = parser.parse_args()
    truth = json.load(open(os.path.join(a.set, "truth.json")))
    files = [os.path.join(a.set, im["file"]) for im in truth["images"]]
    plain, sure, verified = detections(a, files, "0.5"), detections(a, files, a.sure), landmark_faces(a, files)
    union = {k: sure.get(k, []) + [b for b in verified.get(k, [])
                                   if not any(abs(b[0] - d[0]) < d[2] / 2 and abs(b[1] - d[1]) < d[2] / 2
                                              for d in sure.get(k, []))]
             for k in set(sure) | set(verified)}
    print(f"| rule | recall (faces >= {a.min_size:g} px, centre in box) | false positives / image |")
    print("|---|---|---|")
    for name, boxes in [("detect, score >= 0.5", plain), (f"landmark, presence >= {a.presence}", verified),
                        (f"score >= {a.sure}, or presence >= {a.presence}", union)]:
        recall, fp = evaluate(truth, boxes, a.min_size)
        print(f"| {name} | {recall:.1%} | {fp:.2f} |")


if __name__ == "__main__":
    main()
