"""MediaPipe's Face Landmarker (`mediapipe.tasks.python.vision.face_landmarker`) on Visage."""

from __future__ import annotations

import ctypes
import dataclasses
import enum
import itertools
import re
from typing import Callable, List, Literal, Optional, Sequence

import numpy as np

from visage import _native
from visage._native import Field
from visage.tasks.python.components.containers.bounding_box import BoundingBox
from visage.tasks.python.components.containers.category import Category
from visage.tasks.python.components.containers.landmark import Landmark, NormalizedLandmark
from visage.tasks.python.core.base_options import BaseOptions
from visage.tasks.python.vision._task import VisionTask, regions_array
from visage.tasks.python.vision.core.image import Image, ImageFormat
from visage.tasks.python.vision.core.image_processing_options import ImageProcessingOptions
from visage.tasks.python.vision.core.vision_task_running_mode import VisionTaskRunningMode as RunningMode

# The blendshape model's 52 categories, in its output order.
_BLENDSHAPE_CATEGORIES = (
    "_neutral browDownLeft browDownRight browInnerUp browOuterUpLeft browOuterUpRight cheekPuff cheekSquintLeft "
    "cheekSquintRight eyeBlinkLeft eyeBlinkRight eyeLookDownLeft eyeLookDownRight eyeLookInLeft eyeLookInRight "
    "eyeLookOutLeft eyeLookOutRight eyeLookUpLeft eyeLookUpRight eyeSquintLeft eyeSquintRight eyeWideLeft "
    "eyeWideRight jawForward jawLeft jawOpen jawRight mouthClose mouthDimpleLeft mouthDimpleRight mouthFrownLeft "
    "mouthFrownRight mouthFunnel mouthLeft mouthLowerDownLeft mouthLowerDownRight mouthPressLeft mouthPressRight "
    "mouthPucker mouthRight mouthRollLower mouthRollUpper mouthShrugLower mouthShrugUpper mouthSmileLeft "
    "mouthSmileRight mouthStretchLeft mouthStretchRight mouthUpperUpLeft mouthUpperUpRight noseSneerLeft "
    "noseSneerRight"
).split()

#: MediaPipe's `face_landmarker.Blendshapes`: each category's index in `face_blendshapes[i]`
#: (`NEUTRAL` 0, `BROW_DOWN_LEFT` 1, ... `NOSE_SNEER_RIGHT` 51).
Blendshapes = enum.IntEnum(
    "Blendshapes",
    [(re.sub(r"(?<=[a-z])(?=[A-Z])", "_", name.lstrip("_")).upper(), index)
     for index, name in enumerate(_BLENDSHAPE_CATEGORIES)],
    module=__name__,
)


@dataclasses.dataclass
class HeadPose:
    """Visage: a face's Euler angles in degrees, as ML Kit gives them: `x` pitch (up positive),
    `y` yaw, `z` roll."""

    x: float
    y: float
    z: float


@dataclasses.dataclass
class IrisDistances:
    """Visage: each eye's distance from the camera in millimetres, from its iris's size."""

    left: float
    right: float


@dataclasses.dataclass
class FaceScores:
    """Visage: the detector's score for the face (None when it was tracked, not detected) and
    the landmark model's face presence."""

    detection: Optional[float]
    presence: float


@dataclasses.dataclass
class FaceRegion:
    """Visage: a face's box in pixels of the stored image and its in-plane rotation in degrees,
    for `FaceLandmarker.detect(image, face_regions=...)`. A detector's `Detection` serves too."""

    bounding_box: BoundingBox
    rotation_degrees: float = 0.0


@dataclasses.dataclass
class FaceLandmarkerResult:
    """The faces found: 478 landmarks each, and the outputs the options asked for.

    The last five fields are Visage's; each is empty unless its option is on."""

    face_landmarks: List[List[NormalizedLandmark]]
    face_blendshapes: List[List[Category]]
    facial_transformation_matrixes: List[np.ndarray]
    face_head_poses: List[Optional[HeadPose]] = dataclasses.field(default_factory=list)
    face_metric_landmarks: List[Optional[List[Landmark]]] = dataclasses.field(default_factory=list)
    face_iris_distances: List[Optional[IrisDistances]] = dataclasses.field(default_factory=list)
    face_tracking_ids: List[int] = dataclasses.field(default_factory=list)
    face_scores: List[FaceScores] = dataclasses.field(default_factory=list)
    # Not fields (no annotation), so not in `==`, `repr` or `asdict`: the engine's landmark rows
    # (a face a row of 478 x, y, z float32) for `landmarks_array`, and its own time
    # (Benchmarks/python_api.py), set on a result the engine made.
    _rows = None
    _engine_ms = None

    def landmarks_array(self, face: int) -> np.ndarray:
        """Visage: one face's landmarks as a (478, 3) float32 array of x, y, z with no Python
        object read: the engine's values when the engine made this result (changing the objects
        does not change them), else `face_landmarks` read."""
        if self._rows is not None:
            return self._rows[face].reshape(-1, 3).copy()
        return np.asarray([[p.x, p.y, p.z] for p in self.face_landmarks[face]], np.float32)


class FaceLandmarksConnections:
    """The face mesh's connections, in MediaPipe's lists: landmark index pairs to draw lines
    between (`Connection(start, end)`)."""

    @dataclasses.dataclass
    class Connection:
        """A line between two landmarks, by their indices."""

        start: int
        end: int

    FACE_LANDMARKS_LIPS: List[Connection] = []
    FACE_LANDMARKS_LEFT_EYE: List[Connection] = []
    FACE_LANDMARKS_LEFT_EYEBROW: List[Connection] = []
    FACE_LANDMARKS_LEFT_IRIS: List[Connection] = []
    FACE_LANDMARKS_RIGHT_EYE: List[Connection] = []
    FACE_LANDMARKS_RIGHT_EYEBROW: List[Connection] = []
    FACE_LANDMARKS_RIGHT_IRIS: List[Connection] = []
    FACE_LANDMARKS_FACE_OVAL: List[Connection] = []
    FACE_LANDMARKS_NOSE: List[Connection] = []
    FACE_LANDMARKS_CONTOURS: List[Connection] = []
    FACE_LANDMARKS_TESSELATION: List[Connection] = []


# The lists come from the engine's tables, written once, in Swift.
for _attribute, _name in [
    ("LIPS", "lips"), ("LEFT_EYE", "leftEye"), ("LEFT_EYEBROW", "leftEyebrow"), ("LEFT_IRIS", "leftIris"),
    ("RIGHT_EYE", "rightEye"), ("RIGHT_EYEBROW", "rightEyebrow"), ("RIGHT_IRIS", "rightIris"),
    ("FACE_OVAL", "faceOval"), ("NOSE", "nose"), ("CONTOURS", "contours"), ("TESSELATION", "tesselation"),
]:  # fmt: skip
    setattr(
        FaceLandmarksConnections,
        "FACE_LANDMARKS_" + _attribute,
        [FaceLandmarksConnections.Connection(a, b) for a, b in _native.face_connections(_name)],
    )


@dataclasses.dataclass
class FaceLandmarkerOptions:
    """MediaPipe's options, with its names and defaults, then Visage's own.

    Visage's: `output_head_poses`, `output_metric_landmarks`, `output_iris_distances`,
    `output_scores` (extra outputs); `track_faces` (a tracking ID per face); `detector_range`
    ("short", the bundle's detector; "full", the full-range detector for faces far away; "all",
    both at every scale, for group photos); `search_any_rotation` (faces sideways or upside
    down); `landmark_smoothing` ("every_face", the default; "mediapipe"; "off");
    `camera_vertical_field_of_view` (degrees, which matrices, poses, metric landmarks and iris
    distances assume; MediaPipe's 63).
    """

    base_options: BaseOptions = dataclasses.field(default_factory=BaseOptions)
    running_mode: RunningMode = RunningMode.IMAGE
    num_faces: int = 1
    min_face_detection_confidence: float = 0.5
    min_face_presence_confidence: float = 0.5
    min_tracking_confidence: float = 0.5
    output_face_blendshapes: bool = False
    output_facial_transformation_matrixes: bool = False
    result_callback: Optional[Callable[[FaceLandmarkerResult, Image, int], None]] = None
    output_head_poses: bool = False
    output_metric_landmarks: bool = False
    output_iris_distances: bool = False
    output_scores: bool = False
    track_faces: bool = False
    detector_range: Literal["short", "full", "all"] = "short"
    search_any_rotation: bool = False
    landmark_smoothing: Optional[Literal["every_face", "mediapipe", "off"]] = None
    camera_vertical_field_of_view: float = 63.0


def _points(row: np.ndarray, kind: type) -> list:
    # starmap over tolist(): the quickest way to make MediaPipe's 478 objects per face.
    return list(itertools.starmap(kind, row.reshape(-1, 3).tolist()))


def _normalized_points(row: np.ndarray) -> list:
    return _points(row, NormalizedLandmark)


def _categories(row: np.ndarray) -> list:
    names = FaceLandmarker._names
    return [Category(i, score, None, names[i]) for i, score in enumerate(row.tolist())]


def _optional_rows(rows: Optional[np.ndarray], make: Callable) -> list:
    if rows is None:
        return []
    return [None if np.isnan(row).all() else make(row) for row in rows]


class FaceLandmarker(VisionTask):
    """Finds faces and their 478 landmarks; `detect`, `detect_for_video` or `detect_async` by
    running mode. Make one with `create_from_options` or `create_from_model_path` (a `.task`
    bundle); use it as a context manager, or call `close()`."""

    _Options = FaceLandmarkerOptions

    _names: Optional[List[str]] = None

    def __init__(self, options: FaceLandmarkerOptions):
        if not isinstance(options, FaceLandmarkerOptions):
            raise ValueError(f"options must be FaceLandmarkerOptions, got {type(options).__name__}")
        configuration = {
            "task": "face_landmarker",
            "num_faces": options.num_faces,
            "min_face_detection_confidence": options.min_face_detection_confidence,
            "min_face_presence_confidence": options.min_face_presence_confidence,
            "min_tracking_confidence": options.min_tracking_confidence,
            "output_face_blendshapes": options.output_face_blendshapes,
            "output_facial_transformation_matrixes": options.output_facial_transformation_matrixes,
            "output_head_poses": options.output_head_poses,
            "output_metric_landmarks": options.output_metric_landmarks,
            "output_iris_distances": options.output_iris_distances,
            "output_scores": options.output_scores,
            "track_faces": options.track_faces,
            "detector_range": options.detector_range,
            "search_any_rotation": options.search_any_rotation,
            "landmark_smoothing": options.landmark_smoothing,
            "camera_vertical_field_of_view": options.camera_vertical_field_of_view,
        }
        # The outputs asked for: the result reads only those fields.
        self._outputs = dataclasses.replace(options, result_callback=None)
        super().__init__(configuration, options.base_options, options.running_mode, options.result_callback)

    def detect(
        self,
        image: Image,
        image_processing_options: Optional[ImageProcessingOptions] = None,
        face_regions: Optional[Sequence[FaceRegion]] = None,
    ) -> FaceLandmarkerResult:
        """The faces in one image (image mode). With `face_regions` (Visage: `FaceRegion`s or a
        detector's detections), the landmarks of those faces, with no detector run."""
        table = self._run(RunningMode.IMAGE, "detect", image, 0, image_processing_options, regions_array(face_regions))
        return self._take(table)

    def detect_for_video(
        self, image: Image, timestamp_ms: int, image_processing_options: Optional[ImageProcessingOptions] = None
    ) -> FaceLandmarkerResult:
        """The faces in one frame of a video (video mode); timestamps must increase."""
        table = self._run(RunningMode.VIDEO, "detect_for_video", image, timestamp_ms, image_processing_options)
        return self._take(table)

    def detect_async(
        self, image: Image, timestamp_ms: int, image_processing_options: Optional[ImageProcessingOptions] = None
    ) -> None:
        """Hands a live-stream frame over and returns; its result goes to `result_callback`
        (on another thread), unless a newer frame replaces it first."""
        self._run(RunningMode.LIVE_STREAM, "detect_async", image, timestamp_ms, image_processing_options)

    def _convert(self, table: _native.ResultTable) -> FaceLandmarkerResult:
        # Every object is made here, as MediaPipe makes them: 478 landmarks and 52 categories a
        # face cost about 0.1 ms (docs/python.md); `landmarks_array` skips them.
        rows = table.rows(Field.LANDMARKS)
        blendshapes = table.rows(Field.BLENDSHAPES)
        if blendshapes is not None and len(blendshapes) and FaceLandmarker._names is None:
            FaceLandmarker._names = table.names()
        outputs = self._outputs
        matrices = table.rows(Field.MATRICES) if outputs.output_facial_transformation_matrixes else None
        ids = table.rows(Field.TRACKING_IDS) if outputs.track_faces else None
        scores = table.rows(Field.SCORES) if outputs.output_scores else None

        def extra(wanted: bool, field: Field, make: Callable) -> list:
            return _optional_rows(table.rows(field), make) if wanted else []

        result = FaceLandmarkerResult(
            face_landmarks=[_normalized_points(row) for row in rows],
            face_blendshapes=[] if blendshapes is None else [_categories(row) for row in blendshapes],
            facial_transformation_matrixes=[] if matrices is None else [row.reshape(4, 4).copy() for row in matrices],
            face_head_poses=extra(outputs.output_head_poses, Field.HEAD_POSES, lambda r: HeadPose(*r.tolist())),
            face_metric_landmarks=extra(outputs.output_metric_landmarks, Field.METRIC_LANDMARKS, lambda r: _points(r, Landmark)),
            face_iris_distances=extra(outputs.output_iris_distances, Field.IRIS_DISTANCES, lambda r: IrisDistances(*r.tolist())),
            face_tracking_ids=[] if ids is None else [int(v) for v in ids[:, 0]],
            face_scores=[] if scores is None else [FaceScores(None if np.isnan(d) else d, p) for d, p in scores.tolist()],
        )
        result._rows = rows
        return result


def aligned_face_crop(image: Image, landmarks: Sequence[NormalizedLandmark], size: int = 112, margin: float = 0.0) -> Image:
    """Visage: a `size` × `size` SRGB crop of one face, turned and scaled so that its eyes, nose
    and mouth corners sit where face-recognition models expect them (ArcFace's five points),
    with room `margin` (a fraction of the template's size) on each side."""
    if not isinstance(image, Image):
        raise ValueError(f"aligned_face_crop takes an Image, got {type(image).__name__}")
    points = np.asarray([[p.x, p.y, p.z or 0.0] for p in landmarks], dtype=np.float32).reshape(-1, 3)
    pixels, _kept = _native.image(image._data)
    out, error = ctypes.c_void_p(), ctypes.c_void_p()
    status = _native.lib.visage_face_crop(
        ctypes.byref(pixels), points.ctypes.data_as(ctypes.POINTER(ctypes.c_float)), len(points), int(size),
        float(margin), ctypes.byref(out), ctypes.byref(error),
    )  # fmt: skip
    _native.check(status, error)
    try:
        pixels = np.frombuffer(ctypes.string_at(out.value, int(size) * int(size) * 3), dtype=np.uint8)
    finally:
        _native.lib.visage_free(out.value)
    return Image(ImageFormat.SRGB, pixels.reshape(int(size), int(size), 3), copy=False)
