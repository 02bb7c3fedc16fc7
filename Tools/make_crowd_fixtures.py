#!/usr/bin/env python3
"""Compose crowd images with known face boxes, and face-free negatives, for measuring recall
and false positives of the detector's ranges (issue 16).

Sources (all with a clear licence; see Tests/Fixtures/crowd/README.md):
  faces        five photos: astronaut.png and camera.png (Tests/Fixtures/images, from
               scikit-image), grace_hopper.jpg (matplotlib's sample_data, in the venv),
               denis.png (Tests/Fixtures/crowd/sources, LPPL 1.3c) and the group photo
               (Tests/Fixtures/crowd/group, LPPL 1.3c). The four portraits are each used as is
               and mirrored with changed colour and contrast (eight variants of four people);
               the group photo gives its six largest faces (six more people), pasted at most
               1.5 times their own size (16 to 51 px), since scaling them up further would
               only blur them.
  backgrounds  scikit-image's brick, grass, gravel, coffee, chelsea (a cat) and rocket, read
               from the scikit-image 0.26.0 wheel (fetched with `pip download --no-deps` into
               ~/.cache/visage-wheels when not there).

How a face is placed: MediaPipe's short-range Tasks detector gives the face's box on the
source photo. A square of 1.5 box sides around the box centre is cut out; MediaPipe is run again
on that cutout alone (through the feathered ellipse it is pasted with, on gray) to get the box a
detector gives for exactly those pixels. The cutout is scaled so the source box becomes `size`
pixels (sizes 16...600), turned by a quarter turn (0/90/180/270, clockwise on screen) plus a
tilt of up to ±30°, and pasted. The ground-truth box is the cutout's MediaPipe box carried
through that geometry: its centre turned and scaled with the paste, a square of its side times
the scale. Turning a face does not change its size, so the square is what an upright detector
would report; the axis-aligned bounds of the turned box would be up to 1.37× larger at 30° and
unfair to every detector.

Busy backgrounds: each canvas is a mosaic of random crops of the background photos, and as
many feathered ellipses of non-face crops as faces are pasted too, so that the paste outline is
no cue.

Outputs (deterministic for a seed):
  default      Tests/Fixtures/crowd/: three 1280x960 crowd JPEGs, two 640x480 negatives and
               truth.json, the small subset the Swift test reads (FaceSearchTests); and
               Tests/Fixtures/crowd/group/truth.json, the faces of a real group photo (below).
  --out DIR    the full set Benchmarks/crowd_recall.py measures: 16 crowd images (2000x1500)
               and 8 negatives, with truth.json.

The real group photo: Tests/Fixtures/crowd/group/TeamMeeting2019.jpg (1317x342, the JACoW
team in 2019, LPPL 1.3c; see the crowd README), 38 faces of 16 to 34 px, too small for
MediaPipe's detector on the whole photo. Its truth boxes are MediaPipe's own: the short-range
Tasks detector on 96 px tiles (48 px apart) of the photo scaled 4x with Lanczos, boxes wholly
inside a tile, greedy suppression at IoU 0.3, scores of at least 0.75. The eight boxes below
0.75 are knees, hands and a shirt; the 38 above are every face, checked by eye on the drawn
boxes.

    .venv/bin/python Tools/make_crowd_fixtures.py
    .venv/bin/python Tools/make_crowd_fixtures.py --out /tmp/crowd
    .venv/bin/python Tools/make_crowd_fixtures.py --out /tmp/crowd-heldout --seed 2727
"""
import argparse
import glob
import io
import json
import math
import os
import subprocess
import sys
import zipfile

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageOps

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WHEEL_CACHE = os.path.expanduser("~/.cache/visage-wheels")
SKIMAGE = "scikit-image==0.26.0"
BACKGROUNDS = ["brick.png", "grass.png", "gravel.png", "coffee.png", "chelsea.png", "rocket.jpg"]
MIN_SIZE, MAX_SIZE = 16, 600


def skimage_wheel():
    found = glob.glob(os.path.join(WHEEL_CACHE, "scikit_image-0.26.0-*.whl"))
    if not found:
        os.makedirs(WHEEL_CACHE, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", SKIMAGE, "-d", WHEEL_CACHE], check=True)
        found = glob.glob(os.path.join(WHEEL_CACHE, "scikit_image-0.26.0-*.whl"))
    return zipfile.ZipFile(found[0])


def face_photos():
    """(name, RGB image) of the four portrait photos."""
    import matplotlib
    hopper = os.path.join(os.path.dirname(matplotlib.__file__), "mpl-data", "sample_data", "grace_hopper.jpg")
    return [
        ("astronaut", Image.open(os.path.join(ROOT, "Tests/Fixtures/images/astronaut.png")).convert("RGB")),
        ("camera", Image.open(os.path.join(ROOT, "Tests/Fixtures/images/camera.png")).convert("RGB")),
        ("grace_hopper", Image.open(hopper).convert("RGB")),
        ("denis", Image.open(os.path.join(ROOT, "Tests/Fixtures/crowd/sources/denis.png")).convert("RGB")),
    ]


def mediapipe_box(image):
    """The best face box MediaPipe's short-range Tasks detector gives for `image` (x, y, w, h),
    in float pixels from the normalized keypoint-free box."""
    import mediapipe as mp
    from mediapipe.tasks.python import BaseOptions, vision
    model = zipfile.ZipFile(os.path.join(ROOT, "Weights/face_landmarker.task")).read("face_detector.tflite")
    detector = vision.FaceDetector.create_from_options(
        vision.FaceDetectorOptions(base_options=BaseOptions(model_asset_buffer=model)))
    result = detector.detect(mp.Image(image_format=mp.ImageFormat.SRGB, data=np.asarray(image).copy()))
    detector.close()
    if not result.detections:
        sys.exit("MediaPipe finds no face in a source photo")
    b = max(result.detections, key=lambda d: d.categories[0].score).bounding_box
    return b.origin_x, b.origin_y, b.width, b.height


def face_cutouts():
    """Eight portrait variants: each photo's face square (1.5 box sides) as is, and mirrored
    with a colour change, each with its face box as MediaPipe sees the cutout itself (through
    the feathered ellipse, on gray, a third of the frame): (dx, dy, side) as fractions of the
    cutout side, dx and dy from the cutout's centre. Then the group photo's six largest faces,
    their boxes those of group/truth.json (MediaPipe's too, on the upscaled photo; too small
    to find again in a cutout), each with the largest size it may be pasted at. Each entry is
    (label, cutout, box, largest size)."""
    cutouts = []
    group = Image.open(GROUP_PHOTO).convert("RGB")
    with open(os.path.join(os.path.dirname(GROUP_PHOTO), "truth.json")) as f:
        faces = json.load(f)["images"][0]["faces"]
    for i, face in enumerate(sorted(faces, key=lambda f: -f["size"])[:6]):
        side = face["size"] * 1.5
        cx, cy = face["x"] + face["size"] / 2, face["y"] + face["size"] / 2
        cut = group.crop((round(cx - side / 2), round(cy - side / 2), round(cx + side / 2), round(cy + side / 2)))
        cutouts.append((f"group-{i}", cut, (0.0, 0.0, 1 / 1.5), face["size"] * 1.5))
    for name, photo in face_photos():
        x, y, w, h = mediapipe_box(photo)
        side = int(round(max(w, h) * 1.5))
        cx, cy = x + w / 2, y + h / 2
        box = (int(round(cx - side / 2)), int(round(cy - side / 2)))
        crop = Image.new("RGB", (side, side))
        crop.paste(photo.crop((box[0], box[1], box[0] + side, box[1] + side)), (0, 0))
        varied = ImageOps.mirror(crop)
        arr = np.asarray(varied, np.float32)
        arr = np.clip((arr - 128) * 1.25 + 128 + np.array([18, -6, -14]), 0, 255).astype(np.uint8)
        for label, cut in [(name, crop), (name + "-mirrored-warm", Image.fromarray(arr))]:
            frame = Image.new("RGB", (side * 3, side * 3), (128, 128, 128))
            frame.paste(cut, (side, side), feathered_ellipse(side))
            bx, by, bw, bh = mediapipe_box(frame)
            cutouts.append((label, cut, ((bx + bw / 2) / side - 1.5, (by + bh / 2) / side - 1.5, (bw + bh) / 2 / side),
                            MAX_SIZE))
    return cutouts


def backgrounds(wheel):
    return [Image.open(io.BytesIO(wheel.read("skimage/data/" + n))).convert("RGB") for n in BACKGROUNDS]


def mosaic(rng, sources, width, height):
    """A canvas of random crops of the background photos, 4x3 patches of random sizes."""
    canvas = Image.new("RGB", (width, height))
    cols, rows = 4, 3
    for r in range(rows):
        for c in range(cols):
            src = sources[rng.integers(len(sources))]
            pw, ph = width // cols + 1, height // rows + 1
            scale = rng.uniform(0.6, 1.6)
            cw, ch = min(src.width, int(pw / scale)), min(src.height, int(ph / scale))
            x0, y0 = rng.integers(0, src.width - cw + 1), rng.integers(0, src.height - ch + 1)
            canvas.paste(src.crop((x0, y0, x0 + cw, y0 + ch)).resize((pw, ph), Image.BILINEAR), (c * (width // cols), r * (height // rows)))
    return canvas


def feathered_ellipse(side):
    mask = Image.new("L", (side, side))
    inset = side * 0.06
    ImageDraw.Draw(mask).ellipse((inset, inset, side - inset, side - inset), fill=255)
    return mask.filter(ImageFilter.GaussianBlur(max(1, side * 0.04)))


def paste_turned(canvas, patch, size_px, degrees, cx, cy):
    """Pastes `patch` (a square whose central 2/3 is the face box) scaled so that box is
    `size_px`, turned clockwise by `degrees`, centred at (cx, cy)."""
    side = max(4, int(round(size_px * 1.5)))
    patch = patch.resize((side, side), Image.LANCZOS)
    mask = feathered_ellipse(side)
    # PIL turns counter-clockwise for positive angles.
    patch = patch.rotate(-degrees, resample=Image.BICUBIC, expand=True)
    mask = mask.rotate(-degrees, resample=Image.BICUBIC, expand=True)
    canvas.paste(patch, (int(round(cx - patch.width / 2)), int(round(cy - patch.height / 2))), mask)


def crowd(rng, cutouts, sources, width, height, count):
    canvas = mosaic(rng, sources, width, height)
    # Sizes log-uniform over 16...600 px, small enough for the turned patch to fit; big first.
    top = min(MAX_SIZE, int(min(width, height) / 2.3))
    sizes = sorted((float(np.exp(rng.uniform(np.log(MIN_SIZE), np.log(top)))) for _ in range(count)), reverse=True)
    placed, faces = [], []
    for size in sizes:
        r = size * 1.5 * 0.75  # the turned patch's reach, with its feathered corners
        for _ in range(400):
            cx, cy = rng.uniform(r, width - r), rng.uniform(r, height - r)
            if all(math.hypot(cx - px, cy - py) > r + pr for px, py, pr in placed):
                break
        else:
            continue
        placed.append((cx, cy, r))
        fitting = [c for c in cutouts if c[3] >= size]
        name, patch, (dx, dy, fraction), _ = fitting[rng.integers(len(fitting))]
        turn = int(rng.choice([0, 90, 180, 270]))
        tilt = float(rng.uniform(-30, 30))
        paste_turned(canvas, patch, size, turn + tilt, cx, cy)
        # The cutout's own face box, carried through the paste: scaled, its centre turned.
        patch_side = size * 1.5
        a = math.radians(turn + tilt)
        fx = cx + (dx * math.cos(a) - dy * math.sin(a)) * patch_side
        fy = cy + (dx * math.sin(a) + dy * math.cos(a)) * patch_side
        s = fraction * patch_side
        faces.append({"x": round(fx - s / 2, 1), "y": round(fy - s / 2, 1), "size": round(s, 1),
                      "turn": turn, "tilt": round(tilt, 1), "source": name})
    # Distractors: the same feathered ellipses, filled with non-face crops.
    for _ in range(count):
        size = float(np.exp(rng.uniform(np.log(24), np.log(top))))
        src = sources[rng.integers(len(sources))]
        side = min(src.width, src.height, int(rng.uniform(80, 400)))
        x0, y0 = rng.integers(0, src.width - side + 1), rng.integers(0, src.height - side + 1)
        r = size * 1.5 * 0.75
        cx, cy = rng.uniform(r, width - r), rng.uniform(r, height - r)
        if all(math.hypot(cx - px, cy - py) > r + pr for px, py, pr in placed):
            paste_turned(canvas, src.crop((x0, y0, x0 + side, y0 + side)), size, float(rng.uniform(0, 360)), cx, cy)
            placed.append((cx, cy, r))
    return canvas, faces


def negative(rng, sources, width, height, kind):
    if kind == "mosaic":
        return mosaic(rng, sources, width, height)
    src = sources[BACKGROUNDS.index(kind)]
    scale = max(width / src.width, height / src.height)
    big = src.resize((int(src.width * scale) + 1, int(src.height * scale) + 1), Image.BILINEAR)
    return big.crop((0, 0, width, height))


def write_set(out, seed, crowds, negatives, size, negative_size, faces_per_image):
    rng = np.random.default_rng(seed)
    wheel = skimage_wheel()
    sources = backgrounds(wheel)
    cutouts = face_cutouts()
    os.makedirs(out, exist_ok=True)
    truth = {"seed": seed, "minSize": MIN_SIZE, "images": []}
    for i in range(crowds):
        image, faces = crowd(rng, cutouts, sources, *size, faces_per_image)
        name = f"crowd_{i:02d}.jpg"
        image.save(os.path.join(out, name), quality=88)
        truth["images"].append({"file": name, "faces": faces})
    kinds = ["chelsea.png", "coffee.png", "mosaic", "rocket.jpg", "brick.png", "mosaic", "gravel.png", "mosaic"]
    for i in range(negatives):
        name = f"negative_{i:02d}.jpg"
        negative(rng, sources, *negative_size, kinds[i % len(kinds)]).save(os.path.join(out, name), quality=88)
        truth["images"].append({"file": name, "faces": []})
    with open(os.path.join(out, "truth.json"), "w") as f:
        json.dump(truth, f, indent=1)
        f.write("\n")
    total = sum(len(im["faces"]) for im in truth["images"])
    print(f"{out}: {crowds} crowd images ({total} faces), {negatives} negatives")


GROUP_PHOTO = os.path.join(ROOT, "Tests/Fixtures/crowd/group/TeamMeeting2019.jpg")


def group_photo_faces(scale=4, tile=96, step=48, min_score=0.75):
    """The group photo's faces as MediaPipe's short-range detector sees them on upscaled tiles
    (see the docstring): a list of (x, y, size) squares in photo pixels."""
    import mediapipe as mp
    from mediapipe.tasks.python import BaseOptions, vision
    model = zipfile.ZipFile(os.path.join(ROOT, "Weights/face_landmarker.task")).read("face_detector.tflite")
    detector = vision.FaceDetector.create_from_options(
        vision.FaceDetectorOptions(base_options=BaseOptions(model_asset_buffer=model)))
    photo = Image.open(GROUP_PHOTO).convert("RGB")
    found = []
    for y in range(0, photo.height - tile + step, step):
        for x in range(0, photo.width - tile + step, step):
            x0, y0 = min(x, photo.width - tile), min(y, photo.height - tile)
            crop = photo.crop((x0, y0, x0 + tile, y0 + tile)).resize((tile * scale, tile * scale), Image.LANCZOS)
            result = detector.detect(mp.Image(image_format=mp.ImageFormat.SRGB, data=np.asarray(crop).copy()))
            for d in result.detections:
                b, edge = d.bounding_box, tile * scale - 4
                if b.origin_x > 4 and b.origin_y > 4 and b.origin_x + b.width < edge and b.origin_y + b.height < edge:
                    found.append((d.categories[0].score, x0 + b.origin_x / scale, y0 + b.origin_y / scale,
                                  b.width / scale, b.height / scale))
    detector.close()

    def overlap(a, b):
        w = min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0])
        h = min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1])
        return 0 if w <= 0 or h <= 0 else w * h / (a[2] * a[3] + b[2] * b[3] - w * h)

    kept = []
    for score, *box in sorted(found, reverse=True):
        if score >= min_score and all(overlap(box, k) < 0.3 for k in kept):
            kept.append(box)
    return [(x + (w - (w + h) / 2) / 2, y + (h - (w + h) / 2) / 2, (w + h) / 2) for x, y, w, h in kept]


def write_group_truth():
    faces = [{"x": round(x, 1), "y": round(y, 1), "size": round(s, 1), "turn": 0, "tilt": 0.0, "source": "TeamMeeting2019"}
             for x, y, s in sorted(group_photo_faces())]
    truth = {"images": [{"file": os.path.basename(GROUP_PHOTO), "faces": faces}]}
    with open(os.path.join(os.path.dirname(GROUP_PHOTO), "truth.json"), "w") as f:
        json.dump(truth, f, indent=1)
        f.write("\n")
    print(f"{os.path.dirname(GROUP_PHOTO)}: {len(faces)} faces")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", help="write the full measurement set here instead of the committed subset")
    parser.add_argument("--seed", type=int, default=1616,
                        help="with --out: another seed gives other crowds (the same five photos at other sizes, places, turns, backgrounds)")
    args = parser.parse_args()
    if args.out:
        write_set(args.out, seed=args.seed, crowds=16, negatives=8, size=(2000, 1500), negative_size=(1280, 960), faces_per_image=12)
    else:
        write_group_truth()  # first: the crowd images paste faces from it
        write_set(os.path.join(ROOT, "Tests/Fixtures/crowd"), seed=16, crowds=3, negatives=2,
                  size=(1280, 960), negative_size=(640, 480), faces_per_image=10)


if __name__ == "__main__":
    main()
