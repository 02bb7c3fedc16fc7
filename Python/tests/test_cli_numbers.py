"""The same numbers as the command line: each task's results from Python equal `visage`'s JSON
for the same images, float for float (each JSON number is the shortest text of a float32, so
parsing it as float32 gives the value the engine computed). The images are made per run from six
real photos: random crops (96 to 1600 px a side, aspect 1:2 to 2:1), each a PNG."""

import random

import numpy as np
import pytest

import visage as mp
from visage import _native
from conftest import FIXTURES, PHOTOS, run_cli, write_png

vision = mp.tasks.vision
SEED = random.randrange(1 << 30)


@pytest.fixture(scope="module")
def images(tmp_path_factory):
    rng = random.Random(SEED)
    folder = tmp_path_factory.mktemp("sweep")
    photos = [mp.Image.create_from_file(str(FIXTURES / p)).numpy_view() for p in PHOTOS]
    # Crops are written as RGB: a gray photo (GRAY8) replicated, as the tasks read it.
    photos = [np.repeat(p, 3, axis=2) if p.shape[2] == 1 else p[:, :, :3] for p in photos]
    paths = [str(FIXTURES / p) for p in PHOTOS]
    for i in range(14):
        photo = photos[i % len(photos)]
        height, width = photo.shape[:2]
        aspect = 2 ** rng.uniform(-1, 1)
        w = min(width, rng.randint(96, 1600))
        h = min(height, max(96, int(w / aspect)))
        x, y = rng.randint(0, width - w), rng.randint(0, height - h)
        path = folder / f"crop_{i:02d}_{w}x{h}.png"
        write_png(path, np.ascontiguousarray(photo[y : y + h, x : x + w]))
        paths.append(str(path))
    return paths


def pairs(ours, theirs, label):
    """Both sides, item by item, after checking they are as long: a comparison never passes
    by comparing nothing."""
    ours, theirs = list(ours), list(theirs)
    assert len(ours) == len(theirs), f"{label}: {len(ours)} items here, {len(theirs)} from the command line"
    return zip(ours, theirs)


def same(python_value, json_value, label):
    assert np.float32(python_value) == np.float32(json_value), f"{label}: {python_value} != {json_value} (seed {SEED})"


def same_landmarks(result, line, path):
    """A landmarker's result against the command line's line, every output field."""
    assert len(result.face_landmarks) == len(line["faceLandmarks"]), path
    for ours, theirs in pairs(result.face_landmarks, line["faceLandmarks"], path):
        for p, q in pairs(ours, theirs, path):
            same(p.x, q["x"], path), same(p.y, q["y"], path), same(p.z, q["z"], path)
    for ours, theirs in pairs(result.face_blendshapes, line.get("faceBlendshapes", []), path):
        for c, d in pairs(ours, theirs, path):
            assert c.category_name == d["categoryName"]
            same(c.score, d["score"], path)
    matrices = line.get("facialTransformationMatrixes", [])
    for ours, theirs in pairs(result.facial_transformation_matrixes, matrices, path):
        for a, b in pairs(ours.flatten().tolist(), np.asarray(theirs).flatten().tolist(), path):
            same(a, b, path)
    for ours, theirs in pairs(result.face_head_poses, line.get("faceHeadPoses", []), path):
        same(ours.x, theirs["x"], path), same(ours.y, theirs["y"], path), same(ours.z, theirs["z"], path)
    for ours, theirs in pairs(result.face_iris_distances, line.get("faceIrisDistances", []), path):
        assert (ours is None) == (theirs is None)
        if ours is not None:
            same(ours.left, theirs["left"], path), same(ours.right, theirs["right"], path)
    for ours, theirs in pairs(result.face_metric_landmarks, line.get("faceMetricLandmarks", []), path):
        assert (ours is None) == (theirs is None)
        for p, q in pairs(ours or [], theirs or [], path):
            same(p.x, q["x"], path), same(p.y, q["y"], path), same(p.z, q["z"], path)
    for ours, theirs in pairs(result.face_scores, line.get("faceScores", []), path):
        same(ours.presence, theirs["presence"], path)
    assert result.face_tracking_ids == line.get("faceTrackingIds", []), path


def same_detections(result, line, path):
    """A detector's result against the command line's line."""
    assert len(result.detections) == len(line["detections"]), path
    for ours, theirs in pairs(result.detections, line["detections"], path):
        box = theirs["boundingBox"]
        assert (ours.bounding_box.origin_x, ours.bounding_box.origin_y) == (box["originX"], box["originY"])
        assert (ours.bounding_box.width, ours.bounding_box.height) == (box["width"], box["height"])
        same(ours.categories[0].score, theirs["categories"][0]["score"], path)
        for p, q in pairs(ours.keypoints, theirs["keypoints"], path):
            same(p.x, q["x"], path), same(p.y, q["y"], path)
        same(ours.rotation_degrees, theirs["rotation"], path)
        assert (ours.face_presence is None) == (theirs.get("facePresence") is None), path
        if ours.face_presence is not None:
            same(ours.face_presence, theirs["facePresence"], path)
    assert result.face_tracking_ids == line.get("faceTrackingIds", []), path


# The full photos alone give 3 faces with the short-range detector, 15 with every scale.
@pytest.mark.parametrize("detector_range, least", [("short", 3), ("all", 15)])
def test_landmarker_equals_cli(cli, images, detector_range, least):
    lines = run_cli(
        cli, "landmark", "--num-faces", "4", "--blendshapes", "--transformation-matrices", "--head-pose",
        "--iris-distance", "--metric-mesh", "--scores", "--ignore-exif", "--decoder", "mediapipe-python",
        "--detector-range", detector_range, *images,
    )  # fmt: skip
    options = vision.FaceLandmarkerOptions(
        num_faces=4, output_face_blendshapes=True, output_facial_transformation_matrixes=True,
        output_head_poses=True, output_iris_distances=True, output_metric_landmarks=True, output_scores=True,
        detector_range=detector_range,
    )  # fmt: skip
    faces = 0
    with vision.FaceLandmarker.create_from_options(options) as task:
        for path, line in pairs(images, lines, "images"):
            result = task.detect(mp.Image.create_from_file(path))
            same_landmarks(result, line, path)
            faces += len(result.face_landmarks)
    assert faces >= least


@pytest.mark.parametrize("detector_range", ["short", "full", "all"])
def test_detector_equals_cli(cli, images, detector_range):
    lines = run_cli(cli, "detect", "--range", detector_range, "--ignore-exif", "--decoder", "mediapipe-python", *images)
    options = vision.FaceDetectorOptions(detector_range=detector_range)
    with vision.FaceDetector.create_from_options(options) as task:
        for path, line in pairs(images, lines, "images"):
            same_detections(task.detect(mp.Image.create_from_file(path)), line, path)


TASKS = {"detect": (vision.FaceDetector, vision.FaceDetectorOptions), "landmark": (vision.FaceLandmarker, vision.FaceLandmarkerOptions)}
PAN = sorted(str(p) for p in (FIXTURES / "landmarker" / "frames" / "pan").glob("*.jpg"))
# Each option of each task the package takes, from the engine's own table.
OPTIONS = [(task, row) for task in TASKS for row in _native.option_table(task) if row["python"]]


def python_value(row):
    """The option's alternative value as Python gives it."""
    value = row["alternative"]
    return {"flag": lambda: value == "true", "count": lambda: int(value), "number": lambda: float(value)}.get(
        row["kind"], lambda: value.replace("-", "_")
    )()


@pytest.mark.parametrize("mode", ["image", "video"])
@pytest.mark.parametrize("task, row", OPTIONS, ids=[f"{t}-{r['name']}" for t, r in OPTIONS])
def test_every_option_equals_cli(cli, task, row, mode):
    """Each option, set alone to a value other than its default, gives the same numbers from
    Python as from the command line: photos in image mode, a panning video's frames in video
    mode (where tracking and smoothing act)."""
    flag = [f"--{row['name']}"] + ([] if row["kind"] == "flag" else [row["alternative"]])
    paths = [str(FIXTURES / p) for p in PHOTOS] if mode == "image" else PAN
    timing = ["--running-mode", "video", "--fps", "10"] if mode == "video" else []
    lines = run_cli(cli, task, *flag, *timing, "--ignore-exif", "--decoder", "mediapipe-python", *paths)
    kind, options_type = TASKS[task]
    options = options_type(**{row["python"]: python_value(row)}, running_mode=getattr(vision.RunningMode, mode.upper()))
    compare = same_landmarks if task == "landmark" else same_detections
    with kind.create_from_options(options) as engine:
        for i, (path, line) in enumerate(pairs(paths, lines, "inputs")):
            image = mp.Image.create_from_file(path)
            result = engine.detect(image) if mode == "image" else engine.detect_for_video(image, i * 100)
            compare(result, line, f"{path} with {' '.join(flag)}")
