"""The legacy `mediapipe.solutions.face_mesh` API (removed from MediaPipe in 0.10.30), on the
Tasks face landmarker's models. docs/python.md says where its numbers differ from the legacy
model's."""

from __future__ import annotations

from visage import _native
from visage.solutions._legacy import NormalizedLandmark, NormalizedLandmarkList, SolutionOutputs, rgb_image
from visage.tasks.python.vision.core.vision_task_running_mode import VisionTaskRunningMode as RunningMode
from visage.tasks.python.vision.face_landmarker import FaceLandmarker, FaceLandmarkerOptions

def _pairs(name: str) -> frozenset:
    return frozenset(_native.face_connections(name))


# The legacy module's connection sets, for its drawing code: (start, end) index pairs.
FACEMESH_LIPS = _pairs("lips")
FACEMESH_LEFT_EYE = _pairs("leftEye")
FACEMESH_LEFT_IRIS = _pairs("leftIris")
FACEMESH_LEFT_EYEBROW = _pairs("leftEyebrow")
FACEMESH_RIGHT_EYE = _pairs("rightEye")
FACEMESH_RIGHT_EYEBROW = _pairs("rightEyebrow")
FACEMESH_RIGHT_IRIS = _pairs("rightIris")
FACEMESH_FACE_OVAL = _pairs("faceOval")
FACEMESH_NOSE = _pairs("nose")
FACEMESH_CONTOURS = _pairs("contours")
FACEMESH_IRISES = FACEMESH_LEFT_IRIS | FACEMESH_RIGHT_IRIS
FACEMESH_TESSELATION = _pairs("tesselation")

FACEMESH_NUM_LANDMARKS = 468
FACEMESH_NUM_LANDMARKS_WITH_IRISES = 478
# The legacy graph fed frames 33.3 ms apart (30 per second) when not in static image mode.
_FRAME_INTERVAL_MS = 33


class FaceMesh:
    """Face landmarks per face of an RGB array: 468 points, or 478 (irises too) with
    `refine_landmarks`. Outside `static_image_mode`, frames are a video: faces are tracked."""

    def __init__(
        self,
        static_image_mode: bool = False,
        max_num_faces: int = 1,
        refine_landmarks: bool = False,
        min_detection_confidence: float = 0.5,
        min_tracking_confidence: float = 0.5,
    ):
        self._count = FACEMESH_NUM_LANDMARKS_WITH_IRISES if refine_landmarks else FACEMESH_NUM_LANDMARKS
        self._static = static_image_mode
        self._options = FaceLandmarkerOptions(
            running_mode=RunningMode.IMAGE if static_image_mode else RunningMode.VIDEO,
            num_faces=max_num_faces,
            min_face_detection_confidence=min_detection_confidence,
            min_tracking_confidence=min_tracking_confidence,
        )
        self._timestamp = 0
        self._landmarker = FaceLandmarker.create_from_options(self._options)

    def process(self, image) -> SolutionOutputs:
        """The landmarks of the faces in `image`, an RGB uint8 array (height, width, 3):
        `multi_face_landmarks`, None when no face is found."""
        frame = rgb_image(image)
        if self._static:
            result = self._landmarker.detect(frame)
        else:
            result = self._landmarker.detect_for_video(frame, self._timestamp)
            self._timestamp += _FRAME_INTERVAL_MS
        faces = [
            NormalizedLandmarkList([NormalizedLandmark(p.x, p.y, p.z) for p in face[: self._count]])
            for face in result.face_landmarks
        ]
        return SolutionOutputs(multi_face_landmarks=faces or None)

    def reset(self) -> None:
        """Forgets the faces being tracked (a new video starts)."""
        self._landmarker.close()
        self._timestamp = 0
        self._landmarker = FaceLandmarker.create_from_options(self._options)

    def close(self) -> None:
        """Releases the landmarker; `process` raises ValueError after."""
        self._landmarker.close()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        self.close()
