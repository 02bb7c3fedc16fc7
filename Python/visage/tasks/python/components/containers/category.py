"""A classification category (`mediapipe.tasks.python.components.containers.category`)."""

import dataclasses
from typing import Optional


@dataclasses.dataclass
class Category:
    """A class and its score: for a blendshape, its index in the 52 and its name."""

    index: Optional[int] = None
    score: Optional[float] = None
    display_name: Optional[str] = None
    category_name: Optional[str] = None
