"""MediaPipe's Python Tasks API (`mediapipe.tasks.python`): `BaseOptions` and `vision`."""

from visage.tasks.python import components, core, vision
from visage.tasks.python.core.base_options import BaseOptions
