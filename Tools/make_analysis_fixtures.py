#!/usr/bin/env python3
"""Write the face-analysis fixtures: astronaut.png edited into expressions and poses it lacks.

The only source image, Tests/Fixtures/images/astronaut.png, shows one smiling face with open
eyes looking at the camera. The FaceAnalyzer tests need a neutral face, closed eyes, a head
turned to one side and faces of two sizes, so this script makes them from that image, guided by
MediaPipe's own face mesh on it, and writes

    Tests/Fixtures/analysis/neutral.jpg          mouth closed, narrowed, corners lowered
    Tests/Fixtures/analysis/eyes_closed.jpg      both eyes painted shut
    Tests/Fixtures/analysis/left_eye_closed.jpg  only the subject's left eye (image right) shut
    Tests/Fixtures/analysis/turned_right.jpg     the face warped so the nose points to the
                                                 image's right (a yaw toward the camera's right)
    Tests/Fixtures/analysis/two_sizes_640x480.jpg  a face 0.27 and one 0.13 of the width wide
    Tests/Fixtures/analysis/mediapipe.json       what MediaPipe 1.2.2's FaceLandmarker reads
                                                 on each (blendshapes of interest, pose)

Each edit is checked with MediaPipe on the decoded JPEG and the script stops if the image does
not read as intended (neutral: mouthSmile < 0.1 where the original has ~0.9; closed eyes:
eyeBlink well above the open eyes'; turned: the yaw from the transformation matrix positive).
The Swift tests never run Python; they read the images.

Rerun (deterministic with the same Pillow, libjpeg-turbo and mediapipe versions):

    .venv/bin/python Tools/make_analysis_fixtures.py
"""
import collections
import json
import os
import sys

os.environ.setdefault("GLOG_minloglevel", "2")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import mediapipe as mp  # noqa: E402
import numpy as np  # noqa: E402
from mediapipe.tasks.python import BaseOptions, vision  # noqa: E402
from mediapipe.tasks.python.vision.face_landmarker import FaceLandmarksConnections  # noqa: E402
from PIL import Image, ImageDraw, ImageFilter  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bundled_models import ROOT  # noqa: E402
from make_detector_fixtures import FIXTURES, compose, decode_rgb, save_jpeg  # noqa: E402

OUT = os.path.join(FIXTURES, "analysis")
SOURCE = os.path.join(FIXTURES, "images", "astronaut.png")
TASK = os.path.join(ROOT, "Weights", "face_landmarker.task")

# Face-mesh rings (MediaPipe's indices; left and right are the subject's).
LEFT_EYE = [362, 382, 381, 380, 374, 373, 390, 249, 263, 466, 388, 387, 386, 385, 384, 398]
RIGHT_EYE = [33, 7, 163, 144, 145, 153, 154, 155, 133, 173, 157, 158, 159, 160, 161, 246]
UPPER_INNER = [78, 191, 80, 81, 82, 13, 312, 311, 310, 415, 308]
LOWER_INNER = [78, 95, 88, 178, 87, 14, 317, 402, 318, 324, 308]
UPPER_OUTER = [61, 185, 40, 39, 37, 0, 267, 269, 270, 409, 291]
LOWER_OUTER = [61, 146, 91, 181, 84, 17, 314, 405, 321, 375, 291]
FACE_OVAL = [10, 338, 297, 332, 284, 251, 389, 356, 454, 323, 361, 288, 397, 365, 379, 378, 400,
             377, 152, 148, 176, 149, 150, 136, 172, 58, 132, 93, 234, 127, 162, 21, 54, 103, 67, 109]
SCORES = ["mouthSmileLeft", "mouthSmileRight", "eyeBlinkLeft", "eyeBlinkRight"]


def landmarker():
    options = vision.FaceLandmarkerOptions(
        base_options=BaseOptions(model_asset_path=TASK), num_faces=4,
        output_face_blendshapes=True, output_facial_transformation_matrixes=True)
    return vision.FaceLandmarker.create_from_options(options)


LANDMARKER = landmarker()


def read(rgb):
    """MediaPipe's faces on 8-bit RGB: [(pixel landmarks 478x2, blendshapes dict, matrix)]."""
    h, w, _ = rgb.shape
    result = LANDMARKER.detect(mp.Image(image_format=mp.ImageFormat.SRGB, data=np.ascontiguousarray(rgb)))
    faces = []
    for i, points in enumerate(result.face_landmarks):
        pixels = np.array([[p.x * w, p.y * h] for p in points])
        scores = {c.category_name: c.score for c in result.face_blendshapes[i]}
        faces.append((pixels, scores, np.array(result.facial_transformation_matrixes[i])))
    return faces


def yaw_degrees(matrix):
    """Rotation about the camera's vertical axis; positive when the nose points to image right."""
    r = matrix[:3, :3] / np.linalg.norm(matrix[:3, :3], axis=0)
    return float(np.degrees(np.arctan2(r[0, 2], r[2, 2])))


def triangles():
    """The face mesh's triangles, as the 3-cliques of its tessellation edges."""
    adjacent = collections.defaultdict(set)
    for e in FaceLandmarksConnections.FACE_LANDMARKS_TESSELATION:
        adjacent[e.start].add(e.end)
        adjacent[e.end].add(e.start)
    return sorted({tuple(sorted((a, b, c))) for a in adjacent for b in adjacent[a] for c in adjacent[a] & adjacent[b]})


def bilinear(a, x, y):
    h, w, _ = a.shape
    x = np.clip(x, 0, w - 1.001)
    y = np.clip(y, 0, h - 1.001)
    x0, y0 = np.floor(x).astype(int), np.floor(y).astype(int)
    fx, fy = (x - x0)[:, None], (y - y0)[:, None]
    return (a[y0, x0] * (1 - fx) * (1 - fy) + a[y0, x0 + 1] * fx * (1 - fy)
            + a[y0 + 1, x0] * (1 - fx) * fy + a[y0 + 1, x0 + 1] * fx * fy)


def mesh_warp(rgb, source, target):
    """Piecewise-affine warp: each mesh triangle with a moved vertex is redrawn at `target` from
    the pixels under it at `source`; everything else is left as it is."""
    a = rgb.astype(np.float64)
    out = a.copy()
    h, w, _ = a.shape
    moved = np.abs(target - source).sum(1) > 1e-6
    for tri in triangles():
        idx = list(tri)
        if not moved[idx].any():
            continue
        s, t = source[idx], target[idx]
        basis = np.array([t[1] - t[0], t[2] - t[0]]).T
        if abs(np.linalg.det(basis)) < 1e-9:
            continue
        x0, y0 = np.floor(t.min(0)).astype(int)
        x1, y1 = np.ceil(t.max(0)).astype(int)
        ys, xs = np.mgrid[y0:y1 + 1, x0:x1 + 1]
        grid = np.stack([xs.ravel(), ys.ravel()], 1).astype(np.float64)
        uv = np.linalg.solve(basis, (grid - t[0]).T).T
        inside = (uv[:, 0] >= -1e-3) & (uv[:, 1] >= -1e-3) & (uv.sum(1) <= 1 + 1e-3)
        grid, uv = grid[inside].astype(int), uv[inside]
        src = s[0] + uv[:, :1] * (s[1] - s[0]) + uv[:, 1:] * (s[2] - s[0])
        ok = (grid[:, 0] >= 0) & (grid[:, 0] < w) & (grid[:, 1] >= 0) & (grid[:, 1] < h)
        out[grid[ok, 1], grid[ok, 0]] = bilinear(a, src[ok, 0], src[ok, 1])
    return out.round().clip(0, 255).astype(np.uint8)


def neutral(rgb, points):
    """Close the lips, narrow the mouth by 30% and pull its corners down below the lip line; the
    cheeks around the mouth follow with a falloff so no triangle folds."""
    target = points.copy()
    cx = (points[61, 0] + points[291, 0]) / 2
    half = (points[291, 0] - points[61, 0]) / 2
    line = (points[13, 1] + points[14, 1]) / 2
    lift = line - (points[61, 1] + points[291, 1]) / 2  # how far the smile raised the corners
    for k in range(1, 10):
        gap = points[LOWER_INNER[k], 1] - points[UPPER_INNER[k], 1]
        target[UPPER_INNER[k], 1] += gap / 2
        target[LOWER_INNER[k], 1] -= gap / 2
        target[LOWER_OUTER[k], 1] -= gap
    mouth = set(UPPER_INNER + LOWER_INNER + UPPER_OUTER + LOWER_OUTER)
    for i in range(468):
        if i in FACE_OVAL:
            continue
        d = np.hypot(points[i, 0] - cx, points[i, 1] - line) / half
        weight = 1.0 if i in mouth else np.exp(-max(d - 0.9, 0) ** 2 / 0.35 ** 2)
        u = np.clip((points[i, 0] - cx) / half, -1.2, 1.2)
        target[i, 0] -= 0.3 * (points[i, 0] - cx) * weight
        target[i, 1] += 1.8 * lift * u * u * weight
    return mesh_warp(rgb, points[:468], target[:468])


def close_eye(rgb, points, ring):
    """Paint the eye shut: the eye opening (grown by 35%) filled with the skin colour under it,
    feathered, and a dark lash line along the lower lid."""
    im = Image.fromarray(rgb)
    ring_points = points[ring]
    centre = ring_points.mean(0)
    outline = [tuple(centre + (p - centre) * 1.35) for p in ring_points]
    y = int(centre[1] + 12)
    x0, x1 = int(ring_points[:, 0].min()), int(ring_points[:, 0].max())
    skin = tuple(int(v) for v in np.median(rgb[y:y + 4, x0:x1].reshape(-1, 3), 0))
    mask = Image.new("L", im.size, 0)
    ImageDraw.Draw(mask).polygon(outline, fill=255)
    im = Image.composite(Image.new("RGB", im.size, skin), im, mask.filter(ImageFilter.GaussianBlur(1.5)))
    lower_lid = [tuple(p) for p in ring_points[:9]]  # inner corner, lower lid, outer corner
    ImageDraw.Draw(im).line(lower_lid, fill=(60, 40, 35), width=2)
    return np.asarray(im)


def turn_right(rgb, shift=12, left=165, right=285, top=60, bottom=200):
    """Slide the face's middle column `shift` px to the right, squeezing the image-right half and
    stretching the image-left half, as a head turned toward the camera's right looks."""
    a = rgb.astype(np.float64)
    out = a.copy()
    centre = 224
    xs = np.arange(a.shape[1], dtype=np.float64)
    src = xs.copy()
    moved = centre + shift
    m = (xs >= left) & (xs < moved)
    src[m] = left + (xs[m] - left) * (centre - left) / (moved - left)
    m = (xs >= moved) & (xs <= right)
    src[m] = centre + (xs[m] - moved) * (right - centre) / (right - moved)
    for y in range(top, bottom):
        out[y] = bilinear(a, src, np.full_like(src, y))
    return out.round().clip(0, 255).astype(np.uint8)


def main():
    os.makedirs(OUT, exist_ok=True)
    rgb = decode_rgb(SOURCE)
    (points, original, _), = read(rgb)
    edits = {
        "neutral.jpg": neutral(rgb, points),
        "eyes_closed.jpg": close_eye(close_eye(rgb, points, LEFT_EYE), points, RIGHT_EYE),
        "left_eye_closed.jpg": close_eye(rgb, points, LEFT_EYE),
        "turned_right.jpg": turn_right(rgb),
    }
    two_sizes, boxes = compose(640, 480, [(190, 230, 1.8, False, 1.0), (500, 200, 0.9, True, 1.0)])
    report = {"generator": "Tools/make_analysis_fixtures.py", "mediapipe": mp.__version__,
              "source": {"image": "images/astronaut.png", **{k: round(original[k], 4) for k in SCORES}}}
    for name, image in edits.items():
        path = os.path.join(OUT, name)
        save_jpeg(Image.fromarray(image), path)
        (_, scores, matrix), = read(decode_rgb(path))
        report[name] = {**{k: round(scores[k], 4) for k in SCORES}, "yawDegrees": round(yaw_degrees(matrix), 2)}
    path = os.path.join(OUT, "two_sizes_640x480.jpg")
    save_jpeg(two_sizes, path)
    report["two_sizes_640x480.jpg"] = {"faceBoxes": boxes, "faces": len(read(decode_rgb(path)))}

    def smile(name):
        return (report[name]["mouthSmileLeft"] + report[name]["mouthSmileRight"]) / 2

    checks = [
        (smile("neutral.jpg") < 0.1 < 0.8 < (original["mouthSmileLeft"] + original["mouthSmileRight"]) / 2,
         "neutral.jpg must read neutral and the source smiling"),
        (min(report["eyes_closed.jpg"]["eyeBlinkLeft"], report["eyes_closed.jpg"]["eyeBlinkRight"]) > 0.4,
         "eyes_closed.jpg must read as closed"),
        (report["left_eye_closed.jpg"]["eyeBlinkLeft"] > 0.25 > 0.1 > report["left_eye_closed.jpg"]["eyeBlinkRight"],
         "left_eye_closed.jpg must read as the subject's left eye closed, the right open"),
        (report["turned_right.jpg"]["yawDegrees"] > 5, "turned_right.jpg must turn toward the camera's right"),
        (report["two_sizes_640x480.jpg"]["faces"] == 2, "both faces of two_sizes_640x480.jpg must be found"),
    ]
    for ok, what in checks:
        if not ok:
            sys.exit(f"{what}: {json.dumps(report, indent=1)}")
    with open(os.path.join(OUT, "mediapipe.json"), "w") as f:
        json.dump(report, f, indent=2)
        f.write("\n")
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
