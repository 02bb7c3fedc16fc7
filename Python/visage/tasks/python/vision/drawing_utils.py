"""Drawing landmarks and detections on an image (`mediapipe.tasks.python.vision.drawing_utils`).

MediaPipe draws with OpenCV; this package has numpy only, so lines and circles are rasterized
here: a pixel is painted when its centre lies within half the thickness of the segment (lines
with round ends, as OpenCV's thick lines have), or within the circle. The pictures look as
MediaPipe's do; they are not equal pixel for pixel. Colors are written as given (MediaPipe's
styles are BGR triples, as OpenCV expects, and the guides draw them on RGB arrays all the same).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

WHITE_COLOR = (224, 224, 224)
BLACK_COLOR = (0, 0, 0)
RED_COLOR = (0, 0, 255)
GREEN_COLOR = (0, 128, 0)
BLUE_COLOR = (255, 0, 0)

_PRESENCE_THRESHOLD = 0.5
_VISIBILITY_THRESHOLD = 0.5


@dataclasses.dataclass
class DrawingSpec:
    """How to draw: a color, a line thickness (negative fills circles), a circle radius."""

    color: Tuple[int, int, int] = WHITE_COLOR
    thickness: int = 2
    circle_radius: int = 2


def _pixel(x: float, y: float, width: int, height: int) -> Optional[Tuple[int, int]]:
    """A normalized point's pixel, or None outside the image (as MediaPipe skips those)."""
    inside = [(v > 0 or math.isclose(0, v)) and (v < 1 or math.isclose(1, v)) for v in (x, y)]
    if not all(inside):
        return None
    return min(math.floor(x * width), width - 1), min(math.floor(y * height), height - 1)


def _paint(image: np.ndarray, box: Tuple[float, float, float, float], inside, color) -> None:
    """Paints the pixels of `box` (x0, y0, x1, y1, clipped to the image) whose centres
    `inside(xs, ys)` accepts."""
    height, width = image.shape[:2]
    x0, y0 = max(int(math.floor(box[0])), 0), max(int(math.floor(box[1])), 0)
    x1, y1 = min(int(math.ceil(box[2])), width - 1), min(int(math.ceil(box[3])), height - 1)
    if x0 > x1 or y0 > y1:
        return
    ys, xs = np.mgrid[y0 : y1 + 1, x0 : x1 + 1]
    image[y0 : y1 + 1, x0 : x1 + 1][inside(xs, ys)] = color[: image.shape[2]]


def _line(image: np.ndarray, start, end, color, thickness: int) -> None:
    r = max(thickness, 1) / 2
    (px, py), (qx, qy) = start, end
    dx, dy = qx - px, qy - py
    length2 = dx * dx + dy * dy

    def inside(xs, ys):
        t = np.clip(((xs - px) * dx + (ys - py) * dy) / length2, 0, 1) if length2 else 0
        return (xs - px - t * dx) ** 2 + (ys - py - t * dy) ** 2 <= r * r

    _paint(image, (min(px, qx) - r, min(py, qy) - r, max(px, qx) + r, max(py, qy) + r), inside, color)


def _circle(image: np.ndarray, center, radius: int, color, thickness: int) -> None:
    cx, cy = center
    outer = radius + max(thickness, 0) / 2
    inner = -1 if thickness < 0 else radius - thickness / 2

    def inside(xs, ys):
        d2 = (xs - cx) ** 2 + (ys - cy) ** 2
        return (d2 <= outer * outer) & (d2 >= inner * abs(inner))

    _paint(image, (cx - outer, cy - outer, cx + outer, cy + outer), inside, color)


def _check(image: Any) -> None:
    if not isinstance(image, np.ndarray) or image.ndim != 3 or image.shape[2] != 3:
        raise ValueError("Input image must contain three channel bgr data.")


def draw_landmarks(
    image: np.ndarray,
    landmark_list: Sequence[Any],
    connections: Optional[Sequence[Any]] = None,
    landmark_drawing_spec: Union[DrawingSpec, Mapping[int, DrawingSpec], None] = DrawingSpec(color=RED_COLOR),
    connection_drawing_spec: Union[DrawingSpec, Mapping[Tuple[int, int], DrawingSpec]] = DrawingSpec(),
    is_drawing_landmarks: bool = True,
) -> None:
    """Draws a face's landmarks (a list of `NormalizedLandmark`) and the lines between them
    (`connections`: `Connection`s or (start, end) pairs) on `image`, in place. Each spec is
    one `DrawingSpec` or a mapping from a landmark (a connection) to its own, as
    `drawing_styles` gives them; `landmark_drawing_spec=None` draws no points."""
    if not landmark_list:
        return
    _check(image)
    height, width = image.shape[:2]
    pixels = {}
    for index, landmark in enumerate(landmark_list):
        visibility, presence = getattr(landmark, "visibility", None), getattr(landmark, "presence", None)
        if (visibility is not None and visibility < _VISIBILITY_THRESHOLD) or (
                presence is not None and presence < _PRESENCE_THRESHOLD):
            continue
        point = _pixel(landmark.x, landmark.y, width, height)
        if point is not None:
            pixels[index] = point
    for connection in connections or ():
        start, end = (connection.start, connection.end) if hasattr(connection, "start") else connection
        if start in pixels and end in pixels:
            spec = connection_drawing_spec[(start, end)] if isinstance(connection_drawing_spec, Mapping) \
                else connection_drawing_spec
            _line(image, pixels[start], pixels[end], spec.color, spec.thickness)
    if is_drawing_landmarks and landmark_drawing_spec is not None:
        for index, point in pixels.items():
            spec = landmark_drawing_spec[index] if isinstance(landmark_drawing_spec, Mapping) \
                else landmark_drawing_spec
            # A white ring around each point, as MediaPipe draws them.
            border = max(spec.circle_radius + 1, int(spec.circle_radius * 1.2))
            _circle(image, point, border, WHITE_COLOR, spec.thickness)
            _circle(image, point, spec.circle_radius, spec.color, spec.thickness)


def draw_detection(
    image: np.ndarray,
    detection: Any,
    keypoint_drawing_spec: DrawingSpec = DrawingSpec(color=RED_COLOR),
    bbox_drawing_spec: DrawingSpec = DrawingSpec(),
) -> None:
    """Draws a face detector's `Detection` on `image`, in place: its box (in pixels) and its
    keypoints (normalized)."""
    _check(image)
    height, width = image.shape[:2]
    for keypoint in detection.keypoints or ():
        point = _pixel(keypoint.x, keypoint.y, width, height)
        if point is not None:
            spec = keypoint_drawing_spec
            _circle(image, point, spec.circle_radius, spec.color, spec.thickness)
    box = detection.bounding_box
    x0, y0 = box.origin_x, box.origin_y
    x1, y1 = x0 + box.width, y0 + box.height
    for start, end in [((x0, y0), (x1, y0)), ((x1, y0), (x1, y1)), ((x1, y1), (x0, y1)), ((x0, y1), (x0, y0))]:
        _line(image, start, end, bbox_drawing_spec.color, bbox_drawing_spec.thickness)
