"""The legacy `mediapipe.solutions` API that MediaPipe 0.10.30 removed: `face_mesh` and
`face_detection`, on the Tasks models."""

from visage.solutions import face_detection, face_mesh
