"""Visage from Python against MediaPipe's own Python results (MediaPipe 1.2.2, stored in
Tests/Fixtures/landmarker/mediapipe.json by Tools/make_landmarker_fixtures.py), within the
bars the Swift parity tests hold (docs/parity.md): per face, landmark x, y error mean ≤ 1e-4 and
max ≤ 2e-3, blendshape scores within 5e-3 (2.5e-2 in video), matrix rotation within 2e-3 and
translation within 0.05 cm. Face counts must match. The rotated cases pass MediaPipe's
`rotation_degrees` as the fixture generator did.

The face detector against MediaPipe's results on the format, rotation, group and video
fixtures (Tests/Fixtures/detector/mediapipe.json, Tools/make_detector_fixtures.py): the same
faces, identical boxes, scores and keypoints within 1e-6, as DetectorParityTests holds them."""

import hashlib
import json

import numpy as np
import pytest

import visage as mp
from conftest import FIXTURES, fnv1a64

DATA = json.loads((FIXTURES / "landmarker" / "mediapipe.json").read_text())
DETECTOR = json.loads((FIXTURES / "detector" / "mediapipe.json").read_text())
# The fixture generators handed MediaPipe Pillow's pixels (numpy arrays), so the images are
# read with the decoder that equals Pillow's.
PILLOW = "standard"
vision = mp.tasks.vision


def landmarker(options: dict, mode) -> vision.FaceLandmarker:
    # MediaPipe smooths landmarks only when num_faces is 1; Visage's default smooths every face.
    return vision.FaceLandmarker.create_from_options(
        vision.FaceLandmarkerOptions(
            landmark_smoothing="mediapipe",
            running_mode=mode,
            num_faces=options["numFaces"],
            min_face_detection_confidence=options["minFaceDetectionConfidence"],
            min_face_presence_confidence=options["minFacePresenceConfidence"],
            min_tracking_confidence=options["minTrackingConfidence"],
            output_face_blendshapes=True,
            output_facial_transformation_matrixes=True,
        )
    )


def compare(ours: vision.FaceLandmarkerResult, faces: list, blendshape_bar: float, label: str) -> None:
    assert len(ours.face_landmarks) == len(faces), label
    for i, face in enumerate(faces):
        theirs = np.asarray(face["landmarks"], np.float64)
        mine = np.asarray([[p.x, p.y, p.z] for p in ours.face_landmarks[i]], np.float64)
        assert mine.shape == theirs.shape, f"{label} face {i}: {mine.shape} landmarks, MediaPipe {theirs.shape}"
        error = np.abs(mine[:, :2] - theirs[:, :2])
        assert error.mean() <= 1e-4 and error.max() <= 2e-3, f"{label} face {i}: {error.mean()} {error.max()}"
        scores = np.asarray([s for _, s in face["blendshapes"]])
        mine_scores = np.asarray([c.score for c in ours.face_blendshapes[i]])
        assert [c.category_name for c in ours.face_blendshapes[i]] == [n for n, _ in face["blendshapes"]]
        assert np.abs(mine_scores - scores).max() <= blendshape_bar, label
        matrix = np.asarray(face["transformationMatrix"])
        mine_matrix = ours.facial_transformation_matrixes[i]
        assert np.abs(mine_matrix[:3, :3] - matrix[:3, :3]).max() <= 2e-3, label
        assert np.abs(mine_matrix[:3, 3] - matrix[:3, 3]).max() <= 0.05, label


@pytest.mark.parametrize("case", DATA["cases"], ids=lambda c: c["name"])
def test_image_mode(case):
    image = mp.Image.create_from_file(str(FIXTURES / case["image"]), decoder=PILLOW)
    assert (image.width, image.height) == (case["width"], case["height"])
    processing = vision.ImageProcessingOptions(rotation_degrees=case["rotationDegrees"])
    with landmarker(case["options"], vision.RunningMode.IMAGE) as task:
        compare(task.detect(image, processing), case["faces"], 5e-3, case["name"])


@pytest.mark.parametrize("sequence", DATA["sequences"], ids=lambda s: s["name"])
def test_video_mode(sequence):
    with landmarker(sequence["options"], vision.RunningMode.VIDEO) as task:
        for frame in sequence["frames"]:
            image = mp.Image.create_from_file(str(FIXTURES / frame["image"]), decoder=PILLOW)
            result = task.detect_for_video(image, frame["timestampMs"])
            compare(result, frame["faces"], 2.5e-2, f"{sequence['name']} at {frame['timestampMs']} ms")


def fixture_image(case: dict) -> mp.Image:
    """The case's image, decoded as the fixture generator decoded it (its RGB bytes' hash)."""
    image = mp.Image.create_from_file(str(FIXTURES / case["image"]), decoder=PILLOW)
    rgb = np.ascontiguousarray(image.numpy_view()[:, :, :3])
    assert hashlib.sha256(rgb.tobytes()).hexdigest() == case["rgbSha256"], f"{case['name']}: other pixels"
    return image


def compare_detections(ours: vision.FaceDetectorResult, theirs: list, label: str) -> None:
    assert len(ours.detections) == len(theirs), f"{label}: {len(ours.detections)} faces, MediaPipe {len(theirs)}"
    for mine, their in zip(ours.detections, theirs):
        box, expected = mine.bounding_box, their["boundingBox"]
        assert (box.origin_x, box.origin_y, box.width, box.height) == (
            expected["originX"], expected["originY"], expected["width"], expected["height"]), label
        assert abs(mine.categories[0].score - their["score"]) <= 1e-6, f"{label}: score"
        points = np.asarray([[k.x, k.y] for k in mine.keypoints])
        assert points.shape == (6, 2) and len(their["keypoints"]) == 6, label
        assert np.abs(points - np.asarray(their["keypoints"])).max() <= 1e-6, f"{label}: keypoints"


@pytest.mark.parametrize("case", [c for c in DETECTOR["cases"] if c["runningMode"] == "IMAGE"], ids=lambda c: c["name"])
def test_detector_image_mode(case):
    options = vision.FaceDetectorOptions(
        min_detection_confidence=case["minDetectionConfidence"],
        min_suppression_threshold=case["minSuppressionThreshold"])
    processing = vision.ImageProcessingOptions(rotation_degrees=case["rotationDegrees"])
    with vision.FaceDetector.create_from_options(options) as task:
        compare_detections(task.detect(fixture_image(case), processing), case["detections"], case["name"])


def test_detector_video_mode():
    frames = [c for c in DETECTOR["cases"] if c["runningMode"] == "VIDEO"]
    assert frames
    with vision.FaceDetector.create_from_options(vision.FaceDetectorOptions(running_mode=vision.RunningMode.VIDEO)) as task:
        for case in frames:
            result = task.detect_for_video(fixture_image(case), case["timestampMs"])
            compare_detections(result, case["detections"], case["name"])


def test_create_from_file_turns_jpegs_by_exif():
    # As MediaPipe 1.2.2's create_from_file (measured on these files): a JPEG comes upright by
    # its Exif tag, the mirrored tags too, as Pillow's exif_transpose gives it; a PNG's eXIf is
    # ignored. The manifest's hashes are of Pillow's pixels, which Visage's standard decoder
    # equals (test_image_files.py holds the default, MediaPipe's decoder, to MediaPipe's pixels).
    manifest = json.loads((FIXTURES / "exif" / "manifest.json").read_text())["files"]
    checked = 0
    for entry in manifest:
        name = entry["file"]
        if not (name.startswith("jpeg_") or name.startswith("png_")):
            continue
        view = mp.Image.create_from_file(str(FIXTURES / "exif" / name), decoder=PILLOW).numpy_view()
        turned = name.startswith("jpeg_")
        size = (entry["uprightHeight"], entry["uprightWidth"]) if turned else (entry["storedHeight"], entry["storedWidth"])
        assert view.shape == (*size, 3), name
        assert fnv1a64(view) == (entry["uprightHash"] if turned else entry["storedHash"]), name
        checked += 1
    assert checked >= 18
    # A cut-off Exif directory: MediaPipe's create_from_file dies of SIGILL; Visage reads the
    # pixels as stored.
    assert mp.Image.create_from_file(str(FIXTURES / "exif" / "bad_truncated_ifd.jpg")).width > 0
