"""Landmarks, under MediaPipe's names (`mediapipe.tasks.python.components.containers.landmark`)."""

import dataclasses
from typing import Optional


@dataclasses.dataclass
class NormalizedLandmark:
    """A point of a face in normalized image coordinates: `x` and `y` in 0...1 across the image,
    `z` the depth at about the same scale as `x` (smaller is nearer the camera).

    `visibility` and `presence` stay None for faces, as in MediaPipe."""

    x: Optional[float] = None
    y: Optional[float] = None
    z: Optional[float] = None
    visibility: Optional[float] = None
    presence: Optional[float] = None
    name: Optional[str] = None


@dataclasses.dataclass
class Landmark:
    """A point in world coordinates (Visage's metric mesh: centimetres, camera at the origin)."""

    x: Optional[float] = None
    y: Optional[float] = None
    z: Optional[float] = None
    visibility: Optional[float] = None
    presence: Optional[float] = None
    name: Optional[str] = None
