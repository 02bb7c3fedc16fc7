#!/usr/bin/env python3
"""How MediaPipe's own short-range detector scores each person of the crowd sets when the face
is cut out upright at a look's framing (issue 16): whether a face the all-scales search misses
is one the model itself doubts, or one the search placed badly.

For every pasted face from 20 to 60 px, a square of four face widths around its true centre is
cut out, turned upright by the face's known turn and tilt, scaled to 128x128 (the model's input,
so the face is a quarter of it wide, as in the search's first two looks), and given to
MediaPipe's Tasks FaceDetector (the model in Weights/face_landmarker.task). A face's score is
the best detection's with its centre in the middle half. Printed per person (a portrait and its
mirrored variant are one person): faces, mean score, and the share scoring at least 0.74 (the
score each of three looks needs, on average, for a product of 0.4).

    .venv/bin/python Benchmarks/upright_scores.py /tmp/crowd /tmp/crowd-heldout /tmp/crowd3 /tmp/crowd-blind
"""
import argparse
import json
import os
import zipfile

import mediapipe as mp
import numpy as np
from mediapipe.tasks.python import BaseOptions, vision
from PIL import Image

from crowd_recall import person

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sets", nargs="+", help="directories with truth.json and their images")
    a = parser.parse_args()
    model = zipfile.ZipFile(os.path.join(ROOT, "Weights/face_landmarker.task")).read("face_detector.tflite")
    detector = vision.FaceDetector.create_from_options(vision.FaceDetectorOptions(
        base_options=BaseOptions(model_asset_buffer=model), min_detection_confidence=0.05))

    def score(square):
        result = detector.detect(mp.Image(image_format=mp.ImageFormat.SRGB, data=np.asarray(square)))
        central = [d.categories[0].score for d in result.detections
                   if abs(d.bounding_box.origin_x + d.bounding_box.width / 2 - 64) < 32
                   and abs(d.bounding_box.origin_y + d.bounding_box.height / 2 - 64) < 32]
        return max(central, default=0.0)

    scores = {}
    for directory in a.sets:
        truth = json.load(open(os.path.join(directory, "truth.json")))
        for entry in truth["images"]:
            if not entry["faces"]:
                continue
            image = Image.open(os.path.join(directory, entry["file"])).convert("RGB")
            for face in entry["faces"]:
                if not 20 <= face["size"] <= 60:
                    continue
                cx, cy, side = face["x"] + face["size"] / 2, face["y"] + face["size"] / 2, face["size"] * 4
                # Twice the square first, so turning it brings no black corners into the middle.
                around = image.crop((round(cx - side), round(cy - side), round(cx + side), round(cy + side)))
                upright = around.rotate(face["turn"] + face["tilt"], resample=Image.BILINEAR)
                square = upright.crop((round(side / 2), round(side / 2), round(side * 1.5), round(side * 1.5)))
                scores.setdefault(person(face["source"]), []).append(score(square.resize((128, 128), Image.BILINEAR)))
    print("| person | faces 20-60 px | mean score | share >= 0.74 |")
    print("|---|---|---|---|")
    for who, values in sorted(scores.items()):
        v = np.array(values)
        print(f"| {who} | {len(v)} | {v.mean():.2f} | {(v >= 0.74).mean():.0%} |")


if __name__ == "__main__":
    main()
