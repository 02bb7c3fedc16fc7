"""`Image.create_from_file` reads files as MediaPipe 1.2.2's does, held to what MediaPipe made of
each file of Tests/Fixtures/stb/manifest.json (Tools/make_stb_fixtures.py): JPEG of every kind
and every Exif orientation, cut short too; PNG of every bit depth and layout; BMP; GIF. The
same format, shape and pixels (an FNV-1a 64 hash of them), or the same exception type. And the
guide code on photos read so gives MediaPipe's numbers (below)."""

import json

import numpy as np
import pytest

import visage as mp
from visage import _native
from conftest import FIXTURES, fnv1a64

MANIFEST = json.loads((FIXTURES / "stb" / "manifest.json").read_text())["files"]
# Where Visage differs on purpose: MediaPipe refuses a top-down BMP that stb_image reads, and
# dies (SIGILL) on a cut-off Exif directory.
DIFFERENT = {"stb/bmp_top_down.bmp", "exif/bad_truncated_ifd.jpg"}
CASES = [f for f in MANIFEST if f["file"] not in DIFFERENT]


def test_the_package_decodes_as_mediapipe():
    assert _native.lib.visage_image_decodes_as_mediapipe() == 1, "the engine was built without stb_image"
    assert len(CASES) > 100


@pytest.mark.parametrize("case", CASES, ids=[f["file"] for f in CASES])
def test_create_from_file_equals_mediapipe(case):
    path = str(FIXTURES / case["file"])
    if "error" in case:
        with pytest.raises({"RuntimeError": RuntimeError, "ValueError": ValueError}[case["error"]]):
            mp.Image.create_from_file(path)
        return
    image = mp.Image.create_from_file(path)
    view = image.numpy_view()
    assert image.image_format == getattr(mp.ImageFormat, case["format"])
    assert list(view.shape) == case["shape"]
    assert fnv1a64(view) == case["fnv1a64"], "pixels differ from MediaPipe's"


# MediaPipe's numbers on photos it read with create_from_file (Tools/make_file_numbers_fixtures.py):
# JPEG photos, JPEGs turned by Exif 3, 6 and 8, progressive, RGBA PNG, gray JPEG. With the same
# pixels the bars are the image-mode parity bars of docs/parity.md (landmark x, y mean ≤ 1e-5 and
# max ≤ 1e-4 per face, blendshapes ≤ 5e-3, matrix rotation ≤ 2e-3, translation ≤ 0.05 cm; the
# detector's boxes identical, scores and keypoints within 1e-6). libjpeg-turbo's pixels missed
# them: landmarks up to 2.8e-4 apart.
NUMBERS = json.loads((FIXTURES / "stb" / "file_numbers.json").read_text())["cases"]
vision = mp.tasks.vision


@pytest.fixture(scope="module")
def tasks():
    landmarker = vision.FaceLandmarker.create_from_options(vision.FaceLandmarkerOptions(
        num_faces=4, output_face_blendshapes=True, output_facial_transformation_matrixes=True))
    detector = vision.FaceDetector.create_from_options(vision.FaceDetectorOptions())
    yield landmarker, detector
    landmarker.close()
    detector.close()


@pytest.mark.parametrize("case", NUMBERS, ids=[c["file"] for c in NUMBERS])
def test_guide_code_on_files_gives_mediapipes_numbers(tasks, case):
    landmarker, detector = tasks
    image = mp.Image.create_from_file(str(FIXTURES / case["file"]))
    assert list(image.numpy_view().shape) == case["shape"]
    if "detectorError" in case:
        # MediaPipe's tasks refuse GRAY8 (tensor-size errors); Visage's read it.
        assert image.image_format == mp.ImageFormat.GRAY8 and "landmarkerError" in case
        assert len(detector.detect(image).detections) == len(landmarker.detect(image).face_landmarks) == 1
        return
    result = detector.detect(image)
    assert len(result.detections) == len(case.get("detections", [])), "detections"
    for ours, theirs in zip(result.detections, case.get("detections", [])):
        box = ours.bounding_box
        assert [box.origin_x, box.origin_y, box.width, box.height] == theirs["box"]
        assert abs(ours.categories[0].score - theirs["score"]) <= 1e-6
        keypoints = np.asarray([[k.x, k.y] for k in ours.keypoints])
        assert keypoints.shape == (6, 2) and np.abs(keypoints - theirs["keypoints"]).max() <= 1e-6
    result = landmarker.detect(image)
    assert len(result.face_landmarks) == len(case["faces"]), "faces"
    for i, face in enumerate(case["faces"]):
        mine = np.asarray([[p.x, p.y, p.z] for p in result.face_landmarks[i]])
        assert mine.shape == (478, 3)
        error = np.abs(mine[:, :2] - np.asarray(face["landmarks"])[:, :2])
        assert error.mean() <= 1e-5 and error.max() <= 1e-4, f"face {i}: mean {error.mean():.2g}, max {error.max():.2g}"
        scores = np.asarray([c.score for c in result.face_blendshapes[i]])
        assert scores.shape == (52,) and np.abs(scores - face["blendshapes"]).max() <= 5e-3
        matrix, theirs = np.asarray(result.facial_transformation_matrixes[i]), np.asarray(face["matrix"])
        assert np.abs(matrix[:3, :3] - theirs[:3, :3]).max() <= 2e-3
        assert np.abs(matrix[:3, 3] - theirs[:3, 3]).max() <= 0.05


def test_the_standard_decoder_is_a_choice():
    """`decoder="standard"` (Visage): libjpeg-turbo's pixels, Pillow's, as SRGB; a gray JPEG too."""
    path = str(FIXTURES / "stb" / "photos" / "astronaut_gray.jpg")
    theirs, ours = mp.Image.create_from_file(path), mp.Image.create_from_file(path, decoder="standard")
    assert theirs.image_format == mp.ImageFormat.GRAY8 and ours.image_format == mp.ImageFormat.SRGB
    assert ours.numpy_view().shape == (512, 512, 3)
    difference = np.abs(ours.numpy_view()[:, :, 0].astype(int) - theirs.numpy_view()[:, :, 0])
    assert 0 < difference.max() <= 3
    with pytest.raises(ValueError, match="decoder"):
        mp.Image.create_from_file(path, decoder="pillow")
