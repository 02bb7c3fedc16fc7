"""Where a task's model comes from (`mediapipe.tasks.python.core.base_options`)."""

import dataclasses
import enum
from typing import Optional


@dataclasses.dataclass
class BaseOptions:
    """A task's model: a file path or the model's bytes.

    With neither, Visage uses the `face_landmarker.task` bundled in the package, whose face
    detector the face detector runs. `delegate` is accepted for MediaPipe's code; Visage always
    runs on the CPU. `thread_count` (Visage) shares a model's larger layers over that many
    threads; results are the same for any count.
    """

    class Delegate(enum.Enum):
        """MediaPipe's processors; Visage runs on the CPU whichever is named."""

        CPU = 0
        GPU = 1

    model_asset_path: Optional[str] = None
    model_asset_buffer: Optional[bytes] = None
    delegate: Optional[Delegate] = None
    thread_count: int = 1
