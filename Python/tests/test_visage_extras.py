"""Visage's own outputs and options beyond MediaPipe's, and the result objects' behaviour."""

import copy
import dataclasses
import pickle

import numpy as np

import visage as mp
from conftest import ASTRONAUT, FIXTURES

vision = mp.tasks.vision


def test_results_behave_as_dataclasses():
    with vision.FaceLandmarker.create_from_options(vision.FaceLandmarkerOptions(output_face_blendshapes=True)) as task:
        image = mp.Image.create_from_file(ASTRONAUT)
        first, second = task.detect(image), task.detect(image)
    # Plain dataclasses of MediaPipe's fields: equality, pickling, copying, asdict and repr.
    array = first.landmarks_array(0)
    assert array.shape == (478, 3) and array.dtype == np.float32
    assert first == second and pickle.loads(pickle.dumps(second)) == first and copy.deepcopy(first) == first
    as_dict = dataclasses.asdict(first)
    assert [f.name for f in dataclasses.fields(first)][:3] == list(as_dict)[:3] == [
        "face_landmarks", "face_blendshapes", "facial_transformation_matrixes"]
    assert not any(name.startswith("_") for name in as_dict)
    assert len(as_dict["face_landmarks"][0]) == 478 and as_dict["face_blendshapes"][0][1]["category_name"] == "browDownLeft"
    assert [[p.x, p.y, p.z] for p in first.face_landmarks[0]] == array.tolist()
    assert "face_landmarks=[[NormalizedLandmark(x=" in repr(first)
    first.face_landmarks[0][0].x = 2.0  # the objects are the user's to change;
    assert first.face_landmarks[0][0].x == 2.0 and first.landmarks_array(0)[0, 0] == array[0, 0]  # the engine's stay
    made = vision.FaceLandmarkerResult(first.face_landmarks, first.face_blendshapes, [])
    assert made.landmarks_array(0)[0, 0] == 2.0  # a result made by hand is read from its objects


def test_extra_outputs():
    options = vision.FaceLandmarkerOptions(
        output_head_poses=True, output_metric_landmarks=True, output_iris_distances=True, output_scores=True,
        track_faces=True,
    )  # fmt: skip
    with vision.FaceLandmarker.create_from_options(options) as task:
        result = task.detect(mp.Image.create_from_file(ASTRONAUT))
    pose = result.face_head_poses[0]
    assert -20 < pose.x < 0 and abs(pose.y) < 10 and abs(pose.z) < 10
    assert len(result.face_metric_landmarks[0]) == 468
    assert 300 < result.face_iris_distances[0].left < 1000
    assert result.face_scores[0].detection > 0.9 and result.face_scores[0].presence > 0.9
    assert result.face_tracking_ids == [1]


def test_face_regions_and_crops():
    image = mp.Image.create_from_file(ASTRONAUT)
    with vision.FaceDetector.create_from_options(vision.FaceDetectorOptions()) as detector:
        detections = detector.detect(image).detections
    with vision.FaceLandmarker.create_from_options(vision.FaceLandmarkerOptions()) as task:
        found = task.detect(image)
        # A detector's detections serve as regions: landmarks with no detector run.
        given = task.detect(image, face_regions=detections)
        by_box = task.detect(image, face_regions=[vision.FaceRegion(detections[0].bounding_box, detections[0].rotation_degrees)])
    assert given == by_box
    assert np.abs(given.landmarks_array(0) - found.landmarks_array(0))[:, :2].max() < 0.01
    crop = vision.aligned_face_crop(image, found.face_landmarks[0], size=112)
    assert (crop.width, crop.height, crop.image_format) == (112, 112, mp.ImageFormat.SRGB)
    assert crop.numpy_view().mean() > 40  # a face, not black


def test_any_rotation_and_threads():
    upside_down = np.ascontiguousarray(mp.Image.create_from_file(ASTRONAUT).numpy_view()[::-1, ::-1])
    image = mp.Image(image_format=mp.ImageFormat.SRGB, data=upside_down)
    # Upright only, the detector half sees the upside-down face (score 0.65, its eyes read as
    # turned 35°); searching every quarter turn finds it upside down (0.93, about -168°).
    with vision.FaceDetector.create_from_options(vision.FaceDetectorOptions()) as plain:
        upright = plain.detect(image).detections[0]
    with vision.FaceDetector.create_from_options(vision.FaceDetectorOptions(search_any_rotation=True)) as turned:
        found = turned.detect(image).detections
    assert len(found) == 1 and found[0].categories[0].score > upright.categories[0].score + 0.2
    assert abs(found[0].rotation_degrees) > 150
    photo = mp.Image.create_from_file(str(FIXTURES / "crowd" / "crowd_00.jpg"))
    options = [vision.FaceDetectorOptions(detector_range="all", base_options=mp.tasks.BaseOptions(thread_count=n)) for n in (1, 2)]
    results = []
    for option in options:
        with vision.FaceDetector.create_from_options(option) as task:
            results.append(task.detect(photo))
    assert results[0] == results[1] and len(results[0].detections) >= 4
