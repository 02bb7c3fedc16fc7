"""The shapes of the legacy solutions' results: protobuf messages in MediaPipe, plain classes
here with the same attribute names (`landmark`, `score`, `location_data`, ...)."""

from __future__ import annotations

import dataclasses
from typing import List, NamedTuple, Optional

import numpy as np

from visage.tasks.python.vision.core.image import Image, ImageFormat


@dataclasses.dataclass
class NormalizedLandmark:
    """A point of the face mesh in normalized image coordinates."""

    x: float = 0.0
    y: float = 0.0
    z: float = 0.0
    visibility: float = 0.0
    presence: float = 0.0


@dataclasses.dataclass
class NormalizedLandmarkList:
    """One face's landmarks: `landmark[i].x`, as `landmark_pb2.NormalizedLandmarkList`."""

    landmark: List[NormalizedLandmark] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class RelativeBoundingBox:
    """A box in fractions of the image's width and height."""

    xmin: float = 0.0
    ymin: float = 0.0
    width: float = 0.0
    height: float = 0.0


@dataclasses.dataclass
class RelativeKeypoint:
    """A keypoint in fractions of the image's width and height."""

    x: float = 0.0
    y: float = 0.0
    keypoint_label: str = ""
    score: float = 0.0


@dataclasses.dataclass
class LocationData:
    """Where a detection is: its relative box and keypoints."""

    format: str = "RELATIVE_BOUNDING_BOX"
    relative_bounding_box: RelativeBoundingBox = dataclasses.field(default_factory=RelativeBoundingBox)
    relative_keypoints: List[RelativeKeypoint] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Detection:
    """A face, as `detection_pb2.Detection`: `score[0]`, `label_id[0]`,
    `location_data.relative_bounding_box`, `location_data.relative_keypoints`."""

    label: List[str] = dataclasses.field(default_factory=list)
    label_id: List[int] = dataclasses.field(default_factory=list)
    score: List[float] = dataclasses.field(default_factory=list)
    location_data: LocationData = dataclasses.field(default_factory=LocationData)


class SolutionOutputs(NamedTuple):
    """What `process` returns; the solution fills its own field, the others stay None."""

    multi_face_landmarks: Optional[List[NormalizedLandmarkList]] = None
    detections: Optional[List[Detection]] = None


def rgb_image(image: np.ndarray) -> Image:
    """The legacy API's input: an RGB uint8 array of shape (height, width, 3)."""
    if not isinstance(image, np.ndarray) or image.ndim != 3 or image.shape[2] != 3:
        raise ValueError("Input image must contain three channel rgb data.")
    # Read at once, in the same call: no copy needed.
    return Image(ImageFormat.SRGB, image, copy=False)
