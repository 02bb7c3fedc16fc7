"""The legacy `mp.solutions` API (face_mesh, face_detection), as code that pins
mediapipe<=0.10.21 calls it."""

import numpy as np
import pytest

import visage as mp
from conftest import ASTRONAUT, FIXTURES

mp_face_mesh = mp.solutions.face_mesh
mp_face_detection = mp.solutions.face_detection


def rgb():
    return mp.Image.create_from_file(ASTRONAUT).numpy_view()


def test_face_mesh_static_images():
    with mp_face_mesh.FaceMesh(static_image_mode=True, max_num_faces=1, refine_landmarks=True,
                               min_detection_confidence=0.5) as face_mesh:  # fmt: skip
        results = face_mesh.process(rgb())
    assert len(results.multi_face_landmarks) == 1
    face = results.multi_face_landmarks[0]
    assert len(face.landmark) == 478
    with vision_landmarker() as task:
        tasks_face = task.detect(mp.Image.create_from_file(ASTRONAUT)).face_landmarks[0]
    assert [(p.x, p.y, p.z) for p in face.landmark] == [(p.x, p.y, p.z) for p in tasks_face]
    with mp_face_mesh.FaceMesh(static_image_mode=True) as face_mesh:
        assert len(face_mesh.process(rgb()).multi_face_landmarks[0].landmark) == 468
        assert face_mesh.process(np.zeros((64, 64, 3), np.uint8)).multi_face_landmarks is None


def vision_landmarker():
    return mp.tasks.vision.FaceLandmarker.create_from_options(mp.tasks.vision.FaceLandmarkerOptions())


def test_face_mesh_video():
    frames = sorted((FIXTURES / "landmarker" / "frames" / "pan").glob("*.jpg"))
    with mp_face_mesh.FaceMesh(max_num_faces=1, refine_landmarks=False, min_detection_confidence=0.5,
                               min_tracking_confidence=0.5) as face_mesh:  # fmt: skip
        for path in frames[:8]:
            results = face_mesh.process(mp.Image.create_from_file(str(path)).numpy_view())
            assert len(results.multi_face_landmarks[0].landmark) == 468
        face_mesh.reset()  # a new video: timestamps start again
        assert face_mesh.process(mp.Image.create_from_file(str(frames[0])).numpy_view()).multi_face_landmarks


def test_face_detection():
    for model_selection in (0, 1):
        with mp_face_detection.FaceDetection(model_selection=model_selection, min_detection_confidence=0.5) as fd:
            results = fd.process(rgb())
        assert len(results.detections) == 1
        detection = results.detections[0]
        assert detection.score[0] > 0.5
        box = detection.location_data.relative_bounding_box
        assert 0.3 < box.xmin < 0.4 and 0.1 < box.ymin < 0.2 and 0.1 < box.width < 0.3
        nose = mp_face_detection.get_key_point(detection, mp_face_detection.FaceKeyPoint.NOSE_TIP)
        assert 0.4 < nose.x < 0.45 and 0.2 < nose.y < 0.3
    with mp_face_detection.FaceDetection() as fd:
        assert fd.process(np.zeros((64, 64, 3), np.uint8)).detections is None
        with pytest.raises(ValueError, match="three channel"):
            fd.process(np.zeros((64, 64), np.uint8))
