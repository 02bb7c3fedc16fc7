"""MediaPipe's default styles for drawing a face mesh
(`mediapipe.tasks.python.vision.drawing_styles`): the tesselation thin and gray, each contour
and iris in its color, as BGR triples."""

from __future__ import annotations

from typing import Dict, Tuple

from visage.tasks.python.vision.drawing_utils import DrawingSpec
from visage.tasks.python.vision.face_landmarker import FaceLandmarksConnections as _Connections

_RED = (48, 48, 255)
_GREEN = (48, 255, 48)
_BLUE = (192, 101, 21)
_YELLOW = (0, 204, 255)
_GRAY = (128, 128, 128)
_WHITE = (224, 224, 224)
_CYAN = (192, 255, 48)
_MAGENTA = (192, 48, 255)
_THIN, _THICK = 1, 2


def _by_connection(table) -> Dict[Tuple[int, int], DrawingSpec]:
    return {(c.start, c.end): DrawingSpec(color=color, thickness=_THICK) for lines, color in table for c in lines}


def get_default_face_mesh_tesselation_style() -> DrawingSpec:
    """The tesselation's lines: gray, one pixel."""
    return DrawingSpec(color=_GRAY, thickness=_THIN)


def get_default_face_mesh_contours_style(i: int = 0) -> Dict[Tuple[int, int], DrawingSpec]:
    """Each contour connection's style: style 0 (lips and oval white, the left eye and brow
    green, the right red), or style 1 (more colors, and the nose)."""
    c = _Connections
    if i == 1:
        table = [(c.FACE_LANDMARKS_LIPS, _BLUE), (c.FACE_LANDMARKS_LEFT_EYE, _CYAN),
                 (c.FACE_LANDMARKS_LEFT_EYEBROW, _GREEN), (c.FACE_LANDMARKS_RIGHT_EYE, _MAGENTA),
                 (c.FACE_LANDMARKS_RIGHT_EYEBROW, _RED), (c.FACE_LANDMARKS_FACE_OVAL, _WHITE),
                 (c.FACE_LANDMARKS_NOSE, _YELLOW)]  # fmt: skip
    else:
        table = [(c.FACE_LANDMARKS_LIPS, _WHITE), (c.FACE_LANDMARKS_LEFT_EYE, _GREEN),
                 (c.FACE_LANDMARKS_LEFT_EYEBROW, _GREEN), (c.FACE_LANDMARKS_RIGHT_EYE, _RED),
                 (c.FACE_LANDMARKS_RIGHT_EYEBROW, _RED), (c.FACE_LANDMARKS_FACE_OVAL, _WHITE)]  # fmt: skip
    return _by_connection(table)


def get_default_face_mesh_iris_connections_style() -> Dict[Tuple[int, int], DrawingSpec]:
    """The irises' connections: the left green, the right red."""
    return _by_connection([(_Connections.FACE_LANDMARKS_LEFT_IRIS, _GREEN),
                           (_Connections.FACE_LANDMARKS_RIGHT_IRIS, _RED)])  # fmt: skip
