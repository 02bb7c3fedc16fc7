"""Every failure is a Python exception with the engine's words: ValueError for bad arguments,
FileNotFoundError for missing files, RuntimeError for a model the engine cannot run. Nothing a
caller passes crashes the interpreter."""

import numpy as np
import pytest

import visage as mp
from conftest import ASTRONAUT, ROOT

vision = mp.tasks.vision
TASK = ROOT / "Weights" / "face_landmarker.task"


def landmarker(**options):
    return vision.FaceLandmarker.create_from_options(vision.FaceLandmarkerOptions(**options))


def test_options_out_of_range():
    """Refused by the option's Python name, with what it takes (the engine's one table)."""
    with pytest.raises(ValueError, match=r"^option num_faces takes a whole number in 1\.\.\.1000, got '0'$"):
        landmarker(num_faces=0)
    with pytest.raises(ValueError, match="option min_face_detection_confidence takes a number in 0...1, got '1.5'"):
        landmarker(min_face_detection_confidence=1.5)
    with pytest.raises(ValueError, match="option min_suppression_threshold takes"):
        vision.FaceDetector.create_from_options(vision.FaceDetectorOptions(min_suppression_threshold=-1))
    with pytest.raises(ValueError, match="option detector_range takes short, full, all, got 'far'"):
        landmarker(detector_range="far")
    with pytest.raises(ValueError, match="option landmark_smoothing takes every_face, mediapipe, off"):
        landmarker(landmark_smoothing="heavy")
    with pytest.raises(ValueError, match="thread_count"):
        landmarker(base_options=mp.tasks.BaseOptions(thread_count=0))
    with pytest.raises(ValueError, match="option num_faces takes a whole number"):
        landmarker(num_faces="two")
    with pytest.raises(ValueError, match="option output_face_blendshapes takes True or False"):
        landmarker(output_face_blendshapes=1)
    with pytest.raises(ValueError):
        vision.FaceLandmarker.create_from_options("not options")


def test_detector_with_the_bundle_takes_every_range_and_the_presence_check():
    """Once refused from Python alone, asking for a Swift property: the full-range detector with
    the presence check, which reads the landmark model from the bundle."""
    for detector_range in ("short", "full", "all"):
        options = vision.FaceDetectorOptions(detector_range=detector_range, min_face_presence_confidence=0.5)
        with vision.FaceDetector.create_from_options(options) as detector:
            faces = detector.detect(mp.Image.create_from_file(ASTRONAUT)).detections
            assert len(faces) == 1 and faces[0].face_presence > 0.5, detector_range


def test_a_detector_file_and_a_range_that_replaces_it_are_refused():
    detector_file = str(ROOT / "Weights" / "face_detection_full_range.tflite")
    options = vision.FaceDetectorOptions(base_options=mp.tasks.BaseOptions(model_asset_path=detector_file), detector_range="all")
    with pytest.raises(ValueError, match="give either model_asset_path or detector_range all, not both"):
        vision.FaceDetector.create_from_options(options)


def test_models(tmp_path):
    with pytest.raises(FileNotFoundError):
        vision.FaceLandmarker.create_from_model_path(str(tmp_path / "missing.task"))
    truncated = tmp_path / "truncated.task"
    truncated.write_bytes(TASK.read_bytes()[:100_000])
    with pytest.raises(RuntimeError):
        vision.FaceLandmarker.create_from_model_path(str(truncated))
    garbage = tmp_path / "garbage.tflite"
    garbage.write_bytes(b"\x00" * 4096)
    with pytest.raises(RuntimeError):
        vision.FaceDetector.create_from_model_path(str(garbage))
    # The model's bytes, as MediaPipe's model_asset_buffer takes them.
    buffer = mp.tasks.BaseOptions(model_asset_buffer=TASK.read_bytes())
    with landmarker(base_options=buffer) as task:
        assert len(task.detect(mp.Image.create_from_file(ASTRONAUT)).face_landmarks) == 1
    with pytest.raises(ValueError, match="only one"):
        landmarker(base_options=mp.tasks.BaseOptions(model_asset_path=str(TASK), model_asset_buffer=b"x"))
    # The official bundle starts 00 00 PK, not PK: the face detector reads it from bytes too.
    assert TASK.read_bytes()[:4] == b"\x00\x00PK"
    with vision.FaceDetector.create_from_options(vision.FaceDetectorOptions(base_options=buffer)) as task:
        assert len(task.detect(mp.Image.create_from_file(ASTRONAUT)).detections) == 1
    full_range = mp.tasks.BaseOptions(model_asset_buffer=(ROOT / "Weights" / "face_detection_full_range.tflite").read_bytes())
    with vision.FaceDetector.create_from_options(vision.FaceDetectorOptions(base_options=full_range)) as task:
        assert len(task.detect(mp.Image.create_from_file(ASTRONAUT)).detections) == 1


def test_options_none_and_not_finite():
    # MediaPipe's options are never None: its conversion raises TypeError; so does Visage's,
    # naming the option. Visage's own optional ones take None for "not set".
    with pytest.raises(TypeError, match="num_faces"):
        landmarker(num_faces=None)
    with pytest.raises(TypeError, match="min_detection_confidence"):
        vision.FaceDetector.create_from_options(vision.FaceDetectorOptions(min_detection_confidence=None))
    with landmarker(landmark_smoothing=None):
        pass
    with vision.FaceDetector.create_from_options(vision.FaceDetectorOptions(min_face_presence_confidence=None)):
        pass
    for value in (float("nan"), float("inf"), -float("inf")):
        with pytest.raises(ValueError, match="min_tracking_confidence"):
            landmarker(min_tracking_confidence=value)
        with pytest.raises(ValueError, match="min_suppression_threshold"):
            vision.FaceDetector.create_from_options(vision.FaceDetectorOptions(min_suppression_threshold=value))


def test_images(tmp_path):
    with pytest.raises(FileNotFoundError):
        mp.Image.create_from_file(str(tmp_path / "missing.png"))
    (tmp_path / "text.png").write_text("not an image")
    # MediaPipe's types: RuntimeError for what cannot be decoded (a folder too).
    with pytest.raises(RuntimeError, match="Failed to load image from file"):
        mp.Image.create_from_file(str(tmp_path / "text.png"))
    with pytest.raises(RuntimeError):
        mp.Image.create_from_file(str(tmp_path))
    truncated = tmp_path / "truncated.png"
    truncated.write_bytes(open(ASTRONAUT, "rb").read()[:5000])
    with pytest.raises(RuntimeError):
        mp.Image.create_from_file(str(truncated))
    with pytest.raises(ValueError, match="uint8"):
        mp.Image(image_format=mp.ImageFormat.SRGB, data=np.zeros((8, 8, 3), np.float32))
    with pytest.raises(ValueError, match="shape"):
        mp.Image(image_format=mp.ImageFormat.SRGB, data=np.zeros((8, 8, 4), np.uint8))
    with pytest.raises(ValueError, match="Unsupported"):
        mp.Image(image_format=mp.ImageFormat.VEC32F1, data=np.zeros((8, 8), np.float32))
    with pytest.raises(ValueError, match="at least one pixel"):
        mp.Image(image_format=mp.ImageFormat.SRGB, data=np.zeros((0, 8, 3), np.uint8))
    with pytest.raises(ValueError):
        mp.Image(image_format=mp.ImageFormat.SRGB, data=[[1, 2, 3]])
    with pytest.raises(ValueError, match="not supported"):
        with vision.FaceDetector.create_from_options(vision.FaceDetectorOptions()) as task:
            task.detect(mp.Image(image_format=mp.ImageFormat.GRAY8, data=np.zeros((40000, 1), np.uint8)))


def test_calls():
    image = mp.Image.create_from_file(ASTRONAUT)
    with landmarker() as task:
        with pytest.raises(ValueError, match="region-of-interest"):
            task.detect(image, vision.ImageProcessingOptions(region_of_interest=mp.tasks.components.containers.Rect(0, 0, 1, 1)))
        with pytest.raises(ValueError, match="multiple of 90"):
            task.detect(image, vision.ImageProcessingOptions(rotation_degrees=45))
        with pytest.raises(ValueError, match="video mode"):
            task.detect_for_video(image, 0)
        with pytest.raises(ValueError, match="takes an Image"):
            task.detect(np.zeros((8, 8, 3), np.uint8))
        assert task.detect(mp.Image(image_format=mp.ImageFormat.SRGB, data=np.zeros((1, 1, 3), np.uint8))).face_landmarks == []
    with pytest.raises(ValueError, match="closed"):
        task.detect(image)
    options = vision.FaceLandmarkerOptions(running_mode=vision.RunningMode.VIDEO)
    with vision.FaceLandmarker.create_from_options(options) as task:
        with pytest.raises(ValueError, match="timestamp"):
            task.detect_for_video(image, 10**18)
        with pytest.raises(ValueError, match="timestamp_ms"):
            task.detect_for_video(image, 1.5)
