"""Images, running modes and image processing options."""

from visage.tasks.python.vision.core import image, image_processing_options, vision_task_running_mode
