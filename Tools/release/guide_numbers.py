"""MediaPipe's Python guide code (Face Landmarker, image mode) on photos, by MediaPipe or by an
installed Visage wheel, with the numbers written as JSON: what Tools/release/test compares
between Visage in each clean root, the x86-64 build, and MediaPipe 1.2.2's own wheel.

    python guide_numbers.py --module visage --model face_landmarker.task OUT.json PHOTO...

Runs with the root's own CPython (3.9 and up) and numpy; nothing else.
"""

import argparse
import importlib
import json


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--module", choices=["visage", "mediapipe"], required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("out")
    parser.add_argument("photos", nargs="+")
    arguments = parser.parse_args()

    # The guide's code, with its import as the module's own name.
    mp = importlib.import_module(arguments.module)
    from_module = importlib.import_module(arguments.module + ".tasks.python")
    python, vision = from_module, importlib.import_module(arguments.module + ".tasks.python.vision")

    base_options = python.BaseOptions(model_asset_path=arguments.model)
    options = vision.FaceLandmarkerOptions(
        base_options=base_options,
        output_face_blendshapes=True,
        output_facial_transformation_matrixes=True,
        num_faces=4,
    )
    detector = vision.FaceLandmarker.create_from_options(options)
    results = {}
    for photo in arguments.photos:
        image = mp.Image.create_from_file(photo)
        detection_result = detector.detect(image)
        results[photo.rsplit("/", 1)[-1]] = {
            "landmarks": [[[p.x, p.y, p.z] for p in face] for face in detection_result.face_landmarks],
            "blendshapes": [[c.score for c in face] for face in detection_result.face_blendshapes],
            "matrices": [[float(v) for v in m.reshape(-1)] for m in detection_result.facial_transformation_matrixes],
        }
    detector.close()
    with open(arguments.out, "w") as file:
        json.dump({"module": arguments.module, "version": getattr(mp, "__version__", ""), "photos": results}, file)


if __name__ == "__main__":
    main()
