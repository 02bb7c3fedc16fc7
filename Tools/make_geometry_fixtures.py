#!/usr/bin/env python3
"""Write the face-geometry reference fixture: MediaPipe's landmarks and transformation matrices.

For each case the script runs MediaPipe 1.2.2's Tasks FaceLandmarker (face_landmarker.task passed
via model_asset_buffer, CPU, IMAGE mode, output_facial_transformation_matrixes=True) and writes

    Tests/Fixtures/geometry/mediapipe.json

with, per face, the 478 normalized landmarks (x, y, z) exactly as MediaPipe returned them and the
4x4 facial transformation matrix (row-major). The Swift test feeds those landmarks, with the
image's width and height, into FaceGeometry and compares the matrices, so the test checks the
geometry pipeline alone: no image decoding or inference is involved on the Swift side.

Numbers are float32 values written in their shortest decimal form that reads back as the same
float32 (also through a double first, which is how JSONSerialization hands them over); the script
checks that every value round-trips. Landmarks are relative to the image as given to MediaPipe
(before rotation_degrees is applied), which is also what IMAGE_SIZE means in MediaPipe's
geometry graph.

Rerun (output is deterministic for the same mediapipe and numpy versions, which the JSON
records):

    .venv/bin/python Tools/make_geometry_fixtures.py
    # or, after Tools/setup-python.sh:  .venv/bin/python Tools/make_geometry_fixtures.py
"""
import json
import os
import sys

os.environ.setdefault("GLOG_minloglevel", "2")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bundled_models import ROOT  # noqa: E402

FIXTURES = os.path.join(ROOT, "Tests", "Fixtures")
OUT = os.path.join(FIXTURES, "geometry")
GENERATOR = "Tools/make_geometry_fixtures.py"

# (case name, image relative to Tests/Fixtures, rotation_degrees, num_faces)
PLAN = [
    ("astronaut", "images/astronaut.png", 0, 1),
    ("rotated_cw90", "detector/images/rotated_cw90.png", -90, 1),
    ("rotated_180", "detector/images/rotated_180.png", -180, 1),
    ("small_160x120", "detector/images/small_160x120.png", 0, 1),
    ("wide_1280x400", "detector/images/wide_1280x400.jpg", 0, 1),
    ("tall_400x1280", "detector/images/tall_400x1280.jpg", 0, 1),
    ("multiface_800x600", "detector/images/multiface_800x600.jpg", 0, 4),
]


def f32(value):
    """The shortest decimal string of a float32 that reads back (via double) as that float32."""
    v = np.float32(value)
    assert np.isfinite(v), value
    assert float(v) == float(value), f"{value!r} is not a float32 value"
    text = str(v)  # numpy's Dragon4 'unique' mode: shortest round-trip representation
    assert np.float32(float(text)) == v, (value, text)
    return text


def vector(values):
    return "[" + ", ".join(f32(v) for v in values) + "]"


def face_json(landmarks, matrix, indent):
    inner = indent + "  "
    rows = ",\n".join(inner + "  " + vector(row) for row in np.asarray(matrix, dtype=np.float32))
    points = ",\n".join(inner + "  " + vector((p.x, p.y, p.z)) for p in landmarks)
    return (f"{indent}{{\n{inner}\"matrix\": [\n{rows}\n{inner}],\n"
            f"{inner}\"landmarks\": [\n{points}\n{inner}]\n{indent}}}")


def main():
    import mediapipe as mp
    from mediapipe.tasks.python import BaseOptions, vision

    with open(os.path.join(ROOT, "Weights", "face_landmarker.task"), "rb") as f:
        bundle = f.read()

    cases = []
    for name, image, rotation, num_faces in PLAN:
        with Image.open(os.path.join(FIXTURES, image)) as im:
            rgb = np.asarray(im.convert("RGB"))
        options = vision.FaceLandmarkerOptions(
            base_options=BaseOptions(model_asset_buffer=bundle),
            running_mode=vision.RunningMode.IMAGE, num_faces=num_faces,
            output_facial_transformation_matrixes=True)
        with vision.FaceLandmarker.create_from_options(options) as landmarker:
            processing = vision.ImageProcessingOptions(rotation_degrees=rotation) if rotation else None
            result = landmarker.detect(mp.Image(image_format=mp.ImageFormat.SRGB, data=np.ascontiguousarray(rgb)),
                                       image_processing_options=processing)
        faces, matrices = result.face_landmarks, result.facial_transformation_matrixes
        # MediaPipe drops "too compact" faces from the matrices only; none of these cases has one,
        # so face i's matrix is matrices[i].
        assert len(faces) == len(matrices) and faces, (name, len(faces), len(matrices))
        for landmarks, matrix in zip(faces, matrices):
            assert len(landmarks) == 478 and np.asarray(matrix).shape == (4, 4)
        cases.append((name, image, int(rgb.shape[1]), int(rgb.shape[0]), rotation, num_faces,
                      list(zip(faces, matrices))))

    parts = []
    for name, image, width, height, rotation, num_faces, faces in cases:
        header = json.dumps({"name": name, "image": image, "width": width, "height": height,
                             "rotationDegrees": rotation, "numFaces": num_faces},
                            separators=(", ", ": "))[1:-1]
        body = ",\n".join(face_json(l, m, "        ") for l, m in faces)
        parts.append(f"    {{\n      {header},\n      \"faces\": [\n{body}\n      ]\n    }}")
    meta = {
        "generator": GENERATOR,
        "mediapipe": mp.__version__,
        "numpy": np.__version__,
        "model": "Weights/face_landmarker.task via model_asset_buffer, CPU, IMAGE mode, "
                 "output_facial_transformation_matrixes=True, default environment "
                 "(TOP_LEFT_CORNER, vertical FOV 63 degrees, near 1, far 10000)",
        "note": "landmarks: 478 normalized (x, y, z) per face as MediaPipe returns them, relative "
                "to the image before rotation; matrix: facial transformation matrix, row-major; "
                "all values are float32",
    }
    head = ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in meta.items())
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "mediapipe.json"), "w") as f:
        f.write("{\n" + head + ",\n  \"cases\": [\n" + ",\n".join(parts) + "\n  ]\n}\n")

    for name, image, width, height, rotation, num_faces, faces in cases:
        print(f"{name:20} {width:>4}x{height:<4} rot {rotation:>4} -> {len(faces)} face(s), "
              "translation " + "; ".join(" ".join(f"{v:.2f}" for v in np.asarray(m)[:3, 3]) for _, m in faces))


if __name__ == "__main__":
    main()
