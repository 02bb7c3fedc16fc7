"""A detection's keypoint (`mediapipe.tasks.python.components.containers.keypoint`)."""

import dataclasses
from typing import Optional


@dataclasses.dataclass
class NormalizedKeypoint:
    """A point in normalized image coordinates. A face detection's six come in MediaPipe's order:
    the eye on the image's left (the person's right eye), the other eye, the nose tip, the
    mouth, the ear tragion on the image's left, the other; `label` is None and `score` 0.0, as
    MediaPipe gives them."""

    x: Optional[float] = None
    y: Optional[float] = None
    label: Optional[str] = None
    score: Optional[float] = None
