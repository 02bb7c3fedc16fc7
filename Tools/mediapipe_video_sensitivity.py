#!/usr/bin/env python3
"""How much MediaPipe's own video-mode results move when one pixel of the first frame changes.

Runs mediapipe==1.2.2's FaceLandmarker in VIDEO mode (numFaces 1, blendshapes and matrices on)
over a committed frame sequence twice: once as is, once with one pixel of frame 0 raised by one
level in the red channel (a pixel beside the nose tip, found from the first run). It prints the
largest differences between the two runs, over the frames after the first, in landmark x/y,
blendshape scores and matrix entries. This is the yardstick for the free-running video parity
row in docs/parity.md: the tracking loop amplifies tiny changes in MediaPipe too.

    .venv/bin/python Tools/mediapipe_video_sensitivity.py [sequence]   # default: pan
"""
import glob
import os
import sys

os.environ.setdefault("GLOG_minloglevel", "2")
import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402
import mediapipe as mp  # noqa: E402
from mediapipe.tasks.python import BaseOptions, vision  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(frames, task):
    options = vision.FaceLandmarkerOptions(
        base_options=BaseOptions(model_asset_buffer=task), running_mode=vision.RunningMode.VIDEO,
        num_faces=1, output_face_blendshapes=True, output_facial_transformation_matrixes=True)
    out = []
    with vision.FaceLandmarker.create_from_options(options) as landmarker:
        for i, rgb in enumerate(frames):
            r = landmarker.detect_for_video(mp.Image(image_format=mp.ImageFormat.SRGB, data=rgb),
                                            round(i * 1000 / 30))
            if not r.face_landmarks:
                out.append(None)
                continue
            out.append((np.array([(p.x, p.y) for p in r.face_landmarks[0]]),
                        np.array([c.score for c in r.face_blendshapes[0]]),
                        np.array(r.facial_transformation_matrixes[0])))
    return out


def main() -> int:
    sequence = sys.argv[1] if len(sys.argv) > 1 else "pan"
    paths = sorted(glob.glob(os.path.join(ROOT, "Tests/Fixtures/landmarker/frames", sequence, "*.jpg")))
    if not paths:
        print(f"no frames for sequence '{sequence}'")
        return 1
    frames = [np.asarray(Image.open(p).convert("RGB")).copy() for p in paths]
    with open(os.path.join(ROOT, "Weights/face_landmarker.task"), "rb") as f:
        task = f.read()
    base = run(frames, task)
    nose = base[0][0][4] * (frames[0].shape[1], frames[0].shape[0])
    x, y = int(nose[0]) + 2, int(nose[1])
    changed = [f.copy() for f in frames]
    changed[0][y, x, 0] = min(255, int(changed[0][y, x, 0]) + 1)
    other = run(changed, task)
    pairs = [(a, b) for a, b in zip(base[1:], other[1:]) if a is not None and b is not None]
    print(f"{sequence}: pixel ({x}, {y}) of frame 0, red +1; {len(pairs)} later frames compared")
    print(f"  landmark x,y max difference  {max(np.abs(a[0] - b[0]).max() for a, b in pairs):.2e}")
    print(f"  blendshape max difference    {max(np.abs(a[1] - b[1]).max() for a, b in pairs):.2e}")
    print(f"  matrix entry max difference  {max(np.abs(a[2] - b[2]).max() for a, b in pairs):.2e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
