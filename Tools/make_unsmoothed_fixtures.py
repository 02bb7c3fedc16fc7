#!/usr/bin/env python3
"""Write MediaPipe's unsmoothed VIDEO-mode landmarks for the landmarker's one-face sequences.

MediaPipe's FaceLandmarker only returns smoothed landmarks in VIDEO mode with num_faces 1: the
One Euro filter's input (the raw landmarks of the tracked region) is not an output. This script
recovers it without touching MediaPipe's graph:

  * num_faces = 2 turns smoothing off (MediaPipe smooths only when num_faces is 1);
  * min_tracking_confidence = 1.0 makes the association keep every rect (it drops an earlier
    rect only when the IoU is strictly greater than the threshold), so the face tracked from the
    previous frame's raw landmarks stays first, exactly as with num_faces 1. The second face is a
    fresh detection of the same face on frame 1 (tracked from then on) and is ignored.

Face 0 is then the raw landmark list that the num_faces = 1 run smooths. Tests/VisageTests checks
that: the smoother fed these frames must give mediapipe.json's VIDEO-mode landmarks bit for bit.

Writes Tests/Fixtures/landmarker/unsmoothed.json: {"generator", "mediapipe", "note",
"sequences": [{"name", "width", "height", "frames": [{"image", "timestampMs", "landmarks"}]}]},
landmarks 478 x [x, y, z] float32 written as the shortest decimal that round-trips (as in
mediapipe.json). Needs Tools/make_landmarker_fixtures.py's frames; rerun:

    .venv/bin/python Tools/make_unsmoothed_fixtures.py
"""
import json
import os
import sys

os.environ.setdefault("GLOG_minloglevel", "2")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bundled_models import ROOT  # noqa: E402
from make_detector_fixtures import FIXTURES, decode_rgb, to_json  # noqa: E402
from make_landmarker_fixtures import TASK, f32  # noqa: E402

SEQUENCES = ["pan", "rotate", "zoom"]  # one face throughout, tracked from frame 0
OUT = os.path.join(FIXTURES, "landmarker", "unsmoothed.json")


def main():
    import mediapipe as mp
    from mediapipe.tasks.python import BaseOptions, vision

    with open(os.path.join(FIXTURES, "landmarker", "mediapipe.json")) as f:
        reference = {s["name"]: s for s in json.load(f)["sequences"]}
    with open(TASK, "rb") as f:
        task = f.read()

    sequences = []
    for name in SEQUENCES:
        seq = reference[name]
        assert seq["options"]["numFaces"] == 1
        options = vision.FaceLandmarkerOptions(
            base_options=BaseOptions(model_asset_buffer=task), running_mode=vision.RunningMode.VIDEO,
            num_faces=2, min_tracking_confidence=1.0)
        frames = []
        with vision.FaceLandmarker.create_from_options(options) as video:
            for frame in seq["frames"]:
                rgb = decode_rgb(os.path.join(FIXTURES, frame["image"]))
                result = video.detect_for_video(mp.Image(image_format=mp.ImageFormat.SRGB, data=rgb),
                                                frame["timestampMs"])
                assert len(frame["faces"]) == 1 and len(result.face_landmarks) >= 1, (name, frame["image"])
                frames.append({"image": frame["image"], "timestampMs": frame["timestampMs"],
                               "landmarks": [[f32(p.x), f32(p.y), f32(p.z)] for p in result.face_landmarks[0]]})
        sequences.append({"name": name, "width": seq["width"], "height": seq["height"], "frames": frames})

    doc = {
        "generator": "Tools/make_unsmoothed_fixtures.py",
        "mediapipe": mp.__version__,
        "note": "VIDEO mode, num_faces 2 (no smoothing), min_tracking_confidence 1.0 (tracked rect "
                "kept first): face 0's raw landmarks, the One Euro filter's input in the num_faces 1 "
                "runs of mediapipe.json",
        "sequences": sequences,
    }
    with open(OUT, "w") as f:
        f.write(to_json(doc) + "\n")
    print(f"wrote {os.path.relpath(OUT, ROOT)}")


if __name__ == "__main__":
    main()
