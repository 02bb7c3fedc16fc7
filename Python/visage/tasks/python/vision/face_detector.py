"""MediaPipe's Face Detector (`mediapipe.tasks.python.vision.face_detector`) on Visage."""

from __future__ import annotations

import dataclasses
import math
from typing import Callable, List, Literal, Optional

from visage import _native
from visage._native import Field
from visage.tasks.python.components.containers import detections as detections_module
from visage.tasks.python.components.containers.bounding_box import BoundingBox
from visage.tasks.python.components.containers.category import Category
from visage.tasks.python.components.containers.keypoint import NormalizedKeypoint
from visage.tasks.python.core.base_options import BaseOptions
from visage.tasks.python.vision._task import VisionTask
from visage.tasks.python.vision.core.image import Image
from visage.tasks.python.vision.core.image_processing_options import ImageProcessingOptions
from visage.tasks.python.vision.core.vision_task_running_mode import VisionTaskRunningMode as RunningMode


@dataclasses.dataclass
class Detection(detections_module.Detection):
    """A face: MediaPipe's fields, then Visage's `face_presence` (the landmark model's score,
    with `min_face_presence_confidence`) and `rotation_degrees` (the face's in-plane turn from
    its eyes, clockwise; a `FaceRegion` for the landmarker takes it)."""

    face_presence: Optional[float] = None
    rotation_degrees: Optional[float] = None


@dataclasses.dataclass
class FaceDetectorResult(detections_module.DetectionResult):
    """The faces found in one image or frame; `face_tracking_ids` (Visage) with `track_faces`."""

    face_tracking_ids: List[int] = dataclasses.field(default_factory=list)
    # Not a field (no annotation): the engine's own time, for Benchmarks/python_api.py.
    _engine_ms = None


@dataclasses.dataclass
class FaceDetectorOptions:
    """MediaPipe's options, with its names and defaults, then Visage's own.

    Visage's: `detector_range` ("short", the model's; "full", the bundled full-range detector;
    "all", both at every scale, for group photos); `search_any_rotation`; `track_faces`;
    `min_face_presence_confidence` (drop detections the landmark model does not see a face in).
    """

    base_options: BaseOptions = dataclasses.field(default_factory=BaseOptions)
    running_mode: RunningMode = RunningMode.IMAGE
    min_detection_confidence: float = 0.5
    min_suppression_threshold: float = 0.3
    result_callback: Optional[Callable[[FaceDetectorResult, Image, int], None]] = None
    detector_range: Literal["short", "full", "all"] = "short"
    search_any_rotation: bool = False
    track_faces: bool = False
    min_face_presence_confidence: Optional[float] = None


class FaceDetector(VisionTask):
    """Finds faces: boxes, scores and six keypoints; `detect`, `detect_for_video` or
    `detect_async` by running mode. Make one with `create_from_options` or
    `create_from_model_path` (a detector `.tflite` or a face landmarker `.task`); use it as a
    context manager, or call `close()`."""

    _Options = FaceDetectorOptions

    def __init__(self, options: FaceDetectorOptions):
        if not isinstance(options, FaceDetectorOptions):
            raise ValueError(f"options must be FaceDetectorOptions, got {type(options).__name__}")
        configuration = {
            "task": "face_detector",
            "min_detection_confidence": options.min_detection_confidence,
            "min_suppression_threshold": options.min_suppression_threshold,
            "detector_range": options.detector_range,
            "search_any_rotation": options.search_any_rotation,
            "track_faces": options.track_faces,
            "min_face_presence_confidence": options.min_face_presence_confidence,
        }
        self._checks_presence = options.min_face_presence_confidence is not None
        self._tracks = options.track_faces
        super().__init__(configuration, options.base_options, options.running_mode, options.result_callback)

    def detect(self, image: Image, image_processing_options: Optional[ImageProcessingOptions] = None) -> FaceDetectorResult:
        """The faces in one image (image mode)."""
        return self._take(self._run(RunningMode.IMAGE, "detect", image, 0, image_processing_options))

    def detect_for_video(
        self, image: Image, timestamp_ms: int, image_processing_options: Optional[ImageProcessingOptions] = None
    ) -> FaceDetectorResult:
        """The faces in one frame of a video (video mode); timestamps must increase."""
        return self._take(self._run(RunningMode.VIDEO, "detect_for_video", image, timestamp_ms, image_processing_options))

    def detect_async(
        self, image: Image, timestamp_ms: int, image_processing_options: Optional[ImageProcessingOptions] = None
    ) -> None:
        """Hands a live-stream frame over and returns; its result goes to `result_callback`."""
        self._run(RunningMode.LIVE_STREAM, "detect_async", image, timestamp_ms, image_processing_options)

    def _convert(self, table: _native.ResultTable) -> FaceDetectorResult:
        boxes = table.rows(Field.BOXES).tolist()
        categories = table.rows(Field.CATEGORIES).tolist()
        keypoints = table.rows(Field.KEYPOINTS)
        rotations = table.rows(Field.ROTATIONS).tolist()
        # Fields of options left off are not read: each is a call into the engine.
        presences = table.rows(Field.FACE_PRESENCES).tolist() if self._checks_presence else [[math.nan]] * len(boxes)
        ids = table.rows(Field.DETECTION_TRACKING_IDS) if self._tracks else None
        detections = []
        for i, (x, y, w, h) in enumerate(boxes):
            points = keypoints[i].reshape(-1, 3).tolist()
            detections.append(
                Detection(
                    bounding_box=BoundingBox(int(x), int(y), int(w), int(h)),
                    categories=[Category(index=int(categories[i][0]), score=categories[i][1])],
                    keypoints=[NormalizedKeypoint(px, py, None, score) for px, py, score in points],
                    face_presence=None if math.isnan(presences[i][0]) else presences[i][0],
                    rotation_degrees=None if math.isnan(rotations[i][0]) else rotations[i][0],
                )
            )
        return FaceDetectorResult(
            detections=detections, face_tracking_ids=[] if ids is None else [int(v) for v in ids[:, 0]]
        )
