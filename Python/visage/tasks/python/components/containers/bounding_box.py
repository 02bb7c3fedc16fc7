"""A box in pixels (`mediapipe.tasks.python.components.containers.bounding_box`)."""

import dataclasses


@dataclasses.dataclass
class BoundingBox:
    """A box in pixels of the image as stored: origin and size each truncated toward zero, as
    MediaPipe's detection results give them."""

    origin_x: int
    origin_y: int
    width: int
    height: int
