"""The legacy `mediapipe.solutions.face_detection` API (removed from MediaPipe in 0.10.30), on
the Tasks detectors. docs/python.md says where its numbers differ from the legacy models'."""

from __future__ import annotations

import enum
from typing import Optional

from visage.solutions._legacy import (
    Detection,
    LocationData,
    RelativeBoundingBox,
    RelativeKeypoint,
    SolutionOutputs,
    rgb_image,
)
from visage.tasks.python.vision.face_detector import FaceDetector, FaceDetectorOptions


class FaceKeyPoint(enum.IntEnum):
    """The six keypoints' places in `relative_keypoints` (the person's right and left)."""

    RIGHT_EYE = 0
    LEFT_EYE = 1
    NOSE_TIP = 2
    MOUTH_CENTER = 3
    RIGHT_EAR_TRAGION = 4
    LEFT_EAR_TRAGION = 5


def get_key_point(detection: Detection, key_point_enum: FaceKeyPoint) -> Optional[RelativeKeypoint]:
    """One keypoint of a detection, or None when it has no keypoints."""
    if not detection or not detection.location_data:
        return None
    return detection.location_data.relative_keypoints[key_point_enum]


class FaceDetection:
    """Faces in an RGB array: `model_selection` 0 is the short-range model (faces within about
    2 m), 1 the full-range one (up to about 5 m)."""

    def __init__(self, min_detection_confidence: float = 0.5, model_selection: int = 0):
        if model_selection not in (0, 1):
            raise ValueError(f"model_selection must be 0 or 1, got {model_selection}")
        self._detector = FaceDetector.create_from_options(
            FaceDetectorOptions(
                min_detection_confidence=min_detection_confidence,
                detector_range="short" if model_selection == 0 else "full",
            )
        )

    def process(self, image) -> SolutionOutputs:
        """The faces in `image`, an RGB uint8 array (height, width, 3): `detections`, None when
        there is none."""
        frame = rgb_image(image)
        width, height = frame.width, frame.height
        found = []
        for face in self._detector.detect(frame).detections:
            box = face.bounding_box
            found.append(
                Detection(
                    label_id=[0],
                    score=[face.categories[0].score],
                    location_data=LocationData(
                        relative_bounding_box=RelativeBoundingBox(
                            box.origin_x / width, box.origin_y / height, box.width / width, box.height / height
                        ),
                        relative_keypoints=[RelativeKeypoint(p.x, p.y) for p in face.keypoints or []],
                    ),
                )
            )
        return SolutionOutputs(detections=found or None)

    def close(self) -> None:
        """Releases the detector; `process` raises ValueError after."""
        self._detector.close()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        self.close()
