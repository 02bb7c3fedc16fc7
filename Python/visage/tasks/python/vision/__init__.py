"""The vision tasks, under MediaPipe's names (`mediapipe.tasks.python.vision`)."""

from visage.tasks.python.vision import core, drawing_styles, drawing_utils, face_detector, face_landmarker
from visage.tasks.python.vision.core.image_processing_options import ImageProcessingOptions
from visage.tasks.python.vision.core.vision_task_running_mode import VisionTaskRunningMode
from visage.tasks.python.vision.face_detector import FaceDetector, FaceDetectorOptions, FaceDetectorResult
from visage.tasks.python.vision.face_landmarker import (
    FaceLandmarker,
    FaceLandmarkerOptions,
    FaceLandmarkerResult,
    FaceLandmarksConnections,
    FaceRegion,
    aligned_face_crop,
)

RunningMode = VisionTaskRunningMode
