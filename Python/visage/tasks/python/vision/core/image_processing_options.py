"""How to read an image (`mediapipe.tasks.python.vision.core.image_processing_options`)."""

import dataclasses
from typing import Optional

from visage.tasks.python.components.containers.rect import Rect


@dataclasses.dataclass
class ImageProcessingOptions:
    """`rotation_degrees`, a multiple of 90, is how far the picture is turned clockwise in the
    pixels (90 for a phone's portrait frame stored sideways); the task turns it back.

    `region_of_interest` is refused with ValueError, as MediaPipe's face tasks refuse it."""

    region_of_interest: Optional[Rect] = None
    rotation_degrees: int = 0
