#!/usr/bin/env python3
"""The arm64 build of `visage` against the x86-64 build, on photos made for this run.

Makes --count images from the repository's photos (a portrait, a camera operator, a real
group photo, the crowd canvases): a random crop of aspect 1:2 to 2:1, resized to a random
width of 96 to 1600 px, turned by a random quarter turn, saved as PNG or JPEG. Runs
`visage landmark` (478 landmarks, blendshapes, transformation matrices, up to 6 faces) and
`visage detect` on all of them with both builds, and compares face for face, in the order
each build reports. Prints the worst difference of each output and fails past the bars,
which are those of image-mode parity with MediaPipe (docs/parity.md): landmarks x, y, z 1e-4,
blendshapes 2e-3, the matrices' rotation 5e-4 and translation 0.01 cm, detection scores and
keypoints 1e-5, box edges equal.

    python3 Tools/arm64/compare.py --count 24            (a new random set each run)
    python3 Tools/arm64/compare.py --seed 7              (that set again)
    VISAGE_MAX_ISA=baseline python3 Tools/arm64/compare.py   (both builds' exact kernels)

Needs Pillow (`pip install pillow`), the x86-64 release build (`swift build -c release`) and
root for the arm64 build (Tools/arm64/visage builds it when missing).
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parent.parent.parent
PHOTOS = [
    "Tests/Fixtures/images/astronaut.png", "Tests/Fixtures/images/camera.png",
    "Tests/Fixtures/crowd/sources/denis.png", "Tests/Fixtures/crowd/group/TeamMeeting2019.jpg",
    "Tests/Fixtures/crowd/crowd_00.jpg", "Tests/Fixtures/crowd/crowd_01.jpg",
]
BARS = {"landmark": 1e-4, "blendshape": 2e-3, "rotation": 5e-4, "translation": 0.01, "score": 1e-5,
        "keypoint": 1e-5, "box": 0}
TURNS = [None, Image.Transpose.ROTATE_90, Image.Transpose.ROTATE_180, Image.Transpose.ROTATE_270]


def make_images(count, seed, folder):
    rng = random.Random(seed)
    paths = []
    for i in range(count):
        photo = Image.open(ROOT / rng.choice(PHOTOS)).convert("RGB")
        w, h = photo.size
        aspect = 2 ** rng.uniform(-1, 1)
        cw = min(w, int(h * aspect)) if rng.random() < 0.5 else w
        ch = min(h, int(cw / aspect))
        cw = max(32, int(rng.uniform(0.8, 1.0) * cw))
        ch = max(32, int(rng.uniform(0.8, 1.0) * ch))
        x, y = rng.randint(0, w - cw), rng.randint(0, h - ch)
        width = rng.randint(96, 1600)
        height = max(16, round(width * ch / cw))
        image = photo.crop((x, y, x + cw, y + ch)).resize((width, height), Image.Resampling.BILINEAR)
        turn = rng.choice(TURNS)
        if turn is not None:
            image = image.transpose(turn)
        suffix = rng.choice(["png", "jpg"])
        path = folder / f"{i:03d}-{width}x{height}.{suffix}"
        image.save(path, quality=90) if suffix == "jpg" else image.save(path)
        paths.append(str(path))
    return paths


def run(command, paths):
    """JSON lines of one `visage` run over `paths`, by source, and the seconds it took."""
    start = time.monotonic()
    done = subprocess.run(command + paths, capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command[:2])} failed ({done.returncode}): {done.stderr[-2000:]}")
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return {line["source"]: line for line in lines}, time.monotonic() - start


def worst(a, b):
    return max((abs(x - y) for x, y in zip(a, b)), default=0.0)


def compare_landmarks(x86, arm, worst_seen, problems, source):
    faces_a, faces_b = x86.get("faceLandmarks", []), arm.get("faceLandmarks", [])
    if len(faces_a) != len(faces_b):
        problems.append(f"{source}: {len(faces_a)} faces on x86-64, {len(faces_b)} on arm64")
        return
    for f, (la, lb) in enumerate(zip(faces_a, faces_b)):
        for key in "xyz":
            diff = worst([p[key] for p in la], [p[key] for p in lb])
            worst_seen["landmark"] = max(worst_seen["landmark"], diff)
        ba = x86.get("faceBlendshapes", [])[f]
        bb = arm.get("faceBlendshapes", [])[f]
        worst_seen["blendshape"] = max(worst_seen["blendshape"], worst([c["score"] for c in ba], [c["score"] for c in bb]))
        # 4×4, row by row: the upper left 3×3 turns, the last column's top three move (cm).
        ma = x86.get("facialTransformationMatrixes", [])[f]
        mb = arm.get("facialTransformationMatrixes", [])[f]
        turn_a, turn_b = [ma[r][c] for r in range(3) for c in range(3)], [mb[r][c] for r in range(3) for c in range(3)]
        worst_seen["rotation"] = max(worst_seen["rotation"], worst(turn_a, turn_b))
        move_a, move_b = [ma[r][3] for r in range(3)], [mb[r][3] for r in range(3)]
        worst_seen["translation"] = max(worst_seen["translation"], worst(move_a, move_b))


def compare_detections(x86, arm, worst_seen, problems, source):
    da, db = x86.get("detections", []), arm.get("detections", [])
    if len(da) != len(db):
        problems.append(f"{source}: {len(da)} detections on x86-64, {len(db)} on arm64")
        return
    for a, b in zip(da, db):
        box_a, box_b = a["boundingBox"], b["boundingBox"]
        diff = worst([box_a[k] for k in sorted(box_a)], [box_b[k] for k in sorted(box_b)])
        worst_seen["box"] = max(worst_seen["box"], diff)
        worst_seen["score"] = max(worst_seen["score"], worst([c["score"] for c in a["categories"]],
                                                             [c["score"] for c in b["categories"]]))
        ka, kb = a.get("keypoints") or [], b.get("keypoints") or []
        worst_seen["keypoint"] = max(worst_seen["keypoint"], worst([k[c] for k in ka for c in ("x", "y")],
                                                                   [k[c] for k in kb for c in ("x", "y")]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=24)
    parser.add_argument("--seed", type=int, default=None, help="default: a new one, printed")
    parser.add_argument("--x86", default=str(ROOT / ".build/release/visage"))
    parser.add_argument("--arm64", default=str(ROOT / "Tools/arm64/visage"))
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 30)
    with tempfile.TemporaryDirectory(prefix="visage-arm64-") as folder:
        paths = make_images(args.count, seed, Path(folder))
        landmark = ["landmark", "--output", "json", "--num-faces", "6", "--blendshapes", "--transformation-matrices"]
        detect = ["detect", "--output", "json"]
        worst_seen = {key: 0.0 for key in BARS}
        problems, faces, seconds = [], 0, {}
        for name, arguments, compare in (("landmark", landmark, compare_landmarks),
                                         ("detect", detect, compare_detections)):
            x86, seconds[f"{name} x86-64"] = run([args.x86] + arguments, paths)
            arm, seconds[f"{name} arm64"] = run([args.arm64] + arguments, paths)
            for source in paths:
                if source not in x86 or source not in arm:
                    problems.append(f"{source}: no {name} result from {'x86-64' if source not in x86 else 'arm64'}")
                    continue
                compare(x86[source], arm[source], worst_seen, problems, source)
                if name == "landmark":
                    faces += len(x86[source].get("faceLandmarks", []))
    for key, bar in BARS.items():
        if worst_seen[key] > bar:
            problems.append(f"{key}: worst difference {worst_seen[key]:.3g} is past the bar {bar:g}")
    level = os.environ.get("VISAGE_MAX_ISA") or "default"
    print(f"seed {seed}, {args.count} images, {faces} faces, kernels {level}; worst differences: "
          + ", ".join(f"{k} {v:.3g}" for k, v in worst_seen.items()))
    print("seconds: " + ", ".join(f"{k} {v:.1f}" for k, v in seconds.items()))
    for problem in problems:
        print("FAIL " + problem)
    print(f"compare.py: {len(problems)} problems")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
