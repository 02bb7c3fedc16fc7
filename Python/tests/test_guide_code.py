"""MediaPipe's Python guides' code (Face Landmarker and Face Detector, developers.google.com,
"Python" pages), as the guides write it, with only the import changed."""

import threading

import numpy as np
import pytest

import visage as mp
from conftest import ASTRONAUT, FIXTURES


def test_face_landmarker_guide_image_mode():
    from visage.tasks import python
    from visage.tasks.python import vision

    base_options = python.BaseOptions(model_asset_path=str(FIXTURES.parent.parent / "Weights" / "face_landmarker.task"))
    options = vision.FaceLandmarkerOptions(
        base_options=base_options, output_face_blendshapes=True, output_facial_transformation_matrixes=True, num_faces=1
    )
    detector = vision.FaceLandmarker.create_from_options(options)
    image = mp.Image.create_from_file(ASTRONAUT)
    detection_result = detector.detect(image)

    assert len(detection_result.face_landmarks) == 1
    assert len(detection_result.face_landmarks[0]) == 478
    face_blendshapes_names = [c.category_name for c in detection_result.face_blendshapes[0]]
    face_blendshapes_scores = [c.score for c in detection_result.face_blendshapes[0]]
    assert face_blendshapes_names[:2] == ["_neutral", "browDownLeft"] and len(face_blendshapes_scores) == 52
    assert detection_result.facial_transformation_matrixes[0].shape == (4, 4)


def test_face_landmarker_guide_running_modes():
    BaseOptions = mp.tasks.BaseOptions
    FaceLandmarker = mp.tasks.vision.FaceLandmarker
    FaceLandmarkerOptions = mp.tasks.vision.FaceLandmarkerOptions
    FaceLandmarkerResult = mp.tasks.vision.FaceLandmarkerResult
    VisionRunningMode = mp.tasks.vision.RunningMode
    model_path = str(FIXTURES.parent.parent / "Weights" / "face_landmarker.task")
    numpy_image = mp.Image.create_from_file(ASTRONAUT).numpy_view()

    # Image mode.
    options = FaceLandmarkerOptions(base_options=BaseOptions(model_asset_path=model_path), running_mode=VisionRunningMode.IMAGE)
    with FaceLandmarker.create_from_options(options) as landmarker:
        mp_image = mp.Image(image_format=mp.ImageFormat.SRGB, data=numpy_image)
        face_landmarker_result = landmarker.detect(mp_image)
    assert len(face_landmarker_result.face_landmarks) == 1

    # Video mode.
    options = FaceLandmarkerOptions(base_options=BaseOptions(model_asset_path=model_path), running_mode=VisionRunningMode.VIDEO)
    with FaceLandmarker.create_from_options(options) as landmarker:
        for frame_timestamp_ms in (0, 33, 67):
            mp_image = mp.Image(image_format=mp.ImageFormat.SRGB, data=numpy_image)
            face_landmarker_result = landmarker.detect_for_video(mp_image, frame_timestamp_ms)
            assert len(face_landmarker_result.face_landmarks) == 1

    # Live stream mode.
    delivered = []
    done = threading.Event()

    def print_result(result: FaceLandmarkerResult, output_image: mp.Image, timestamp_ms: int):
        delivered.append((result, output_image, timestamp_ms))
        done.set()

    options = FaceLandmarkerOptions(
        base_options=BaseOptions(model_asset_path=model_path),
        running_mode=VisionRunningMode.LIVE_STREAM,
        result_callback=print_result,
    )
    with FaceLandmarker.create_from_options(options) as landmarker:
        mp_image = mp.Image(image_format=mp.ImageFormat.SRGB, data=numpy_image)
        landmarker.detect_async(mp_image, 0)
        assert done.wait(30)
    result, output_image, timestamp_ms = delivered[0]
    assert timestamp_ms == 0 and output_image is mp_image and len(result.face_landmarks[0]) == 478


def test_face_detector_guide_running_modes():
    BaseOptions = mp.tasks.BaseOptions
    FaceDetector = mp.tasks.vision.FaceDetector
    FaceDetectorOptions = mp.tasks.vision.FaceDetectorOptions
    FaceDetectorResult = mp.tasks.vision.FaceDetectorResult
    VisionRunningMode = mp.tasks.vision.RunningMode
    model_path = str(FIXTURES.parent.parent / "Weights" / "face_landmarker.task")

    options = FaceDetectorOptions(base_options=BaseOptions(model_asset_path=model_path), running_mode=VisionRunningMode.IMAGE)
    with FaceDetector.create_from_options(options) as detector:
        mp_image = mp.Image.create_from_file(ASTRONAUT)
        face_detector_result = detector.detect(mp_image)
    detection = face_detector_result.detections[0]
    assert (detection.bounding_box.origin_x, detection.bounding_box.width) == (177, 95)
    assert len(detection.keypoints) == 6 and detection.categories[0].score > 0.9

    options = FaceDetectorOptions(base_options=BaseOptions(model_asset_path=model_path), running_mode=VisionRunningMode.VIDEO)
    with FaceDetector.create_from_options(options) as detector:
        assert len(detector.detect_for_video(mp_image, 0).detections) == 1

    results = []
    done = threading.Event()

    def print_result(result: FaceDetectorResult, output_image: mp.Image, timestamp_ms: int):
        results.append(result)
        done.set()

    options = FaceDetectorOptions(
        base_options=BaseOptions(model_asset_path=model_path),
        running_mode=VisionRunningMode.LIVE_STREAM,
        result_callback=print_result,
    )
    with FaceDetector.create_from_options(options) as detector:
        detector.detect_async(mp_image, 0)
        assert done.wait(30)
    assert results[0].detections[0].bounding_box == detection.bounding_box


def test_bundled_model_needs_no_path():
    with mp.tasks.vision.FaceLandmarker.create_from_options(mp.tasks.vision.FaceLandmarkerOptions()) as landmarker:
        assert len(landmarker.detect(mp.Image.create_from_file(ASTRONAUT)).face_landmarks) == 1
    with mp.tasks.vision.FaceDetector.create_from_options(mp.tasks.vision.FaceDetectorOptions()) as detector:
        assert len(detector.detect(mp.Image.create_from_file(ASTRONAUT)).detections) == 1


def test_image():
    image = mp.Image.create_from_file(ASTRONAUT)
    assert (image.width, image.height, image.channels, image.image_format) == (512, 512, 3, mp.ImageFormat.SRGB)
    view = image.numpy_view()
    assert view.shape == (512, 512, 3) and view.dtype == np.uint8 and not view.flags.writeable
    rgba = np.dstack([view, np.full((512, 512, 1), 255, np.uint8)])
    gray = view[:, :, 1].copy()
    with mp.tasks.vision.FaceDetector.create_from_options(mp.tasks.vision.FaceDetectorOptions()) as detector:
        base = detector.detect(image).detections[0]
        assert detector.detect(mp.Image(image_format=mp.ImageFormat.SRGBA, data=rgba)).detections[0] == base
        assert len(detector.detect(mp.Image(image_format=mp.ImageFormat.GRAY8, data=gray)).detections) == 1
        # A view with padded rows gives the same answer copied (MediaPipe's way) and read in
        # place (copy=False).
        wide = np.zeros((512, 600, 3), np.uint8)
        wide[:, :512] = view
        assert detector.detect(mp.Image(image_format=mp.ImageFormat.SRGB, data=wide[:, :512])).detections[0] == base
        in_place = mp.Image(image_format=mp.ImageFormat.SRGB, data=wide[:, :512], copy=False)
        assert not in_place.is_contiguous() and in_place.step == 1800
        assert detector.detect(in_place).detections[0] == base


def test_image_as_mediapipes():
    """MediaPipe's Image: the array copied at construction, (height, width, channels) views,
    pixel indexing, and its other names."""
    photo = mp.Image.create_from_file(ASTRONAUT).numpy_view().copy()
    array = photo.copy()
    image = mp.Image(image_format=mp.ImageFormat.SRGB, data=array)
    array[:] = 0
    assert np.array_equal(image.numpy_view(), photo)
    kept = mp.Image(image_format=mp.ImageFormat.SRGB, data=array, copy=False)
    array[:] = 7
    assert kept.numpy_view().max() == 7
    gray = mp.Image(image_format=mp.ImageFormat.GRAY8, data=photo[:, :, 1].copy())
    assert gray.numpy_view().shape == (512, 512, 1) and gray.channels == 1
    assert gray[10, 20] == gray[10, 20, 0] == photo[10, 20, 1]
    assert image[3, 4, 2] == photo[3, 4, 2] and isinstance(image[3, 4, 2], int)
    for key in [(512, 0, 0), (0, 0, 3), (-1, 0, 0), (0, 0), (0.5, 0, 0)]:
        with pytest.raises(IndexError):
            image[key]
    assert image.step == 512 * 3 and image.is_contiguous() and not image.is_empty() and not image.uses_gpu()
    assert image.is_aligned(1)
    with pytest.raises(ValueError, match="power of 2"):
        image.is_aligned(3)
    assert mp.tasks.components.containers.rect.RectF(0.1, 0.2, 0.3, 0.4).right == 0.3
    # Blendshapes index face_blendshapes[i] by category.
    blendshapes = mp.tasks.vision.face_landmarker.Blendshapes
    assert len(blendshapes) == 52 and blendshapes.NEUTRAL == 0 and blendshapes.NOSE_SNEER_RIGHT == 51
    options = mp.tasks.vision.FaceLandmarkerOptions(output_face_blendshapes=True)
    with mp.tasks.vision.FaceLandmarker.create_from_options(options) as landmarker:
        categories = landmarker.detect(image).face_blendshapes[0]
    assert len(categories) == 52
    assert categories[blendshapes.JAW_OPEN].category_name == "jawOpen"
    assert categories[blendshapes.MOUTH_SMILE_LEFT].category_name == "mouthSmileLeft"
    assert all(categories[b].index == b for b in blendshapes)


def draw_landmarks_on_image(rgb_image, detection_result):
    """The Face Landmarker guide's drawing code, as it is written there."""
    from visage.tasks.python import vision
    from visage.tasks.python.vision import drawing_styles, drawing_utils

    face_landmarks_list = detection_result.face_landmarks
    annotated_image = np.copy(rgb_image)
    for idx in range(len(face_landmarks_list)):
        face_landmarks = face_landmarks_list[idx]
        drawing_utils.draw_landmarks(
            image=annotated_image,
            landmark_list=face_landmarks,
            connections=vision.FaceLandmarksConnections.FACE_LANDMARKS_TESSELATION,
            landmark_drawing_spec=None,
            connection_drawing_spec=drawing_styles.get_default_face_mesh_tesselation_style())
        drawing_utils.draw_landmarks(
            image=annotated_image,
            landmark_list=face_landmarks,
            connections=vision.FaceLandmarksConnections.FACE_LANDMARKS_CONTOURS,
            landmark_drawing_spec=None,
            connection_drawing_spec=drawing_styles.get_default_face_mesh_contours_style())
        drawing_utils.draw_landmarks(
            image=annotated_image,
            landmark_list=face_landmarks,
            connections=vision.FaceLandmarksConnections.FACE_LANDMARKS_LEFT_IRIS,
            landmark_drawing_spec=None,
            connection_drawing_spec=drawing_styles.get_default_face_mesh_iris_connections_style())
        drawing_utils.draw_landmarks(
            image=annotated_image,
            landmark_list=face_landmarks,
            connections=vision.FaceLandmarksConnections.FACE_LANDMARKS_RIGHT_IRIS,
            landmark_drawing_spec=None,
            connection_drawing_spec=drawing_styles.get_default_face_mesh_iris_connections_style())
    return annotated_image


def test_guide_drawing_code(tmp_path):
    """The guide's drawing code runs and draws the mesh on the face, in MediaPipe's colors, and
    nowhere else; `draw_detection` draws the box and keypoints. VISAGE_DRAWING_OUT=folder keeps
    the pictures (to look at them beside MediaPipe's)."""
    import os
    from pathlib import Path

    from conftest import write_png

    image = mp.Image.create_from_file(ASTRONAUT)
    with mp.tasks.vision.FaceLandmarker.create_from_options(mp.tasks.vision.FaceLandmarkerOptions()) as landmarker:
        result = landmarker.detect(image)
    with mp.tasks.vision.FaceDetector.create_from_options(mp.tasks.vision.FaceDetectorOptions()) as detector:
        detection = detector.detect(image).detections[0]
    annotated = draw_landmarks_on_image(image.numpy_view(), result)
    changed = (annotated != image.numpy_view()).any(axis=2)
    ys, xs = np.nonzero(changed)
    points = np.asarray([[p.x * 512, p.y * 512] for p in result.face_landmarks[0]])
    assert changed.sum() > 5000
    assert xs.min() >= points[:, 0].min() - 3 and xs.max() <= points[:, 0].max() + 3
    assert ys.min() >= points[:, 1].min() - 3 and ys.max() <= points[:, 1].max() + 3
    colors = {tuple(c) for c in annotated[changed].tolist()}
    for color in [(128, 128, 128), (224, 224, 224), (48, 255, 48), (48, 48, 255)]:
        assert color in colors, color
    boxed = np.copy(image.numpy_view())
    mp.tasks.vision.drawing_utils.draw_detection(boxed, detection)
    box = detection.bounding_box
    assert tuple(boxed[box.origin_y, box.origin_x + box.width // 2]) == (224, 224, 224)
    assert sum(tuple(c) == (0, 0, 255) for c in boxed.reshape(-1, 3).tolist()) > 6
    with pytest.raises(ValueError, match="three channel"):
        mp.tasks.vision.drawing_utils.draw_landmarks(np.zeros((8, 8), np.uint8), result.face_landmarks[0])
    out = os.environ.get("VISAGE_DRAWING_OUT")
    if out:
        write_png(Path(out) / "visage_face_mesh.png", annotated)
        write_png(Path(out) / "visage_detection.png", boxed)
