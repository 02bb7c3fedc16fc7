#!/usr/bin/env python3
"""Google's own Cloud Vision client against visage-server's POST /v1/images:annotate.

Usage, from the repository root, with the server built:

    .venv-server/bin/python Server/Tools/cloud_vision_check.py --binary Server/.build/release/visage-server

Starts visage-server on a free port of 127.0.0.1 (and later a second one with an API key
file), talks to it with `google-cloud-vision`'s ImageAnnotatorClient over its REST transport
(anonymous credentials, plain http), and checks what docs/server.md and
/work/shared-notes/cloud-vision-facts.md say the route does:

- face_detection on a clear frontal face: one face, both boxes 4 vertices inside the image,
  36 distinct landmark types near the box, confidences in (0, 1], finite angles in
  [-180, 180], the likelihoods we do not estimate UNKNOWN; Cloud Vision's left/right
  convention (LEFT_EYE is the eye on the viewer's left, the subject's right eye) and roll's
  sign (clockwise on screen is positive, roll ~ the LEFT_EYE -> RIGHT_EYE line's angle);
- the same photo mirrored: roll and pan negated, tilt kept, the eyes mirrored;
- a group photo: max_results=3 gives at most 3 faces, the default (10) more than 3;
- batch_annotate_images with good and bad images mixed: answers in order, per-image errors;
- raw HTTP: whole-request errors (400 and the JSON envelope), enums as names and numbers,
  integral vertices, a face-free image answering {};
- API keys: none -> 401, ?key= / x-api-key / Bearer -> 200, and the client's own
  client_options={"api_key": ...}, which sends x-goog-api-key.

Prints each check as it passes; stops at the first failure with exit status 1 (2 when it
cannot start). The servers are always stopped (server_harness.py, beside this script, starts
them). Standard library plus google-cloud-vision; Pillow only if installed (otherwise PNG
mirroring is done here, with server_harness's PNG reader and writer).
"""

from __future__ import annotations

import argparse
import base64
import json
import math
import os
import struct
import sys
import tempfile
import urllib.error
import urllib.request

import server_harness
from server_harness import Server

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
ROUTE = "/v1/images:annotate"
CALL_TIMEOUT = 120.0  # seconds per call of Google's client (its helpers set none)

# Cloud Vision's FaceAnnotation.Landmark.Type (google/cloud/vision/v1/image_annotator.proto).
LANDMARK_NAMES = [
    "UNKNOWN_LANDMARK", "LEFT_EYE", "RIGHT_EYE", "LEFT_OF_LEFT_EYEBROW", "RIGHT_OF_LEFT_EYEBROW",
    "LEFT_OF_RIGHT_EYEBROW", "RIGHT_OF_RIGHT_EYEBROW", "MIDPOINT_BETWEEN_EYES", "NOSE_TIP",
    "UPPER_LIP", "LOWER_LIP", "MOUTH_LEFT", "MOUTH_RIGHT", "MOUTH_CENTER", "NOSE_BOTTOM_RIGHT",
    "NOSE_BOTTOM_LEFT", "NOSE_BOTTOM_CENTER", "LEFT_EYE_TOP_BOUNDARY", "LEFT_EYE_RIGHT_CORNER",
    "LEFT_EYE_BOTTOM_BOUNDARY", "LEFT_EYE_LEFT_CORNER", "RIGHT_EYE_TOP_BOUNDARY",
    "RIGHT_EYE_RIGHT_CORNER", "RIGHT_EYE_BOTTOM_BOUNDARY", "RIGHT_EYE_LEFT_CORNER",
    "LEFT_EYEBROW_UPPER_MIDPOINT", "RIGHT_EYEBROW_UPPER_MIDPOINT", "LEFT_EAR_TRAGION",
    "RIGHT_EAR_TRAGION", "LEFT_EYE_PUPIL", "RIGHT_EYE_PUPIL", "FOREHEAD_GLABELLA", "CHIN_GNATHION",
    "CHIN_LEFT_GONION", "CHIN_RIGHT_GONION", "LEFT_CHEEK_CENTER", "RIGHT_CHEEK_CENTER",
]
LIKELIHOOD_NAMES = ["UNKNOWN", "VERY_UNLIKELY", "UNLIKELY", "POSSIBLE", "LIKELY", "VERY_LIKELY"]
LIKELIHOOD_FIELDS = [
    "joyLikelihood", "sorrowLikelihood", "angerLikelihood", "surpriseLikelihood",
    "underExposedLikelihood", "blurredLikelihood", "headwearLikelihood",
]
# Pairs (viewer-left, viewer-right) of the same upright face: the first's x is the smaller.
LEFT_RIGHT_PAIRS = [
    ("LEFT_EYE", "RIGHT_EYE"),
    ("LEFT_EYE_LEFT_CORNER", "LEFT_EYE_RIGHT_CORNER"),
    ("RIGHT_EYE_LEFT_CORNER", "RIGHT_EYE_RIGHT_CORNER"),
    ("LEFT_EYE_RIGHT_CORNER", "RIGHT_EYE_LEFT_CORNER"),
    ("LEFT_OF_LEFT_EYEBROW", "RIGHT_OF_LEFT_EYEBROW"),
    ("LEFT_OF_RIGHT_EYEBROW", "RIGHT_OF_RIGHT_EYEBROW"),
    ("LEFT_EYE_PUPIL", "RIGHT_EYE_PUPIL"),
    ("MOUTH_LEFT", "MOUTH_RIGHT"),
    ("NOSE_BOTTOM_LEFT", "NOSE_BOTTOM_RIGHT"),
    ("LEFT_EAR_TRAGION", "RIGHT_EAR_TRAGION"),
    ("CHIN_LEFT_GONION", "CHIN_RIGHT_GONION"),
    ("LEFT_CHEEK_CENTER", "RIGHT_CHEEK_CENTER"),
]
FACE_IMAGE_CANDIDATES = ["Weights/bench/astronaut.png", "Tests/Fixtures/images/astronaut.png"]
GROUP_CANDIDATES = [
    "Tests/Fixtures/crowd/group/TeamMeeting2019.jpg",
    "Tests/Fixtures/detector/images/group_1536x1024.jpg",
    "Tests/Fixtures/crowd/crowd_00.jpg",
    "Tests/Fixtures/crowd/crowd_02.jpg",
]
NO_FACE_CANDIDATES = ["Tests/Fixtures/crowd/negative_00.jpg", "Tests/Fixtures/crowd/negative_01.jpg"]


class CheckFailed(Exception):
    pass


def ok(name: str, detail: str = "") -> None:
    print(f"ok   {name}" + (f": {detail}" if detail else ""), flush=True)


def note(text: str) -> None:
    print(f"note {text}", flush=True)


def require(condition: bool, name: str, detail: str) -> None:
    if not condition:
        raise CheckFailed(f"{name}: {detail}")


# ---------------------------------------------------------------------------------------------
# Images: sizes, and a horizontal mirror (Pillow if present, else PNG by hand).


def image_size(data: bytes) -> tuple[int, int]:
    """(width, height) of a PNG or JPEG (baseline or progressive)."""
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        width, height = struct.unpack(">II", data[16:24])
        return width, height
    if data[:2] == b"\xff\xd8":
        i = 2
        while i + 4 <= len(data):
            if data[i] != 0xFF:
                i += 1
                continue
            marker = data[i + 1]
            if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7 or marker == 0xFF:
                i += 1 if marker == 0xFF else 2
                continue
            length = struct.unpack(">H", data[i + 2:i + 4])[0]
            if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF):
                height, width = struct.unpack(">HH", data[i + 5:i + 9])
                return width, height
            i += 2 + length
    raise ValueError("not a PNG or JPEG this script can size")


def mirror_png(data: bytes) -> bytes:
    """The PNG flipped left to right."""
    width, height, channels, rows = server_harness.decode_png(data)
    flipped = []
    for line in rows:
        pixels = [line[x:x + channels] for x in range(0, width * channels, channels)]
        flipped.append(b"".join(reversed(pixels)))
    return server_harness.encode_png(width, height, channels, flipped)


def face_grid_png(data: bytes, box: tuple[int, int, int, int], columns: int = 3, rows_count: int = 2) -> bytes:
    """A columns x rows grid of one square crop around `box` (a face), as a PNG."""
    width, height, channels, rows = server_harness.decode_png(data)
    x0, y0, x1, y1 = box
    side = min(width, height, int(1.8 * max(x1 - x0, y1 - y0)))
    left = min(max(0, (x0 + x1) // 2 - side // 2), width - side)
    top = min(max(0, (y0 + y1) // 2 - side // 2), height - side)
    tile = [bytes(rows[top + y][left * channels:(left + side) * channels]) for y in range(side)]
    grid = [b"".join(tile[y] for _ in range(columns)) for _ in range(rows_count) for y in range(side)]
    return server_harness.encode_png(side * columns, side * rows_count, channels, grid)


def mirror_image(data: bytes) -> bytes | None:
    try:
        from PIL import Image, ImageOps  # type: ignore
        import io

        with Image.open(io.BytesIO(data)) as image:
            flipped = ImageOps.mirror(image.convert("RGB"))
            buffer = io.BytesIO()
            flipped.save(buffer, format="PNG")
            return buffer.getvalue()
    except ImportError:
        pass
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return mirror_png(data)
    return None


# ---------------------------------------------------------------------------------------------
# Plain HTTP to the server (which server_harness starts and stops).


NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def http(method: str, url: str, body: bytes | None = None, headers: dict | None = None,
         timeout: float = 120.0) -> tuple[int, dict, bytes]:
    request = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with NO_PROXY.open(request, timeout=timeout) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


# ---------------------------------------------------------------------------------------------
# Google's client.


def make_client(server: Server, api_key: str | None = None):
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import vision
    from google.cloud.vision_v1.services.image_annotator.transports.rest import ImageAnnotatorRestTransport

    host = f"127.0.0.1:{server.port}"
    if api_key is None:
        transport = ImageAnnotatorRestTransport(host=host, credentials=AnonymousCredentials(), url_scheme="http")
        return vision.ImageAnnotatorClient(transport=transport)
    # With an API key the client makes its own credentials (they send x-goog-api-key), so the
    # transport is given as a callable rather than an instance.
    return vision.ImageAnnotatorClient(
        client_options={"api_key": api_key, "api_endpoint": host},
        transport=lambda **kw: ImageAnnotatorRestTransport(url_scheme="http", **kw),
    )


def landmarks_by_name(face) -> dict:
    return {l.type_.name: l.position for l in face.landmarks}


def vertices(poly) -> list[tuple[int, int]]:
    return [(v.x, v.y) for v in poly.vertices]


def check_rectangle(points: list[tuple[int, int]], width: int, height: int, name: str) -> tuple[int, int, int, int]:
    require(len(points) == 4, name, f"{len(points)} vertices, want 4: {points}")
    for x, y in points:
        require(0 <= x <= width and 0 <= y <= height, name, f"vertex ({x}, {y}) outside the {width}x{height} image")
    (x0, y0), (x1, y1b), (x1b, y1), (x0b, y0b) = points
    require(x0 == x0b and x1 == x1b and y0 == y1b and y1 == y0b and x1 > x0 and y1 > y0, name,
            f"not an upright rectangle clockwise from the top left, as Cloud Vision gives it: {points}")
    return x0, y0, x1, y1


def check_face(face, width: int, height: int, label: str) -> dict:
    from google.cloud import vision

    box = check_rectangle(vertices(face.bounding_poly), width, height, f"{label} bounding_poly")
    fd_box = check_rectangle(vertices(face.fd_bounding_poly), width, height, f"{label} fd_bounding_poly")
    ok(f"{label}: bounding_poly and fd_bounding_poly", f"{box} and {fd_box}, inside {width}x{height}")

    types = [l.type_ for l in face.landmarks]
    names = [t.name for t in types]
    require(len(types) == 36, f"{label} landmarks", f"{len(types)} landmarks, want 36")
    require("UNKNOWN_LANDMARK" not in names, f"{label} landmarks", "an UNKNOWN_LANDMARK (type 0)")
    require(sorted(int(t) for t in types) == list(range(1, 37)), f"{label} landmarks",
            f"the types are not 36 distinct ones: missing {sorted(set(LANDMARK_NAMES[1:]) - set(names))}")
    x0, y0, x1, y1 = box
    mx, my = 0.2 * (x1 - x0), 0.2 * (y1 - y0)
    for l in face.landmarks:
        p = l.position
        require(all(math.isfinite(v) for v in (p.x, p.y, p.z)), f"{label} landmarks", f"{l.type_.name} not finite: {p}")
        require(x0 - mx <= p.x <= x1 + mx and y0 - my <= p.y <= y1 + my, f"{label} landmarks",
                f"{l.type_.name} at ({p.x:.1f}, {p.y:.1f}) far outside the bounding poly {box}")
    ok(f"{label}: 36 landmarks", "every type 1...36 once, all finite and within 20% of the bounding poly")

    for name in ("detection_confidence", "landmarking_confidence"):
        value = getattr(face, name)
        require(0 < value <= 1, f"{label} {name}", f"{value} not in (0, 1]")
    ok(f"{label}: confidences", f"detection {face.detection_confidence:.3f}, landmarking {face.landmarking_confidence:.3f}")

    for name in ("roll_angle", "pan_angle", "tilt_angle"):
        value = getattr(face, name)
        require(math.isfinite(value) and -180 <= value <= 180, f"{label} {name}", f"{value} not a finite angle in [-180, 180]")
    ok(f"{label}: angles", f"roll {face.roll_angle:.1f}, pan {face.pan_angle:.1f}, tilt {face.tilt_angle:.1f}")

    valid = set(int(v) for v in vision.Likelihood)
    require(int(face.joy_likelihood) in valid, f"{label} joy_likelihood", f"{face.joy_likelihood}")
    for name in ("sorrow_likelihood", "anger_likelihood", "surprise_likelihood", "headwear_likelihood"):
        value = getattr(face, name)
        require(int(value) == 0, f"{label} {name}", f"{value.name if hasattr(value, 'name') else value}, want UNKNOWN (not estimated)")
    for name in ("under_exposed_likelihood", "blurred_likelihood"):
        require(int(getattr(face, name)) in valid, f"{label} {name}", f"{getattr(face, name)}")
    ok(f"{label}: likelihoods", f"joy {vision.Likelihood(face.joy_likelihood).name}; sorrow, anger, surprise, headwear UNKNOWN")
    return landmarks_by_name(face)


def eye_geometry(marks: dict) -> tuple[float, float, float]:
    """(eye-line angle in degrees, LEFT_EYE -> RIGHT_EYE; eye distance; nose offset / distance)."""
    le, re_ = marks["LEFT_EYE"], marks["RIGHT_EYE"]
    dx, dy = re_.x - le.x, re_.y - le.y
    angle = math.degrees(math.atan2(dy, dx))
    distance = math.hypot(dx, dy)
    nose = marks["NOSE_TIP"]
    mx, my = (le.x + re_.x) / 2, (le.y + re_.y) / 2
    a = math.radians(angle)
    along = (nose.x - mx) * math.cos(a) + (nose.y - my) * math.sin(a)
    return angle, distance, along / distance if distance else 0.0


def angle_difference(a: float, b: float) -> float:
    return abs((a - b + 180) % 360 - 180)


# ---------------------------------------------------------------------------------------------
# The checks.


def find_file(explicit: str | None, candidates: list[str], what: str) -> str:
    for path in ([explicit] if explicit else candidates):
        full = path if os.path.isabs(path) else os.path.join(REPO, path)
        if os.path.isfile(full):
            return full
    raise RuntimeError(f"no {what} found (tried {[explicit] if explicit else candidates})")


def check_single_face(client, data: bytes, path: str, tolerance: float):
    from google.cloud import vision

    width, height = image_size(data)
    response = client.face_detection(image=vision.Image(content=data), timeout=CALL_TIMEOUT)
    name = os.path.relpath(path, REPO)
    require(response.error.code == 0, "face_detection", f"error {response.error.code}: {response.error.message}")
    require(len(response.face_annotations) == 1, "face_detection", f"{len(response.face_annotations)} faces in {name}, want 1")
    ok("face_detection through Google's client", f"1 face in {name} ({width}x{height})")
    face = response.face_annotations[0]
    marks = check_face(face, width, height, "frontal face")

    angle, distance, nose_offset = eye_geometry(marks)
    require(abs(angle) < 35, "left/right convention",
            f"LEFT_EYE -> RIGHT_EYE points {angle:.0f} degrees off the image's x axis on an upright frontal face: "
            "LEFT_EYE must be the eye on the viewer's left (the subject's right eye)")
    wrong = [(a, b, marks[a].x, marks[b].x) for a, b in LEFT_RIGHT_PAIRS if not marks[a].x < marks[b].x]
    require(not wrong, "left/right convention",
            "Cloud Vision names left and right from the viewer (LEFT_EYE = the subject's right eye, on the image's left); "
            + "; ".join(f"{a}.x {ax:.1f} is not left of {b}.x {bx:.1f}" for a, b, ax, bx in wrong))
    ok("left/right convention", f"LEFT_EYE.x {marks['LEFT_EYE'].x:.1f} < RIGHT_EYE.x {marks['RIGHT_EYE'].x:.1f}, "
       f"and the {len(LEFT_RIGHT_PAIRS) - 1} other left/right pairs likewise (viewer's left = subject's right)")

    roll_tolerance = max(8.0, tolerance)
    require(angle_difference(face.roll_angle, angle) <= roll_tolerance, "roll sign",
            f"roll_angle {face.roll_angle:.1f} but the LEFT_EYE -> RIGHT_EYE line is at {angle:.1f} degrees "
            "(Cloud Vision: roll ~ atan2(RIGHT_EYE.y - LEFT_EYE.y, RIGHT_EYE.x - LEFT_EYE.x), clockwise on screen positive)")
    ok("roll sign", f"roll_angle {face.roll_angle:.1f} ~ eye line {angle:.1f} (clockwise on screen is positive)")
    if abs(nose_offset) >= 0.05 and abs(face.pan_angle) >= 3:
        require((nose_offset > 0) == (face.pan_angle > 0), "pan sign",
                f"pan_angle {face.pan_angle:.1f} but the nose tip lies {nose_offset:+.2f} eye distances to the "
                "image's right of the eye midpoint (Cloud Vision: pan > 0 when the face turns toward the image's right)")
        ok("pan sign", f"pan_angle {face.pan_angle:.1f}, nose offset {nose_offset:+.2f} eye distances: same sign")
    else:
        note(f"pan sign not testable on this face (pan {face.pan_angle:.1f}, nose offset {nose_offset:+.2f}); "
             "the mirror check below still tests that it flips")
    return face, marks


def check_mirror(client, data: bytes, face, marks: dict, tolerance: float) -> None:
    from google.cloud import vision

    mirrored = mirror_image(data)
    if mirrored is None:
        note("mirror check skipped: Pillow is not installed and the photo is not a PNG this script can flip")
        return
    width, height = image_size(mirrored)
    response = client.face_detection(image=vision.Image(content=mirrored), timeout=CALL_TIMEOUT)
    require(response.error.code == 0, "mirrored face_detection", f"error {response.error.code}: {response.error.message}")
    require(len(response.face_annotations) == 1, "mirrored face_detection", f"{len(response.face_annotations)} faces, want 1")
    m = response.face_annotations[0]
    m_marks = check_face(m, width, height, "mirrored face")

    require(abs(m.roll_angle + face.roll_angle) <= tolerance, "mirror: roll",
            f"roll {face.roll_angle:.1f} became {m.roll_angle:.1f}, want about {-face.roll_angle:.1f} (±{tolerance})")
    require(abs(m.pan_angle + face.pan_angle) <= tolerance, "mirror: pan",
            f"pan {face.pan_angle:.1f} became {m.pan_angle:.1f}, want about {-face.pan_angle:.1f} (±{tolerance})")
    ok("mirror: roll and pan negated", f"roll {face.roll_angle:.1f} -> {m.roll_angle:.1f}, pan {face.pan_angle:.1f} -> {m.pan_angle:.1f}")
    require(abs(m.tilt_angle - face.tilt_angle) <= tolerance, "mirror: tilt",
            f"tilt {face.tilt_angle:.1f} became {m.tilt_angle:.1f}, want about the same (±{tolerance})")
    ok("mirror: tilt kept", f"{face.tilt_angle:.1f} -> {m.tilt_angle:.1f}")

    _, distance, _ = eye_geometry(marks)
    slack = max(4.0, 0.15 * distance)
    for left, right in (("LEFT_EYE", "RIGHT_EYE"), ("MOUTH_LEFT", "MOUTH_RIGHT")):
        for a, b in ((left, right), (right, left)):
            expected = width - marks[b].x
            require(abs(m_marks[a].x - expected) <= slack and abs(m_marks[a].y - marks[b].y) <= slack, "mirror: landmarks",
                    f"mirrored {a} at ({m_marks[a].x:.1f}, {m_marks[a].y:.1f}), want about ({expected:.1f}, {marks[b].y:.1f}), "
                    f"the mirror of the original {b} (±{slack:.1f} px)")
    ok("mirror: landmarks swap sides", f"mirrored LEFT_EYE ~ mirror of the original RIGHT_EYE (±{slack:.1f} px), mouth corners too")


def count_faces(client, data: bytes, max_results: int | None):
    from google.cloud import vision

    response = client.face_detection(image=vision.Image(content=data), max_results=max_results,
                                     timeout=CALL_TIMEOUT)
    require(response.error.code == 0, "group face_detection", f"error {response.error.code}: {response.error.message}")
    return len(response.face_annotations)


def group_candidates(explicit: str | None, face_data: bytes, face_box):
    """(name, bytes) of photos to try for the group check, the synthetic grid last."""
    for path in [explicit] if explicit else GROUP_CANDIDATES:
        full = path if os.path.isabs(path) else os.path.join(REPO, path)
        if os.path.isfile(full):
            with open(full, "rb") as f:
                yield os.path.relpath(full, REPO), f.read()
    if explicit is None and face_data[:8] == b"\x89PNG\r\n\x1a\n":
        # Six copies of the frontal face, each a sixth of the picture: found by any detector
        # setting, where the real group photos' small faces need the wider searches.
        yield "a 3x2 grid of the frontal face (made here)", face_grid_png(face_data, face_box)


def check_group(client, explicit: str | None, face_data: bytes, face_box) -> None:
    tried = []
    for name, data in group_candidates(explicit, face_data, face_box):
        found = count_faces(client, data, None)
        tried.append(f"{name}: {found}")
        if found <= 3:
            note(f"group photo {name}: {found} faces with the default max_results; trying the next")
            continue
        require(found <= 10, "max_results default", f"{found} faces in {name} with no max_results; Cloud Vision's default is 10")
        ok("max_results default (10)", f"{found} faces in {name}, more than 3 and at most 10")
        three = count_faces(client, data, 3)
        require(1 <= three <= 3, "max_results=3", f"{three} faces in {name}, want 1...3")
        if three != 3:
            note(f"max_results=3 gave {three} faces although {found} were found without it")
        ok("max_results=3", f"{three} faces")
        many = count_faces(client, data, 100)
        require(many >= found, "max_results=100", f"{many} faces, fewer than the {found} found by default")
        ok("max_results=100", f"{many} faces")
        return
    raise CheckFailed("group photo: no candidate gave more than 3 faces with the default max_results "
                      f"({'; '.join(tried) or 'none found'}); pass --group PHOTO")


def check_batch(client, data: bytes) -> None:
    from google.cloud import vision

    face = vision.Feature(type_=vision.Feature.Type.FACE_DETECTION)
    requests = [
        vision.AnnotateImageRequest(image=vision.Image(content=data), features=[face]),
        vision.AnnotateImageRequest(image=vision.Image(content=b"not an image"), features=[face]),
        vision.AnnotateImageRequest(image=vision.Image(content=data),
                                    features=[vision.Feature(type_=vision.Feature.Type.LABEL_DETECTION)]),
        vision.AnnotateImageRequest(image=vision.Image(source=vision.ImageSource(image_uri="https://example.com/a.jpg")),
                                    features=[face]),
        vision.AnnotateImageRequest(image=vision.Image(content=data), features=[face]),
    ]
    what = ["good image", "broken image", "LABEL_DETECTION only", "image_uri, no content", "good image again"]
    # retry=None: a 503 (queue full) is a failure here, not something to retry for 10 minutes.
    batch = client.batch_annotate_images(requests=requests, retry=None, timeout=CALL_TIMEOUT)
    responses = list(batch.responses)
    require(len(responses) == len(requests), "batch", f"{len(responses)} responses to {len(requests)} requests")
    details = []
    for i, (response, label) in enumerate(zip(responses, what)):
        good = i in (0, 4)
        if good:
            require(response.error.code == 0, f"batch[{i}] ({label})", f"error {response.error.code}: {response.error.message}")
            require(len(response.face_annotations) == 1, f"batch[{i}] ({label})", f"{len(response.face_annotations)} faces, want 1")
            details.append(f"[{i}] 1 face")
        else:
            require(response.error.code != 0, f"batch[{i}] ({label})", "no error (code 0)")
            require(bool(response.error.message), f"batch[{i}] ({label})", f"error {response.error.code} without a message")
            require(len(response.face_annotations) == 0, f"batch[{i}] ({label})", f"{len(response.face_annotations)} faces beside an error")
            details.append(f"[{i}] error {response.error.code} \"{response.error.message}\"")
    ok("batch_annotate_images, mixed", "; ".join(details))


def post_json(server: Server, body, query: str = "", headers: dict | None = None) -> tuple[int, dict, object]:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    status, response_headers, content = http("POST", server.base + ROUTE + query, raw,
                                             {"Content-Type": "application/json", **(headers or {})})
    try:
        parsed = json.loads(content) if content else None
    except ValueError:
        parsed = None
    return status, response_headers, parsed


def require_envelope(status: int, headers: dict, parsed, name: str, want_status: int = 400,
                     want_name: str = "INVALID_ARGUMENT") -> None:
    require(status == want_status, name, f"HTTP {status}, want {want_status}; body {str(parsed)[:200]}")
    content_type = {k.lower(): v for k, v in headers.items()}.get("content-type", "")
    require("json" in content_type, name, f"Content-Type {content_type!r}, want JSON")
    error = parsed.get("error") if isinstance(parsed, dict) else None
    require(isinstance(error, dict), name, f"no {{\"error\": {{...}}}} envelope: {str(parsed)[:200]}")
    require(error.get("code") == want_status, name, f"error.code {error.get('code')!r}, want {want_status}")
    require(error.get("status") == want_name, name, f"error.status {error.get('status')!r}, want {want_name}")
    require(isinstance(error.get("message"), str) and error["message"], name, "empty error.message")


def check_raw_face_json(face: dict, name: str) -> None:
    for key in ("boundingPoly", "fdBoundingPoly", "landmarks", "detectionConfidence", "landmarkingConfidence"):
        require(key in face, name, f"no {key} in the face (lowerCamelCase names, as proto3 JSON writes them)")
    for poly in ("boundingPoly", "fdBoundingPoly"):
        for v in face[poly].get("vertices", []):
            for axis in ("x", "y"):
                value = v.get(axis, 0)
                require(isinstance(value, int) and not isinstance(value, bool), name,
                        f"{poly} vertex {axis} = {value!r}: Vertex is int32 and Google's client refuses a non-integral number")
    for l in face["landmarks"]:
        t = l.get("type")
        require(t in LANDMARK_NAMES[1:] or (isinstance(t, int) and 1 <= t <= 36), name, f"landmark type {t!r}")
    for key in LIKELIHOOD_FIELDS:
        if key in face:
            require(face[key] in LIKELIHOOD_NAMES or face[key] in range(6), name, f"{key} = {face[key]!r}")


def check_raw(server: Server, data: bytes, no_face: bytes | None) -> None:
    content = base64.b64encode(data).decode()
    broken = base64.b64encode(b"not an image").decode()

    status, headers, parsed = post_json(server, {"requests": []})
    require_envelope(status, headers, parsed, "raw: {\"requests\": []}")
    ok("raw: {\"requests\": []}", f"400 {parsed['error']['status']}: {parsed['error']['message']}")
    status, headers, parsed = post_json(server, {})
    require_envelope(status, headers, parsed, "raw: {}")
    ok("raw: {} (no requests)", f"400: {parsed['error']['message']}")
    status, headers, parsed = post_json(server, b"this is not JSON")
    require_envelope(status, headers, parsed, "raw: not JSON")
    ok("raw: a body that is not JSON", f"400: {parsed['error']['message']}")

    one = {"image": {"content": broken}, "features": [{"type": "FACE_DETECTION"}]}
    status, headers, parsed = post_json(server, {"requests": [one] * 17})
    require_envelope(status, headers, parsed, "raw: 17 requests")
    ok("raw: 17 requests", f"400: {parsed['error']['message']}")
    status, headers, parsed = post_json(server, {"requests": [one] * 16})
    require(status == 200, "raw: 16 requests", f"HTTP {status}, want 200 (16 images are allowed): {str(parsed)[:200]}")
    responses = parsed.get("responses", [])
    require(len(responses) == 16 and all(r.get("error", {}).get("code", 0) != 0 for r in responses), "raw: 16 requests",
            f"want 16 per-image errors, got {str(responses)[:200]}")
    ok("raw: 16 requests", "200, with 16 per-image errors (broken images)")

    for label, feature in (("enum as a name", {"type": "FACE_DETECTION"}), ("enum as a number", {"type": 1})):
        status, _, parsed = post_json(server, {"requests": [{"image": {"content": content}, "features": [feature]}]})
        require(status == 200, f"raw: {label}", f"HTTP {status}: {str(parsed)[:200]}")
        faces = parsed["responses"][0].get("faceAnnotations", [])
        require(len(faces) == 1, f"raw: {label}", f"{len(faces)} faces, want 1: {str(parsed)[:200]}")
        check_raw_face_json(faces[0], f"raw: {label}")
        ok(f"raw: {label}", f"{json.dumps(feature)} -> 1 face, integral vertices, enum names in the answer")

    status, _, parsed = post_json(server, {"requests": [{"image": {"content": content}, "features": [{"type": 1}]}]},
                                  query="?%24alt=json%3Benum-encoding%3Dint")
    require(status == 200, "raw: $alt=json;enum-encoding=int", f"HTTP {status}: {str(parsed)[:200]}")
    ok("raw: ?$alt=json;enum-encoding=int (what Google's client adds)", "200")

    urlsafe = base64.urlsafe_b64encode(data).decode().rstrip("=")
    status, _, parsed = post_json(server, {"requests": [{"image": {"content": urlsafe}, "features": [{"type": 1}]}]})
    if status == 200 and len(parsed["responses"][0].get("faceAnnotations", [])) == 1:
        ok("raw: URL-safe base64 without padding (proto3 JSON allows it)", "1 face")
    else:
        note(f"URL-safe unpadded base64 content not accepted (HTTP {status}); proto3 JSON parsers accept it: {str(parsed)[:160]}")

    if no_face is not None:
        status, _, parsed = post_json(server, {"requests": [{"image": {"content": base64.b64encode(no_face).decode()},
                                                             "features": [{"type": "FACE_DETECTION"}]}]})
        require(status == 200, "raw: face-free image", f"HTTP {status}: {str(parsed)[:200]}")
        require(parsed.get("responses") == [{}], "raw: face-free image", f"want {{\"responses\": [{{}}]}}, got {str(parsed)[:200]}")
        ok("raw: face-free image", "{\"responses\": [{}]}")


def check_api_key(binary: str, data: bytes) -> None:
    from google.api_core import exceptions
    from google.auth import exceptions as auth_exceptions
    from google.cloud import vision

    key = "cv-check-" + base64.b32encode(os.urandom(10)).decode().lower()
    key_file = tempfile.NamedTemporaryFile("w", prefix="visage-keys-", suffix=".txt", delete=False)
    try:
        key_file.write(key + "\n")
        key_file.close()
        server = server_harness.start_server(binary, ["--api-key-file", key_file.name], "api-key")
        try:
            ok("second server, with --api-key-file", server.base)
            body = {"requests": [{"image": {"content": base64.b64encode(data).decode()}, "features": [{"type": 1}]}]}
            status, _, parsed = post_json(server, body)
            require(status == 401, "api key: none", f"HTTP {status}, want 401")
            ok("api key: none", "401")
            status, _, _ = post_json(server, body, query="?key=wrong-" + key)
            require(status == 401, "api key: wrong ?key=", f"HTTP {status}, want 401")
            ok("api key: a wrong ?key=", "401")
            for label, query, headers in (("?key=", "?key=" + key, {}),
                                          ("x-api-key", "", {"x-api-key": key}),
                                          ("Authorization: Bearer", "", {"Authorization": "Bearer " + key})):
                status, _, parsed = post_json(server, body, query=query, headers=headers)
                require(status == 200, f"api key: {label}", f"HTTP {status}, want 200: {str(parsed)[:200]}")
                ok(f"api key: {label}", "200")

            # A 401 makes google-auth's session refresh the credentials and retry once;
            # AnonymousCredentials cannot refresh, so the client raises InvalidOperation rather
            # than api_core's Unauthorized.
            try:
                make_client(server).face_detection(image=vision.Image(content=data), timeout=CALL_TIMEOUT)
                raise CheckFailed("api key: Google's client without a key got an answer, want 401")
            except (exceptions.Unauthorized, auth_exceptions.InvalidOperation) as error:
                ok("api key: Google's client without a key", f"refused ({type(error).__name__}: {error})")

            status, _, parsed = post_json(server, body, headers={"x-goog-api-key": key})
            require(status == 200, "api key: x-goog-api-key",
                    f"HTTP {status}, want 200: Google's client with client_options={{'api_key': ...}} sends the key in "
                    "the x-goog-api-key header (google-auth's api_key credentials), so the server must accept it there")
            ok("api key: x-goog-api-key header (what Google's client sends)", "200")
            response = make_client(server, api_key=key).face_detection(image=vision.Image(content=data), timeout=CALL_TIMEOUT)
            require(len(response.face_annotations) == 1, "api key: Google's client with client_options api_key",
                    f"{len(response.face_annotations)} faces")
            ok("api key: Google's client with client_options={'api_key': ...}", "1 face")
        finally:
            server.stop()
    finally:
        try:
            os.unlink(key_file.name)
        except OSError:
            pass


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", required=True, help="the visage-server executable")
    parser.add_argument("--image", help="a photo with one clear, upright, frontal face (default: Weights/bench/astronaut.png)")
    parser.add_argument("--group", help="a photo with more than 3 faces (default: the first of several fixtures that has)")
    parser.add_argument("--angle-tolerance", type=float, default=6.0,
                        help="degrees between an angle and its mirror's negation (default 6)")
    parser.add_argument("--skip-api-key", action="store_true", help="skip the second server (API keys)")
    args = parser.parse_args()

    # Loopback only: no proxy, whatever the environment says (requests and urllib read these).
    for name in ("NO_PROXY", "no_proxy"):
        os.environ[name] = ",".join(filter(None, [os.environ.get(name, ""), "127.0.0.1", "localhost"]))
    server_harness.exit_on_sigterm(143)

    binary = os.path.abspath(args.binary)
    try:
        import google.cloud.vision  # noqa: F401
        from importlib.metadata import version
    except ImportError:
        print("google-cloud-vision is not installed: .venv-server/bin/pip install google-cloud-vision", file=sys.stderr)
        return 2
    if not os.access(binary, os.X_OK):
        print(f"no executable at {binary}", file=sys.stderr)
        return 2
    try:
        face_path = find_file(args.image, FACE_IMAGE_CANDIDATES, "face photo")
    except RuntimeError as error:
        print(error, file=sys.stderr)
        return 2
    with open(face_path, "rb") as f:
        face_data = f.read()
    no_face = None
    for path in NO_FACE_CANDIDATES:
        if os.path.isfile(os.path.join(REPO, path)):
            with open(os.path.join(REPO, path), "rb") as f:
                no_face = f.read()
            break
    print(f"google-cloud-vision {version('google-cloud-vision')}, google-api-core {version('google-api-core')}, "
          f"protobuf {version('protobuf')}", flush=True)

    try:
        server = server_harness.start_server(binary, [], "main")
    except server_harness.ServerError as error:
        print(f"FAIL could not start visage-server: {error}", file=sys.stderr)
        return 2
    try:
        ok("server listening", server.base)
        status, _, parsed = post_json(server, {"requests": []})
        require(status != 404, "route", f"POST {ROUTE} answers 404: the route is missing")

        client = make_client(server)
        face, marks = check_single_face(client, face_data, face_path, args.angle_tolerance)
        check_mirror(client, face_data, face, marks, args.angle_tolerance)
        face_box = tuple(v for vertex in vertices(face.bounding_poly)[0::2] for v in vertex)
        check_group(client, args.group, face_data, face_box)
        check_batch(client, face_data)
        check_raw(server, face_data, no_face)
        server.stop()
        if args.skip_api_key:
            note("API-key checks skipped (--skip-api-key)")
        else:
            check_api_key(binary, face_data)
    except Exception as failure:  # the client raising (HTTP errors, parse errors) is a failure too
        return server_harness.report_failure(server, failure, CheckFailed)
    finally:
        server.stop()
    print("all checks passed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
