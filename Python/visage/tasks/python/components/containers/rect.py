"""Rectangles (`mediapipe.tasks.python.components.containers.rect`)."""

import dataclasses
from typing import Optional


@dataclasses.dataclass
class Rect:
    """A rectangle by its edges, in normalized image coordinates for a region of interest."""

    left: float
    top: float
    right: float
    bottom: float


@dataclasses.dataclass
class RectF:
    """A rectangle by its edges, in float coordinates (MediaPipe's name for the float kind)."""

    left: float
    top: float
    right: float
    bottom: float


@dataclasses.dataclass
class NormalizedRect:
    """A rectangle by its centre and size in normalized coordinates, turned by `rotation` radians."""

    x_center: float
    y_center: float
    width: float
    height: float
    rotation: float = 0.0
    rect_id: Optional[int] = None
