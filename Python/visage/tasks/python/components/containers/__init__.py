"""The result containers, under MediaPipe's module names."""

from visage.tasks.python.components.containers import bounding_box, category, detections, keypoint, landmark, rect
from visage.tasks.python.components.containers.bounding_box import BoundingBox
from visage.tasks.python.components.containers.category import Category
from visage.tasks.python.components.containers.detections import Detection, DetectionResult
from visage.tasks.python.components.containers.keypoint import NormalizedKeypoint
from visage.tasks.python.components.containers.landmark import Landmark, NormalizedLandmark
from visage.tasks.python.components.containers.rect import NormalizedRect, Rect, RectF
