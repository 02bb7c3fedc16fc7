"""Visage for Python: MediaPipe's face tasks (Face Landmarker, Face Detector) under MediaPipe's
Python names, on Visage's Swift engine. Code written for MediaPipe runs with
`import visage as mp`.

    import visage as mp
    options = mp.tasks.vision.FaceLandmarkerOptions(
        base_options=mp.tasks.BaseOptions(model_asset_path="face_landmarker.task"))
    with mp.tasks.vision.FaceLandmarker.create_from_options(options) as landmarker:
        result = landmarker.detect(mp.Image.create_from_file("photo.jpg"))
"""

import visage.tasks.python as tasks
from visage import solutions
from visage.tasks.python.vision.core.image import Image, ImageFormat

__version__ = "0.54.0"
__all__ = ["Image", "ImageFormat", "solutions", "tasks"]
