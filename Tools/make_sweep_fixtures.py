#!/usr/bin/env python3
"""Write the parity-sweep fixtures: MediaPipe's answers on many image sizes, aspect ratios,
photos and orientations, so that parity is measured on what users bring, not on picked sizes.

Writes Tests/Fixtures/sweep/mediapipe.json. No image is committed: each case names a source
photo, a size and a quarter-turn count, and the Swift tests rebuild its pixels with the same
integer-only resize and rotation (VisageTestSupport/SweepImages.swift), checking the CRC-32
of the result against the one recorded here before comparing anything.

Source photos (decoded as Tools/make_detector_fixtures.py decodes them):
  astronaut   Tests/Fixtures/images/astronaut.png (scikit-image, public domain)
  camera      Tests/Fixtures/images/camera.png (scikit-image, CC0; gray, replicated to RGB)
  multiface   Tests/Fixtures/detector/images/multiface_800x600.jpg (composed from astronaut)

Cases:
  * "squares": astronaut resized to every square size from 96 to 400 px, upright.
  * "random": 160 cases, the photo cycling through the three, the orientation through
    0, -90, -180 and -270 degrees (MediaPipe's rotation_degrees; the pixels are turned the
    other way first so that the face is upright for the model), width log-uniform in 96..4096
    px, aspect ratio log-uniform in 0.5..2, height clamped to 96..4096. Seeded, so reruns
    give the same list.
Each case records MediaPipe 1.2.2's short-range FaceDetector result (score, pixel box,
keypoints) and the top score of the full-range model (face_detection_full_range.tflite on
LiteRT, fed by this script's emulation of MediaPipe's preprocessing, which must reproduce
MediaPipe's short-range scores bit for bit on every case or the script stops). Every other
random case also records MediaPipe's FaceLandmarker in image mode (num_faces 3, blendshapes
and matrices): landmarks as flat [x, y, z, ...], 52 blendshape scores in model order, and the
4x4 matrix row-major.

"perspectiveMaps" pins OpenCV's inverse warp matrix (cv2.getPerspectiveTransform then
cv2.invert, as MediaPipe's ImageToTensor builds it) for random rects, as exact float hex.

The integer resize: output pixel centre (x + 0.5)·W/W' − 0.5 in the source, as the rational
((2x+1)·W − W') / (2W'); whole part by floor division, fraction to 1/256 rounded half up;
taps clamped to the image; value ((256−fy)·((256−fx)·p00 + fx·p10) + fy·((256−fx)·p01 +
fx·p11) + 32768) >> 16. Rows and columns alike. Quarter turns are numpy's rot90.

Rerun (deterministic for the same mediapipe, ai-edge-litert and Pillow):
    .venv/bin/python Tools/make_sweep_fixtures.py
"""
import json
import math
import os
import random
import sys
import zlib

os.environ.setdefault("GLOG_minloglevel", "2")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bundled_models import ROOT, model_bytes  # noqa: E402
from make_detector_fixtures import decode_rgb  # noqa: E402
from make_landmarker_fixtures import f32  # noqa: E402

FIXTURES = os.path.join(ROOT, "Tests", "Fixtures")
OUT = os.path.join(FIXTURES, "sweep", "mediapipe.json")
PHOTOS = {
    "astronaut": "images/astronaut.png",
    "camera": "images/camera.png",
    "multiface": "detector/images/multiface_800x600.jpg",
}
ROTATIONS = [0, -90, -180, -270]


# ------------------------------------------------------------------------------------------------
# Test images: integer resize and quarter turns (SweepImages.swift does the same).

def _taps(n_in, n_out):
    o = np.arange(n_out, dtype=np.int64)
    num, den = (2 * o + 1) * n_in - n_out, 2 * n_out
    i0 = num // den
    f = ((num - i0 * den) * 256 + n_out) // den
    low, high = i0 < 0, i0 >= n_in - 1
    i0 = np.where(low, 0, np.where(high, n_in - 1, i0))
    f = np.where(low | high, 0, f)
    return i0, np.minimum(i0 + 1, n_in - 1), f


def resize(rgb, width, height):
    h, w = rgb.shape[:2]
    x0, x1, fx = _taps(w, width)
    y0, y1, fy = _taps(h, height)
    src = rgb.astype(np.int64)
    out = np.empty((height, width, 3), np.uint8)
    gx, fx = (256 - fx)[None, :, None], fx[None, :, None]
    for start in range(0, height, 256):  # in bands, to bound memory at 4096 x 4096
        rows = slice(start, min(start + 256, height))
        top, bottom = src[y0[rows]], src[y1[rows]]
        t = top[:, x0] * gx + top[:, x1] * fx
        b = bottom[:, x0] * gx + bottom[:, x1] * fx
        gy, fyr = (256 - fy[rows])[:, None, None], fy[rows][:, None, None]
        out[rows] = (t * gy + b * fyr + 32768) >> 16
    return out


def case_pixels(photos, c):
    turned = resize(photos[c["photo"]], c["width"], c["height"])
    return np.ascontiguousarray(np.rot90(turned, k=c["rotationDegrees"] // 90))


# ------------------------------------------------------------------------------------------------
# MediaPipe's CPU preprocessing, emulated (float32 ROI, OpenCV's inverse map and fixed-point
# bilinear warp), to feed the full-range model as MediaPipe would.

F = np.float32


def roi(width, height, rotation_degrees, size):
    """The letterboxed whole-image ROI in pixels (cx, cy, w, h, rotation), float32."""
    rot = F(-rotation_degrees * math.pi / 180)
    rw, rh = F(1), F(1)
    if abs(rotation_degrees) % 180:
        rw, rh = F(1) * F(height) / F(width), F(1) * F(width) / F(height)
    cx, cy = F(0.5) * F(width), F(0.5) * F(height)
    w, h = rw * F(width), rh * F(height)
    aspect = F(size) / F(size)
    if aspect > h / w:
        h = w * aspect
    else:
        w = h / aspect
    return cx, cy, w, h, rot


def box_points(cx, cy, w, h, rot):
    degrees = F(float(rot * F(180)) / math.pi)
    radians = float(degrees) * math.pi / 180
    b, a = F(math.cos(radians)) * F(0.5), F(math.sin(radians)) * F(0.5)
    p0 = (cx - a * h - b * w, cy + b * h - a * w)
    p1 = (cx + a * h - b * w, cy - b * h - a * w)
    p2 = (cx + a * h + b * w, cy - b * h + a * w)
    p3 = (cx - a * h + b * w, cy + b * h + a * w)
    return np.array([p0, p1, p2, p3], np.float32)


def inverse_map(points, width, height):
    import cv2
    dst = np.array([[0, height], [0, 0], [width, 0], [width, height]], np.float32)
    ok, inverse = cv2.invert(cv2.getPerspectiveTransform(points, dst))
    return inverse.ravel() if ok else np.zeros(9)


def warp(rgb, points, size):
    """OpenCV's warpPerspective, INTER_LINEAR, BORDER_CONSTANT 0, uint8 out (size x size)."""
    m = inverse_map(points, size, size)
    h, w = rgb.shape[:2]
    u = np.arange(size, dtype=np.float64)[None, :]
    v = np.arange(size, dtype=np.float64)[:, None]
    block = min(1024 // min(16, size), size)
    xb = (u // block) * block
    x1 = u - xb
    x0, y0, w0 = m[0] * xb + m[1] * v + m[2], m[3] * xb + m[4] * v + m[5], m[6] * xb + m[7] * v + m[8]
    wd = w0 + m[6] * x1
    scale = np.where(wd != 0, 32 / np.where(wd != 0, wd, 1), 0)
    fx = np.clip((x0 + m[0] * x1) * scale, -2**31, 2**31 - 1)
    fy = np.clip((y0 + m[3] * x1) * scale, -2**31, 2**31 - 1)
    ix, iy = np.rint(fx).astype(np.int64), np.rint(fy).astype(np.int64)
    sx, sy = np.clip(ix >> 5, -32768, 32767), np.clip(iy >> 5, -32768, 32767)
    ax, ay = ix & 31, iy & 31
    weights = [(32 - ax) * (32 - ay) * 32, ax * (32 - ay) * 32, (32 - ax) * ay * 32, ax * ay * 32]
    total = np.zeros((size, size, 3), np.int64)
    for (dx, dy), wt in zip([(0, 0), (1, 0), (0, 1), (1, 1)], weights):
        x, y = sx + dx, sy + dy
        inside = (x >= 0) & (x < w) & (y >= 0) & (y < h)
        px = rgb[np.clip(y, 0, h - 1), np.clip(x, 0, w - 1)].astype(np.int64)
        total += wt[..., None] * np.where(inside[..., None], px, 0)
    out = np.minimum(255, (total + 16384) >> 15)
    out[(sx >= w) | (sx + 1 < 0) | (sy >= h) | (sy + 1 < 0)] = 0
    return out


class TopScore:
    """The largest anchor score of a detector .tflite on MediaPipe's input for an image."""

    def __init__(self, model, size):
        from ai_edge_litert.interpreter import Interpreter
        self.size = size
        self.it = Interpreter(model_content=model, num_threads=1)
        self.it.allocate_tensors()
        self.input = self.it.get_input_details()[0]["index"]
        self.scores = next(d["index"] for d in self.it.get_output_details() if d["shape"][-1] == 1)

    def __call__(self, rgb, rotation_degrees):
        h, w = rgb.shape[:2]
        q = warp(rgb, box_points(*roi(w, h, rotation_degrees, self.size)), self.size)
        scale = F((F(1) - F(-1)) / F(255))
        self.it.set_tensor(self.input, (q.astype(np.float32) * scale + F(-1))[None])
        self.it.invoke()
        top = F(np.clip(self.it.get_tensor(self.scores).max(), -100, 100))
        # expf correctly rounded (glibc's is), which numpy's float32 exp is not always.
        return F(1) / (F(1) + F(math.exp(-float(top))))


# ------------------------------------------------------------------------------------------------

def plan():
    cases = [{"name": f"square_{n}", "photo": "astronaut", "width": n, "height": n, "rotationDegrees": 0}
             for n in range(96, 401)]
    rng = random.Random(14)
    photos = list(PHOTOS)
    for i in range(160):
        width = round(math.exp(rng.uniform(math.log(96), math.log(4096))))
        aspect = math.exp(rng.uniform(math.log(0.5), math.log(2)))
        height = min(4096, max(96, round(width / aspect)))
        cases.append({"name": f"random_{i:03}", "photo": photos[i % 3], "width": width, "height": height,
                      "rotationDegrees": ROTATIONS[(i // 3) % 4], "landmarker": i % 2 == 0})
    return cases


def perspective_maps():
    rng = random.Random(7)
    maps = []
    for _ in range(48):
        size = rng.choice([128, 192, 256])
        rect = [F(rng.uniform(-50, 3000)), F(rng.uniform(-50, 3000)), F(rng.uniform(0.5, 4000)),
                F(rng.uniform(0.5, 4000)), F(rng.choice([0.0, rng.uniform(-4, 4)]))]
        m = inverse_map(box_points(*rect), size, size)
        maps.append({"rect": [f32(v) for v in rect], "size": size, "inverse": [float(v).hex() for v in m]})
    return maps


def main():
    import mediapipe as mp
    from mediapipe.tasks.python import BaseOptions, vision

    photos = {name: decode_rgb(os.path.join(FIXTURES, path)) for name, path in PHOTOS.items()}
    short_model = model_bytes("face_detector")
    with open(os.path.join(ROOT, "Weights", "face_landmarker.task"), "rb") as f:
        task = f.read()
    detector = vision.FaceDetector.create_from_options(vision.FaceDetectorOptions(
        base_options=BaseOptions(model_asset_buffer=short_model)))
    landmarker = vision.FaceLandmarker.create_from_options(vision.FaceLandmarkerOptions(
        base_options=BaseOptions(model_asset_buffer=task), num_faces=3,
        output_face_blendshapes=True, output_facial_transformation_matrixes=True))
    short_top = TopScore(short_model, 128)
    full_top = TopScore(model_bytes("face_detection_full_range"), 192)

    cases = plan()
    for n, c in enumerate(cases):
        rgb = case_pixels(photos, c)
        c["crc32"] = zlib.crc32(rgb.tobytes())
        image = mp.Image(image_format=mp.ImageFormat.SRGB, data=rgb)
        processing = vision.ImageProcessingOptions(rotation_degrees=c["rotationDegrees"])
        found = detector.detect(image, image_processing_options=processing).detections
        c["detections"] = [{
            "box": [int(d.bounding_box.origin_x), int(d.bounding_box.origin_y),
                    int(d.bounding_box.width), int(d.bounding_box.height)],
            "score": f32(d.categories[0].score),
            "keypoints": [v for k in d.keypoints for v in (f32(k.x), f32(k.y))],
        } for d in found]
        # The emulation must give MediaPipe's own top score exactly before it stands in for
        # MediaPipe on the full-range model.
        if found:
            best = F(max(d.categories[0].score for d in found))
            emulated = short_top(rgb, c["rotationDegrees"])
            assert emulated == best, (c["name"], float(emulated), float(best))
        full = full_top(rgb, c["rotationDegrees"])
        c["fullRangeTopScore"] = f32(full)
        if c.pop("landmarker", False):
            result = landmarker.detect(image, image_processing_options=processing)
            c["faces"] = [{
                "landmarks": [v for p in face for v in (f32(p.x), f32(p.y), f32(p.z))],
                "blendshapes": [f32(s.score) for s in shapes],
                "matrix": [f32(v) for v in np.asarray(matrix).ravel()],
            } for face, shapes, matrix in zip(result.face_landmarks, result.face_blendshapes,
                                              result.facial_transformation_matrixes)]
        print(f"{n + 1:3}/{len(cases)} {c['name']:11} {c['photo']:9} {c['width']:>4}x{c['height']:<4} "
              f"rot {c['rotationDegrees']:>4}  faces {len(c['detections'])}"
              + (f"  landmarked {len(c['faces'])}" if "faces" in c else ""), flush=True)

    import mediapipe
    document = {
        "generator": "Tools/make_sweep_fixtures.py",
        "mediapipe": mediapipe.__version__,
        "photos": {name: {"path": path, "crc32": zlib.crc32(photos[name].tobytes())} for name, path in PHOTOS.items()},
        "perspectiveMaps": perspective_maps(),
        "cases": cases,
    }
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump(document, f, separators=(",", ":"))
        f.write("\n")
    with_faces = sum(1 for c in cases if c.get("faces"))
    print(f"wrote {OUT}: {len(cases)} cases, {sum(1 for c in cases if c['detections'])} with a detection, "
          f"{sum(1 for c in cases if 'faces' in c)} landmarker cases ({with_faces} with a face)")


if __name__ == "__main__":
    main()
