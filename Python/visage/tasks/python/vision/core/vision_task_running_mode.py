"""The running modes (`mediapipe.tasks.python.vision.core.vision_task_running_mode`)."""

import enum


class VisionTaskRunningMode(enum.Enum):
    """IMAGE: `detect` on unrelated images. VIDEO: `detect_for_video` on the frames of one video,
    with increasing timestamps. LIVE_STREAM: `detect_async`, results to `result_callback`; a frame
    that arrives while another is processed may be dropped."""

    IMAGE = "IMAGE"
    VIDEO = "VIDEO"
    LIVE_STREAM = "LIVE_STREAM"
