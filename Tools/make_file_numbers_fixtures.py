#!/usr/bin/env python3
"""Record MediaPipe 1.2.2's numbers for photos read the way its Python guide reads them,
`mp.Image.create_from_file(path)`, into Tests/Fixtures/stb/file_numbers.json: so that Visage's
`create_from_file` (stb_image, Exif as MediaPipe applies it) is held to MediaPipe through files,
not only through numpy pixels (Python/tests/test_image_files.py).

Photos: the crowd and group JPEGs of Tests/Fixtures/crowd, and versions of the astronaut portrait
this script writes into Tests/Fixtures/stb/photos: JPEGs stored turned with Exif orientation 3, 6
and 8 (so that upright they show the face), progressive, with alpha as a 256 px PNG (SRGBA), gray as JPEG
(GRAY8, which MediaPipe's tasks refuse: the error is recorded; the detector runs first, since
after the landmarker's graph error MediaPipe's next call can hang).

Tasks: the face landmarker (the .task bundle, num_faces 4, blendshapes and matrices) and the face
detector (the bundle's short-range model), image mode, defaults otherwise. Per face: 478
landmarks (x, y, z), 52 blendshape scores, the 4x4 matrix; per detection: the box, score and six
keypoints. A task that raises is recorded by the exception's type.

Run:  /path/to/venv/bin/python Tools/make_file_numbers_fixtures.py   (needs mediapipe==1.2.2, Pillow)
"""
import io
import json
import os
import zipfile

import numpy as np
from PIL import Image

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "Tests", "Fixtures")
PHOTOS = os.path.join(FIXTURES, "stb", "photos")
EXIF_ORIENTATION = 0x0112


def write_photos():
    os.makedirs(PHOTOS, exist_ok=True)
    face = Image.open(os.path.join(FIXTURES, "images", "astronaut.png")).convert("RGB")
    # Stored turned so that the tag turns it upright again (Pillow's exif_transpose inverse).
    # 512x384, so that a quarter turn changes the shape.
    wide = face.crop((0, 40, 512, 424))
    stored = {3: wide.transpose(Image.ROTATE_180), 6: wide.transpose(Image.ROTATE_90),
              8: wide.transpose(Image.ROTATE_270)}
    names = []
    for tag, image in stored.items():
        exif = Image.Exif()
        exif[EXIF_ORIENTATION] = tag
        name = f"astronaut_exif_{tag}.jpg"
        image.save(os.path.join(PHOTOS, name), quality=90, exif=exif.tobytes())
        names.append(name)
    face.save(os.path.join(PHOTOS, "astronaut_progressive.jpg"), quality=85, progressive=True)
    rgba = face.resize((256, 256), Image.LANCZOS)
    rgba.putalpha(255)
    rgba.save(os.path.join(PHOTOS, "astronaut_rgba.png"))
    face.convert("L").save(os.path.join(PHOTOS, "astronaut_gray.jpg"), quality=90)
    return ["stb/photos/" + n for n in names + ["astronaut_progressive.jpg", "astronaut_rgba.png", "astronaut_gray.jpg"]]


def main():
    import mediapipe as mp
    from mediapipe.tasks.python import BaseOptions
    from mediapipe.tasks.python import vision

    files = ["crowd/crowd_00.jpg", "crowd/crowd_01.jpg", "crowd/group/TeamMeeting2019.jpg"] + write_photos()
    bundle = os.path.join(ROOT, "Weights", "face_landmarker.task")
    landmarker = vision.FaceLandmarker.create_from_options(vision.FaceLandmarkerOptions(
        base_options=BaseOptions(model_asset_path=bundle), num_faces=4,
        output_face_blendshapes=True, output_facial_transformation_matrixes=True))
    with zipfile.ZipFile(bundle) as archive:
        short_range = archive.read("face_detector.tflite")
    detector = vision.FaceDetector.create_from_options(vision.FaceDetectorOptions(
        base_options=BaseOptions(model_asset_buffer=short_range)))
    cases = []
    for name in files:
        image = mp.Image.create_from_file(os.path.join(FIXTURES, name))
        case = {"file": name, "shape": list(image.numpy_view().shape)}
        try:
            result = detector.detect(image)
            case["detections"] = [
                {"box": [d.bounding_box.origin_x, d.bounding_box.origin_y, d.bounding_box.width, d.bounding_box.height],
                 "score": d.categories[0].score, "keypoints": [[k.x, k.y] for k in d.keypoints]}
                for d in result.detections]
        except Exception as e:  # noqa: BLE001
            case["detectorError"] = type(e).__name__
        try:
            result = landmarker.detect(image)
            case["faces"] = [
                {"landmarks": [[p.x, p.y, p.z] for p in marks],
                 "blendshapes": [c.score for c in shapes],
                 "matrix": np.asarray(matrix).tolist()}
                for marks, shapes, matrix in zip(result.face_landmarks, result.face_blendshapes,
                                                 result.facial_transformation_matrixes)]
        except Exception as e:  # noqa: BLE001 - the type is what is recorded
            case["landmarkerError"] = type(e).__name__
        print(name, len(case.get("faces", [])), len(case.get("detections", [])), case.get("landmarkerError", ""))
        cases.append(case)
    with open(os.path.join(FIXTURES, "stb", "file_numbers.json"), "w") as f:
        json.dump({"about": "Written by Tools/make_file_numbers_fixtures.py: mediapipe==1.2.2 on "
                   "mp.Image.create_from_file of each file (paths under Tests/Fixtures).", "cases": cases}, f)
        f.write("\n")


if __name__ == "__main__":
    main()
