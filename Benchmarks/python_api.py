#!/usr/bin/env python3
"""Visage for Python against `visage bench` and against MediaPipe's Python package, in one run.

1. Python's overhead: the face landmarker and the face detector called from Python
   (`landmarker.detect(image)`, the image decoded and wrapped once beforehand; for the
   landmarker also with every landmark's x, y, z read afterwards), per call against the
   engine's own time in that call (the task's Swift call, which the package records), and
   beside `visage bench --only landmarker_image|detector_image --image <the same PNG>`, which
   times the same pipeline from Swift. The image is a 640x480 photo made from the bundled
   astronaut.png (its middle 512x384, scaled up). Landmarker options as Benchmarks/compare.py
   has them: one face, blendshapes and matrices on.
2. MediaPipe 1.2.2's Python Tasks API on the same image and options, timed the same way.
3. A whole job: five photos of the tests' fixtures (Tests/Fixtures), each read from its
   file, decoded and landmarked (num_faces 4), by Visage and by MediaPipe; time per batch.
4. Two threads, each with its own Visage landmarker, over that batch: photos per second
   against one thread (the engine runs without the GIL).

Each item is timed in --rounds alternating blocks (Visage, MediaPipe, Visage, ...), since this
kind of machine has slow spells lasting seconds; medians and minima are over every call.

    swift build -c release --product visage
    Tools/setup-python.sh && .venv/bin/pip install ./Python
    .venv/bin/python Benchmarks/python_api.py
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np
from PIL import Image as PILImage

import visage

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "Tests", "Fixtures")
# camera.png, the tests' seventh photo, is left out: it is gray, and MediaPipe's landmarker fails
# on GRAY8 images ("TfLiteTensor and Tensor sizes do not match").
PHOTOS = ["images/astronaut.png", "crowd/sources/denis.png", "crowd/group/TeamMeeting2019.jpg", "crowd/crowd_00.jpg",
          "crowd/crowd_01.jpg"]  # fmt: skip

import mediapipe  # noqa: E402


def photo_640x480(folder):
    image = PILImage.open(os.path.join(ROOT, "Weights", "bench", "astronaut.png")).convert("RGB")
    image = image.crop((0, 64, 512, 448)).resize((640, 480), PILImage.BICUBIC)
    path = os.path.join(folder, "astronaut_640x480.png")
    image.save(path)
    return path


def bench(cli, item, image, iterations):
    output = subprocess.run(
        [cli, "bench", "--only", item, "--image", image, "--iterations", str(iterations), "--warmup", "20", "--output", "json"],
        check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    return json.loads(output.splitlines()[0])


def timed(call, count):
    times = []
    for _ in range(count):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1000)
    return times


def read_all(result):
    return sum(p.x + p.y + p.z for face in result.face_landmarks for p in face)


def row(name, times):
    return f"{name:44} median {statistics.median(times):8.3f} ms   min {min(times):8.3f} ms"


def landmarker_options(module, **extra):
    return module.tasks.vision.FaceLandmarkerOptions(
        base_options=module.tasks.BaseOptions(model_asset_path=os.path.join(ROOT, "Weights", "face_landmarker.task")),
        output_face_blendshapes=True, output_facial_transformation_matrixes=True, **extra,
    )  # fmt: skip


def detector_options(module, path):
    return module.tasks.vision.FaceDetectorOptions(base_options=module.tasks.BaseOptions(model_asset_path=path))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cli", default=os.path.join(ROOT, ".build", "release", "visage"))
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--iterations", type=int, default=60, help="calls per round")
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="visage-python-bench-")
    image_path = photo_640x480(folder)
    # MediaPipe's face detector takes the detector model on its own.
    detector_model = os.path.join(folder, "face_detector.tflite")
    import zipfile

    with zipfile.ZipFile(os.path.join(ROOT, "Weights", "face_landmarker.task")) as bundle:
        with open(detector_model, "wb") as out:
            out.write(bundle.read("face_detector.tflite"))

    tasks = {
        "landmarker_image": (
            visage.tasks.vision.FaceLandmarker.create_from_options(landmarker_options(visage)),
            mediapipe.tasks.vision.FaceLandmarker.create_from_options(landmarker_options(mediapipe)),
        ),
        "detector_image": (
            visage.tasks.vision.FaceDetector.create_from_options(detector_options(visage, detector_model)),
            mediapipe.tasks.vision.FaceDetector.create_from_options(detector_options(mediapipe, detector_model)),
        ),
    }
    ours_image = visage.Image.create_from_file(image_path)
    theirs_image = mediapipe.Image.create_from_file(image_path)
    print(f"image: {image_path} (640x480); {args.rounds} rounds of {args.iterations} calls")
    for item, (ours, theirs) in tasks.items():
        swift, python, media, overheads, engine = [], [], [], [], []

        def ours_call():
            result = ours.detect(ours_image)
            engine.append(result._engine_ms)
            return result

        timed(ours_call, 20)
        timed(lambda: theirs.detect(theirs_image), 20)
        engine.clear()
        for _ in range(args.rounds):
            result = bench(args.cli, item, image_path, args.iterations)
            swift.append(result["medianMs"])
            start = len(engine)
            ours_times = timed(ours_call, args.iterations)
            python += ours_times
            # Per call: the wall time from Python over the engine's own time in that call, so
            # that the machine's slow spells, which last seconds, touch both sides alike.
            overheads += [wall / inside for wall, inside in zip(ours_times, engine[start:])]
            media += timed(lambda: theirs.detect(theirs_image), args.iterations)
        print(f"\n{item} ({result['instructionSet']})")
        print(f"{'visage bench (Swift), median of round medians':44} median {statistics.median(swift):8.3f} ms")
        print(row("Visage from Python", python))
        print(row("  of which the engine's own call", engine))
        print(row("MediaPipe from Python", media))
        print(f"Python's overhead {statistics.median(overheads) - 1:+.1%} (median over calls of wall / engine time);"
              f" MediaPipe / Visage {statistics.median(media) / statistics.median(python):.2f}x")
        if item == "landmarker_image":
            # detect() leaves the 478 landmark objects to be made when first read; this is the
            # time with every landmark's x, y and z read too, on both sides.
            engine.clear()
            ours_read = timed(lambda: read_all(ours_call()), args.iterations * 2)
            reads = [wall / inside for wall, inside in zip(ours_read, engine)]
            theirs_read = timed(lambda: read_all(theirs.detect(theirs_image)), args.iterations * 2)
            print(row("Visage from Python, every landmark read", ours_read))
            print(row("MediaPipe from Python, every landmark read", theirs_read))
            print(f"with every landmark read, overhead {statistics.median(reads) - 1:+.1%}")

    # A whole job: files in, decode included.
    paths = [os.path.join(FIXTURES, p) for p in PHOTOS]
    ours = visage.tasks.vision.FaceLandmarker.create_from_options(landmarker_options(visage, num_faces=4))
    theirs = mediapipe.tasks.vision.FaceLandmarker.create_from_options(landmarker_options(mediapipe, num_faces=4))

    def batch(module, task):
        return sum(len(task.detect(module.Image.create_from_file(p)).face_landmarks) for p in paths)

    faces = (batch(visage, ours), batch(mediapipe, theirs))
    ours_batch, theirs_batch = [], []
    for _ in range(args.rounds):
        ours_batch += timed(lambda: batch(visage, ours), max(3, args.iterations // 20))
        theirs_batch += timed(lambda: batch(mediapipe, theirs), max(3, args.iterations // 20))
    print(f"\nwhole job: {len(paths)} photos from their files, decode included, num_faces 4 (faces: Visage {faces[0]}, MediaPipe {faces[1]})")
    print(row("Visage from Python, per batch", ours_batch))
    print(row("MediaPipe from Python, per batch", theirs_batch))

    # Two threads, a landmarker each.
    second = visage.tasks.vision.FaceLandmarker.create_from_options(landmarker_options(visage, num_faces=4))
    rounds = max(3, args.iterations // 20)

    def run(task):
        for _ in range(rounds):
            batch(visage, task)

    start = time.perf_counter()
    run(ours)
    one = len(paths) * rounds / (time.perf_counter() - start)
    threads = [threading.Thread(target=run, args=(t,)) for t in (ours, second)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    two = 2 * len(paths) * rounds / (time.perf_counter() - start)
    print(f"\nVisage, photos per second: one thread {one:.1f}, two threads with a task each {two:.1f} ({two / one:.2f}x)")


if __name__ == "__main__":
    main()
