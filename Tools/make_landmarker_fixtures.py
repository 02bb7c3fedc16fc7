#!/usr/bin/env python3
"""Write the face-landmarker reference fixtures: MediaPipe's landmarks, blendshapes and matrices.

Everything is derived from Tests/Fixtures/images/astronaut.png, the only source image. Still
images are the ones Tools/make_detector_fixtures.py synthesizes under
Tests/Fixtures/detector/images/ (read here, never rewritten). This script writes

    Tests/Fixtures/landmarker/frames/<sequence>/NNN.jpg   VIDEO-mode frame sequences (JPEG q90)
    Tests/Fixtures/landmarker/images/crowd_1600x1040.jpg  many small faces, ground-truth boxes known
    Tests/Fixtures/landmarker/mediapipe.json              MediaPipe 1.2.2's FaceLandmarker output

The JSON holds
  * "cases": IMAGE-mode runs, one per (image, rotation, options): image path relative to
    Tests/Fixtures, width, height, rgbSha256 (of the decoded row-major 8-bit RGB bytes, as in the
    detector fixtures), rotationDegrees (ImageProcessingOptions.rotation_degrees), runningMode,
    options {numFaces, minFaceDetectionConfidence, minFacePresenceConfidence,
    minTrackingConfidence, outputFaceBlendshapes, outputFacialTransformationMatrixes}, and faces.
  * "sequences": VIDEO-mode runs (detect_for_video, one landmarker per sequence, frames in order,
    timestampMs = round(i * 1000 / 30)): name, description, width, height, runningMode, options,
    frames [{image, timestampMs, rgbSha256, faces, imageModeFaceCount}]. imageModeFaceCount is
    how many faces an IMAGE-mode landmarker with the same options finds on that frame alone, so
    frames where VIDEO-mode tracking keeps (or loses) a face the detector alone would not are
    visible; ground-truth face boxes are given where the frame was composed from sprites.
  * "crowd": the crowd image's 15 ground-truth face boxes [x, y, w, h] px (faces 1/12 to 1/10
    of the width) and the scores of the full-range detector model
    (face_detection_full_range.tflite, decoded in numpy as in make_detector_fixtures.py), which
    must find each face (IoU >= 0.5) and nothing else or the script stops. What MediaPipe's
    short-range FaceLandmarker finds there (nothing) is the case crowd_1600x1040_num20.

Each face is {"landmarks": 478 x [x, y, z] (normalized to the image, as MediaPipe returns them),
"blendshapes": 52 x [categoryName, score] in model order, "transformationMatrix": 4 rows of 4
(row-major: translation in the last column)}. MediaPipe produces all of these as float32; each
value is written as the shortest decimal that round-trips the float32 (parse it as a Float and
it is bit-exact; the script asserts this).

Model: Weights/face_landmarker.task, passed whole via model_asset_buffer (CPU). Blendshapes and
transformation matrices are always on. Images are decoded with make_detector_fixtures.decode_rgb
(same rules as the Swift decoder) and passed as SRGB mp.Image.

Rerun (deterministic: identical bytes with the same Pillow/libjpeg-turbo and mediapipe versions,
which the JSON records):

    .venv/bin/python Tools/make_landmarker_fixtures.py
    # or, after Tools/setup-python.sh:  .venv/bin/python Tools/make_landmarker_fixtures.py

Run Tools/make_detector_fixtures.py first if Tests/Fixtures/detector/images is missing.
"""
import hashlib
import os
import sys

os.environ.setdefault("GLOG_minloglevel", "2")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import PIL  # noqa: E402
from PIL import Image, features  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bundled_models import ROOT  # noqa: E402
from make_detector_fixtures import (  # noqa: E402
    FIXTURES, SOURCE, astronaut, compose, decode_rgb, full_range_detect, save_jpeg, to_json, _iou)

OUT = os.path.join(FIXTURES, "landmarker")
FRAMES = os.path.join(OUT, "frames")
IMAGES = os.path.join(OUT, "images")
DETECTOR_IMAGES = os.path.join(FIXTURES, "detector", "images")
TASK = os.path.join(ROOT, "Weights", "face_landmarker.task")
GENERATOR = "Tools/make_landmarker_fixtures.py"
FACE_CENTER = (224.5, 129.5)  # centre of MediaPipe's face box in astronaut.png (177, 82, 95, 95)


def timestamp_ms(i):
    return round(i * 1000 / 30)


# ------------------------------------------------------------------------------------------------
# Frame sequences for VIDEO mode. Each function returns a list of (PIL image, ground-truth face
# boxes or None).

def _window(img, box, size):
    """The float crop box (x0, y0, x1, y1) of img, resampled (Lanczos) to size."""
    return img.resize(size, Image.LANCZOS, box=tuple(float(v) for v in box))


def seq_pan():
    """320x240 window (384x288 of the source) sliding right and down: the face drifts left/up."""
    a = astronaut()
    frames = []
    for i in range(12):
        x0, y0 = 128 * i / 11, 44 * i / 11
        frames.append((_window(a, (x0, y0, x0 + 384, y0 + 288), (320, 240)), None))
    return frames


def seq_rotate():
    """256x256 around the face (scale 1), the picture turning about the face centre, +30 to -30."""
    a = np.asarray(astronaut())
    pad = 160
    big = Image.fromarray(np.pad(a, ((pad, pad), (pad, pad), (0, 0)), mode="edge"))
    cx, cy = FACE_CENTER[0] + pad, FACE_CENTER[1] + pad
    frames = []
    for angle in [0, 6, 12, 18, 24, 30, 20, 10, 0, -10, -20, -30, -20, -10]:
        turned = big.rotate(angle, resample=Image.BICUBIC, center=(cx, cy))  # counter-clockwise
        box = (round(cx) - 128, round(cy) - 100, round(cx) + 128, round(cy) + 156)
        frames.append((turned.crop(box), None))
    return frames


def seq_zoom():
    """320x240 window zooming from 480x360 of the source to 200x150 and back (face 63-152 px)."""
    a = astronaut()
    frames = []
    steps = [0, 1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1, 0]
    for k in steps:
        w = 480 * (200 / 480) ** (k / 6)
        h = w * 3 / 4
        cx = min(max(FACE_CENTER[0], w / 2), 512 - w / 2)
        cy = min(max(FACE_CENTER[1] + 20, h / 2), 512 - h / 2)
        frames.append((_window(a, (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2), (320, 240)), None))
    return frames


def seq_leave_return():
    """320x240 window (256x192 of the source) tilting down until the face has left the top of
    the frame (a few frames of suit only), then back up."""
    a = astronaut()
    frames = []
    for y0 in [20, 45, 70, 85, 100, 110, 120, 200, 240, 200, 120, 80, 40, 20]:
        frames.append((_window(a, (96, y0, 96 + 256, y0 + 192), (320, 240)), None))
    return frames


def seq_two_faces():
    """320x240 canvas with two head-and-shoulders sprites (one mirrored) moving past each other
    a little, the right one growing: ground-truth boxes are known."""
    frames = []
    for i in range(12):
        t = i / 11
        people = [(80 + 30 * t, 95 + 6 * t, 0.62, False, 1.0),
                  (240 - 25 * t, 110 - 4 * t, 0.55 + 0.2 * t, True, 0.95)]
        frames.append(compose(320, 240, people))
    return frames


FRAME_SETS = {"pan": seq_pan, "rotate": seq_rotate, "zoom": seq_zoom,
              "leave_return": seq_leave_return, "two_faces": seq_two_faces}
SEQUENCES = [  # (name, frames under frames/<set>, numFaces, description)
    ("pan", "pan", 1, "window panning right and down over astronaut.png; the face drifts left/up"),
    ("rotate", "rotate", 1, "in-plane rotation about the face: 0, +6 .. +30, .. 0, .. -30, .. -10 "
                            "degrees (counter-clockwise positive)"),
    ("zoom", "zoom", 1, "zoom in (face 63 to 152 px) and back out"),
    ("leave_return", "leave_return", 1, "tilt down until the face leaves the top of the frame, then "
                                        "back: frames with no face, and frames where tracking and "
                                        "detection disagree"),
    ("two_faces", "two_faces", 2, "two faces moving, numFaces 2 (no smoothing)"),
    ("two_faces_num1", "two_faces", 1, "the two_faces frames with numFaces 1: one face tracked "
                                       "and smoothed"),
]


# ------------------------------------------------------------------------------------------------
# The crowd: many small faces.

CROWD_PEOPLE = [  # 3 rows of 5 on 1600x1040; faces 132-164 px, 1/12 to 1/10 of the width
    (150, 200, 1.50, False, 1.0), (470, 215, 1.41, True, 0.9), (790, 195, 1.60, False, 1.1),
    (1110, 210, 1.45, True, 1.0), (1430, 200, 1.53, False, 0.95),
    (140, 520, 1.64, True, 1.05), (460, 530, 1.39, False, 0.85), (780, 515, 1.56, True, 1.0),
    (1100, 525, 1.48, False, 1.1), (1440, 520, 1.62, True, 0.9),
    (160, 840, 1.73, False, 1.0), (480, 850, 1.52, True, 0.95), (800, 835, 1.68, False, 1.05),
    (1120, 845, 1.43, True, 1.0), (1430, 840, 1.58, False, 0.9),
]


def make_crowd():
    """Writes the crowd image; checks the full-range model against its ground truth."""
    os.makedirs(IMAGES, exist_ok=True)
    img, faces = compose(1600, 1040, CROWD_PEOPLE)
    path = os.path.join(IMAGES, "crowd_1600x1040.jpg")
    save_jpeg(img, path)
    found = full_range_detect(decode_rgb(path))
    matched = 0
    for fx, fy, fw, fh in faces:
        best = max((_iou((fx, fy, fx + fw, fy + fh), (b[0], b[1], b[0] + b[2], b[1] + b[3]))
                    for _, b in found), default=0.0)
        matched += best >= 0.5
    if matched != len(faces) or len(found) != len(faces):
        sys.exit(f"crowd: the full-range model finds {len(found)} faces, {matched} of the "
                 f"{len(faces)} composed ones (IoU >= 0.5); expected all and nothing else")
    return path, {
        "image": rel(path),
        "faces": faces,
        "note": "faces are ground-truth [x, y, w, h] px of the 15 composed faces; case "
                "crowd_1600x1040_num20 is what MediaPipe's (short-range) FaceLandmarker finds; "
                "the full-range model (face_detection_full_range.tflite, thresholds 0.5 / 0.3, "
                "MediaPipe's 192x192 letterbox) finds each with IoU >= 0.5 and nothing else",
        "fullRangeScores": [round(score, 3) for score, _ in found],
    }


# ------------------------------------------------------------------------------------------------
# MediaPipe runs and JSON.

def f32(v):
    """v (a float32 value from MediaPipe) as the Python float whose repr is the shortest decimal
    that round-trips the float32."""
    x = np.float32(v)
    assert float(x) == float(v), f"{v!r} is not a float32"
    s = float(str(x))
    assert np.float32(s) == x and np.float32(float(repr(s))) == x
    return s


def faces_json(result):
    n = len(result.face_landmarks)
    assert len(result.face_blendshapes) == n and len(result.facial_transformation_matrixes) == n, \
        "blendshapes/matrices misaligned with landmarks"
    faces = []
    for landmarks, shapes, matrix in zip(result.face_landmarks, result.face_blendshapes,
                                         result.facial_transformation_matrixes):
        assert len(landmarks) == 478 and len(shapes) == 52 and matrix.shape == (4, 4)
        assert [c.index for c in shapes] == list(range(52))
        faces.append({
            "landmarks": [[f32(p.x), f32(p.y), f32(p.z)] for p in landmarks],
            "blendshapes": [[c.category_name, f32(c.score)] for c in shapes],
            "transformationMatrix": [[f32(v) for v in row] for row in np.asarray(matrix)],
        })
    return faces


def rel(path):
    return os.path.relpath(path, FIXTURES).replace(os.sep, "/")


def sha(rgb):
    return hashlib.sha256(rgb.tobytes()).hexdigest()


def main():
    crowd_path, crowd = make_crowd()  # checked before any MediaPipe work

    import mediapipe as mp
    from mediapipe.tasks.python import BaseOptions, vision

    with open(TASK, "rb") as f:
        task = f.read()

    def options_json(num_faces=1, detection=0.5, presence=0.5, tracking=0.5):
        return {"numFaces": num_faces, "minFaceDetectionConfidence": detection,
                "minFacePresenceConfidence": presence, "minTrackingConfidence": tracking,
                "outputFaceBlendshapes": True, "outputFacialTransformationMatrixes": True}

    def landmarker(mode, o):
        options = vision.FaceLandmarkerOptions(
            base_options=BaseOptions(model_asset_buffer=task),
            running_mode=getattr(vision.RunningMode, mode),
            num_faces=o["numFaces"],
            min_face_detection_confidence=o["minFaceDetectionConfidence"],
            min_face_presence_confidence=o["minFacePresenceConfidence"],
            min_tracking_confidence=o["minTrackingConfidence"],
            output_face_blendshapes=True, output_facial_transformation_matrixes=True)
        return vision.FaceLandmarker.create_from_options(options)

    image_landmarkers = {}

    def detect_image(rgb, o, rotation=0):
        key = tuple(sorted(o.items()))
        if key not in image_landmarkers:
            image_landmarkers[key] = landmarker("IMAGE", o)
        processing = vision.ImageProcessingOptions(rotation_degrees=rotation) if rotation else None
        return image_landmarkers[key].detect(mp.Image(image_format=mp.ImageFormat.SRGB, data=rgb),
                                             image_processing_options=processing)

    # --- Still images (IMAGE mode) -------------------------------------------------------------
    def det(name):
        return os.path.join(DETECTOR_IMAGES, name)

    multi = det("multiface_800x600.jpg")
    plan = [  # (case name, image, rotation, options)
        ("astronaut", SOURCE, 0, options_json()),
        ("rotated_cw90", det("rotated_cw90.png"), -90, options_json()),
        ("rotated_180", det("rotated_180.png"), -180, options_json()),
        ("rotated_ccw90", det("rotated_ccw90.png"), -270, options_json()),
        # Without the rotation option: the detector still finds the sideways faces, and the
        # landmark ROI takes its angle from the eye keypoints; upside down, the detections fail
        # the presence test.
        ("rotated_cw90_unrotated", det("rotated_cw90.png"), 0, options_json()),
        ("rotated_180_unrotated_num1", det("rotated_180.png"), 0, options_json()),
        ("rotated_180_unrotated_num2", det("rotated_180.png"), 0, options_json(num_faces=2)),
        ("rotated_ccw90_unrotated", det("rotated_ccw90.png"), 0, options_json()),
        ("small_96x96", det("small_96x96.png"), 0, options_json()),
        ("small_160x120", det("small_160x120.png"), 0, options_json()),
        ("large_1600x1600", det("large_1600x1600.jpg"), 0, options_json()),
        ("wide_1280x400", det("wide_1280x400.jpg"), 0, options_json()),
        ("tall_400x1280", det("tall_400x1280.jpg"), 0, options_json()),
        ("format_gray", det("format_gray.png"), 0, options_json()),
        ("format_gray_jpeg", det("format_gray.jpg"), 0, options_json()),
        ("noface_flag_suit", det("noface_flag_suit.png"), 0, options_json()),
        ("noface_gradient", det("noface_gradient.png"), 0, options_json()),
        # Two weak false detections at 0.2; both fail the presence test.
        ("noface_flag_suit_det0.2", det("noface_flag_suit.png"), 0, options_json(num_faces=2, detection=0.2)),
        ("multiface_800x600_num4", multi, 0, options_json(num_faces=4)),
        ("multiface_800x600_num2", multi, 0, options_json(num_faces=2)),
        ("multiface_800x600_num1", multi, 0, options_json(num_faces=1)),
        ("group_1536x1024_num10", det("group_1536x1024.jpg"), 0, options_json(num_faces=10)),
        ("crowd_1600x1040_num20", crowd_path, 0, options_json(num_faces=20)),
    ]

    # --- Frame sequences (VIDEO mode) ----------------------------------------------------------
    frame_sets = {}
    for name, make in FRAME_SETS.items():
        folder = os.path.join(FRAMES, name)
        os.makedirs(folder, exist_ok=True)
        for stale in os.listdir(folder):
            os.remove(os.path.join(folder, stale))
        frames = []
        for i, (img, boxes) in enumerate(make()):
            path = os.path.join(folder, f"{i:03d}.jpg")
            save_jpeg(img, path)
            frames.append((path, decode_rgb(path), boxes))
        frame_sets[name] = frames

    cases, sequences = [], []
    try:
        for name, path, rotation, o in plan:
            rgb = decode_rgb(path)
            result = detect_image(rgb, o, rotation)
            cases.append({"name": name, "image": rel(path), "width": int(rgb.shape[1]),
                          "height": int(rgb.shape[0]), "rgbSha256": sha(rgb), "rotationDegrees": rotation,
                          "runningMode": "IMAGE", "options": o, "faces": faces_json(result)})
        for name, frame_set, num_faces, description in SEQUENCES:
            frames = frame_sets[frame_set]
            o = options_json(num_faces=num_faces)
            records = []
            with landmarker("VIDEO", o) as video:
                for i, (path, rgb, boxes) in enumerate(frames):
                    ts = timestamp_ms(i)
                    image = mp.Image(image_format=mp.ImageFormat.SRGB, data=rgb)
                    result = video.detect_for_video(image, ts)
                    frame = {"image": rel(path), "timestampMs": ts, "rgbSha256": sha(rgb),
                             "imageModeFaceCount": len(detect_image(rgb, o).face_landmarks)}
                    if boxes is not None:
                        frame["groundTruthFaces"] = boxes
                    frame["faces"] = faces_json(result)
                    records.append(frame)
            sequences.append({"name": name, "description": description,
                              "width": int(frames[0][1].shape[1]), "height": int(frames[0][1].shape[0]),
                              "runningMode": "VIDEO", "options": o, "frames": records})
    finally:
        for lm in image_landmarkers.values():
            lm.close()

    doc = {
        "generator": GENERATOR,
        "mediapipe": mp.__version__,
        "pillow": PIL.__version__,
        "libjpegTurbo": features.version("libjpeg_turbo"),
        "model": "Weights/face_landmarker.task via model_asset_buffer (CPU)",
        "format": {
            "floats": "landmarks, blendshape scores and matrix entries are float32: each is the "
                      "shortest decimal that round-trips the float32 value (parse as Float)",
            "landmarks": "478 x [x, y, z], normalized to the (unrotated) input image, as MediaPipe "
                         "returns them (z in x-normalized units)",
            "blendshapes": "52 x [categoryName, score] in model order (index = position)",
            "transformationMatrix": "4 rows of 4 (row-major; translation in the last column)",
            "timestamps": "VIDEO frame i is sent at round(i * 1000 / 30) ms, in order, to one "
                          "landmarker per sequence",
            "imageModeFaceCount": "faces an IMAGE-mode landmarker with the same options finds on "
                                  "the frame alone",
        },
        "cases": cases,
        "crowd": crowd,
        "sequences": sequences,
    }
    with open(os.path.join(OUT, "mediapipe.json"), "w") as f:
        f.write(to_json(doc) + "\n")

    for c in cases:
        print(f"{c['name']:28} {c['width']:>4}x{c['height']:<4} rot {c['rotationDegrees']:>4} "
              f"num {c['options']['numFaces']:>2} -> {len(c['faces'])} faces")
    print("crowd:", {k: v for k, v in crowd.items() if k not in ("faces", "note")})
    for s in sequences:
        print(f"{s['name']:16} {s['width']}x{s['height']} num {s['options']['numFaces']}: video "
              + " ".join(str(len(fr["faces"])) for fr in s["frames"])
              + " | image " + " ".join(str(fr["imageModeFaceCount"]) for fr in s["frames"]))


if __name__ == "__main__":
    main()
