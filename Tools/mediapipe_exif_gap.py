#!/usr/bin/env python3
"""How far MediaPipe's own answers move between its two ways of handling an Exif-oriented photo.

For each Tests/Fixtures/exif/jpeg_<t>.jpg (written by Tools/make_exif_fixtures.py), runs
MediaPipe 1.2.2's FaceDetector (short range, from Weights/face_landmarker.task) twice:

  stored   on the stored pixels with ImageProcessingOptions(rotation_degrees=...), as MediaPipe's
           iOS tasks and Visage's library do with MPImage.orientation; mirrored tags are
           first un-mirrored as Visage's decoder does (pixels flipped left to right, then the
           unmirrored rotation), since MediaPipe refuses mirrored orientations;
  upright  on Pillow's ImageOps.exif_transpose of the file, rotation 0, as the visage command
           line does (it turns the picture upright before the task).

It prints, per tag, the largest gap between the two runs' keypoints once the stored run's are
turned into the upright picture, in pixels. The gap is resampling (a turned crop of the stored
pixels against turned pixels), not an error; ExifOrientationTaskTests holds Visage to a bar
above it.

Run:  .venv/bin/python Tools/mediapipe_exif_gap.py   (needs mediapipe, Pillow, numpy)
"""
import os
import zipfile

import mediapipe as mp
import numpy as np
from mediapipe.tasks.python import vision
from mediapipe.tasks.python.core.base_options import BaseOptions
from PIL import Image, ImageOps

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Tag: (flip left to right first, MediaPipe's rotation_degrees for the unmirrored orientation).
PLAN = {1: (False, 0), 2: (True, 0), 3: (False, -180), 4: (True, -180), 5: (True, -90), 6: (False, -270),
        7: (True, -270), 8: (False, -90)}


def main():
    model = zipfile.ZipFile(os.path.join(ROOT, "Weights", "face_landmarker.task")).read("face_detector.tflite")
    detector = vision.FaceDetector.create_from_options(
        vision.FaceDetectorOptions(base_options=BaseOptions(model_asset_buffer=model)))
    for tag, (flip, degrees) in PLAN.items():
        image = Image.open(os.path.join(ROOT, "Tests", "Fixtures", "exif", f"jpeg_{tag}.jpg"))
        stored = np.asarray(image.convert("RGB"))
        if flip:
            stored = stored[:, ::-1]
        h, w = stored.shape[:2]
        upright = np.ascontiguousarray(np.asarray(ImageOps.exif_transpose(image).convert("RGB")))
        options = vision.ImageProcessingOptions(rotation_degrees=degrees) if degrees else None
        a = detector.detect(mp.Image(image_format=mp.ImageFormat.SRGB, data=np.ascontiguousarray(stored)), options)
        b = detector.detect(mp.Image(image_format=mp.ImageFormat.SRGB, data=upright))

        def turned(x, y):
            # Stored pixels to the upright picture: the clockwise turn MediaPipe undoes.
            return {0: (x, y), -180: (w - x, h - y), -270: (h - y, x), -90: (y, w - x)}[degrees]

        p = [turned(k.x * w, k.y * h) for k in a.detections[0].keypoints]
        q = [(k.x * upright.shape[1], k.y * upright.shape[0]) for k in b.detections[0].keypoints]
        gap = max(max(abs(s[0] - t[0]), abs(s[1] - t[1])) for s, t in zip(p, q))
        print(f"tag {tag}: largest keypoint gap {gap:.2f} px")


if __name__ == "__main__":
    main()
