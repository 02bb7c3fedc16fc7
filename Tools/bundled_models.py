"""The four bundled models by name, for the Python tools and benchmarks."""
import os
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = ["face_detector", "face_landmarks_detector", "face_blendshapes", "face_detection_full_range"]


def model_bytes(name):
    """The .tflite bytes of a bundled model: three live in face_landmarker.task."""
    if name == "face_detection_full_range":
        with open(os.path.join(ROOT, "Weights", name + ".tflite"), "rb") as f:
            return f.read()
    with zipfile.ZipFile(os.path.join(ROOT, "Weights", "face_landmarker.task")) as z:
        return z.read(name + ".tflite")
