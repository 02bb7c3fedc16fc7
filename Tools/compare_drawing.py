#!/usr/bin/env python3
"""The Face Landmarker guide's drawing code run twice on one photo: with MediaPipe 1.2.2
(`mediapipe.tasks.python.vision.drawing_utils`, OpenCV) and with Visage's (numpy), each on its
own landmarks. Writes the two pictures and one side by side, and prints how many pixels each
painted and how many of those agree.

Needs a venv with `mediapipe==1.2.2` and Visage for Python importable (pip install the wheel,
or PYTHONPATH at an installed copy):

    python Tools/compare_drawing.py [PHOTO] [--out FOLDER]
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


def annotate(mp, rgb: np.ndarray) -> np.ndarray:
    """The guide's code: detect, then the tesselation, contours and irises drawn."""
    vision = mp.tasks.vision
    drawing_utils, drawing_styles = vision.drawing_utils, vision.drawing_styles
    options = vision.FaceLandmarkerOptions(
        base_options=mp.tasks.BaseOptions(model_asset_path=os.path.join(REPO, "Weights", "face_landmarker.task")))
    with vision.FaceLandmarker.create_from_options(options) as landmarker:
        result = landmarker.detect(mp.Image(image_format=mp.ImageFormat.SRGB, data=rgb))
    annotated = np.copy(rgb)
    for face in result.face_landmarks:
        for connections, style in [
            (vision.FaceLandmarksConnections.FACE_LANDMARKS_TESSELATION, drawing_styles.get_default_face_mesh_tesselation_style()),
            (vision.FaceLandmarksConnections.FACE_LANDMARKS_CONTOURS, drawing_styles.get_default_face_mesh_contours_style()),
            (vision.FaceLandmarksConnections.FACE_LANDMARKS_LEFT_IRIS, drawing_styles.get_default_face_mesh_iris_connections_style()),
            (vision.FaceLandmarksConnections.FACE_LANDMARKS_RIGHT_IRIS, drawing_styles.get_default_face_mesh_iris_connections_style()),
        ]:
            drawing_utils.draw_landmarks(image=annotated, landmark_list=face, connections=connections,
                                         landmark_drawing_spec=None, connection_drawing_spec=style)
    return annotated


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("photo", nargs="?", default=os.path.join(REPO, "Tests", "Fixtures", "images", "astronaut.png"))
    parser.add_argument("--out", default=os.path.join(REPO, ".build-drawing"))
    args = parser.parse_args()
    import cv2  # MediaPipe's own dependency
    import mediapipe
    import visage

    rgb = np.ascontiguousarray(visage.Image.create_from_file(args.photo).numpy_view())
    theirs, ours = annotate(mediapipe, rgb), annotate(visage, rgb)
    painted_theirs = (theirs != rgb).any(axis=2)
    painted_ours = (ours != rgb).any(axis=2)
    both = painted_theirs & painted_ours
    same = both & (theirs == ours).all(axis=2)
    print(f"MediaPipe painted {painted_theirs.sum()} pixels, Visage {painted_ours.sum()}; "
          f"both {both.sum()} ({both.sum() / max(painted_theirs.sum(), 1):.0%} of MediaPipe's), "
          f"the same color in {same.sum()}")
    os.makedirs(args.out, exist_ok=True)
    gap = np.full((rgb.shape[0], 8, 3), 255, np.uint8)
    for name, picture in [("mediapipe.png", theirs), ("visage.png", ours), ("side_by_side.png", np.hstack([theirs, gap, ours]))]:
        cv2.imwrite(os.path.join(args.out, name), cv2.cvtColor(picture, cv2.COLOR_RGB2BGR))
    print(f"pictures in {args.out}: mediapipe.png, visage.png, side_by_side.png (MediaPipe left)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
