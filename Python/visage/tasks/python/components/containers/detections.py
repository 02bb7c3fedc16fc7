"""Detections (`mediapipe.tasks.python.components.containers.detections`)."""

import dataclasses
from typing import List, Optional

from visage.tasks.python.components.containers.bounding_box import BoundingBox
from visage.tasks.python.components.containers.category import Category
from visage.tasks.python.components.containers.keypoint import NormalizedKeypoint


@dataclasses.dataclass
class Detection:
    """One face: its box in pixels, its category (index 0, the detector's score) and keypoints."""

    bounding_box: BoundingBox
    categories: List[Category]
    keypoints: Optional[List[NormalizedKeypoint]] = None


@dataclasses.dataclass
class DetectionResult:
    """The detections in one image or frame."""

    detections: List[Detection]
