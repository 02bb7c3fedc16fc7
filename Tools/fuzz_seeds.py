#!/usr/bin/env python3
"""Writes the seed corpus of one fuzz target (see Tools/fuzz.sh) from the committed fixtures.

Seeds are made at run time, not committed: several are megabytes of model, and the rest are
small files derived from fixtures that are already in the repository.

    python3 Tools/fuzz_seeds.py TARGET OUTPUT_DIRECTORY
"""
import base64
import glob
import json
import os
import struct
import sys
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TASK = os.path.join(ROOT, "Weights", "face_landmarker.task")


def task_entry(name):
    with zipfile.ZipFile(TASK) as bundle:
        return bundle.read(name)


def small_codec_fixtures(limit=64 * 1024):
    """The PNG and JPEG fixtures small enough to mutate quickly (the huge ones are kept:
    they are small files that declare huge images)."""
    paths = sorted(glob.glob(os.path.join(ROOT, "Tests", "Fixtures", "codecs", "*.png")))
    paths += sorted(glob.glob(os.path.join(ROOT, "Tests", "Fixtures", "codecs", "*.jpg")))
    return [(os.path.basename(p), open(p, "rb").read()) for p in paths if os.path.getsize(p) <= limit]


def bundle(entries):
    """A stored (uncompressed) zip, as .task files are."""
    from io import BytesIO
    buffer = BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        for name, data in entries:
            archive.writestr(name, data)
    return buffer.getvalue()


def task_bundle():
    geometry = task_entry("geometry_pipeline_metadata_landmarks.binarypb")
    yield "two_entries.task", bundle([("a.tflite", b"TFL3" * 8), ("b.binarypb", b"\x08\x01")])
    yield "geometry.task", bundle([("geometry_pipeline_metadata_landmarks.binarypb", geometry[:2048])])
    yield "empty_entry.task", bundle([("empty", b"")])
    yield "empty.task", bundle([])


def model():
    yield "face_detection_full_range.tflite", open(os.path.join(ROOT, "Weights", "face_detection_full_range.tflite"), "rb").read()
    yield "face_detector.tflite", task_entry("face_detector.tflite")
    yield "face_blendshapes.tflite", task_entry("face_blendshapes.tflite")


def geometry():
    yield "geometry_pipeline_metadata_landmarks.binarypb", task_entry("geometry_pipeline_metadata_landmarks.binarypb")


def image():
    yield from small_codec_fixtures()
    # Exif orientation blocks, sound and malformed (Tools/make_exif_fixtures.py), small ones only.
    for path in sorted(glob.glob(os.path.join(ROOT, "Tests", "Fixtures", "exif", "*.*g"))):
        if os.path.getsize(path) <= 8 * 1024:
            yield "exif_" + os.path.basename(path), open(path, "rb").read()
    # The other formats stb_image reads (Tools/make_stb_fixtures.py), small ones only.
    for path in sorted(glob.glob(os.path.join(ROOT, "Tests", "Fixtures", "stb", "*.[bg]*"))):
        if os.path.getsize(path) <= 8 * 1024:
            yield "stb_" + os.path.basename(path), open(path, "rb").read()


def y4m_stream(header, frames, frame_bytes, frame_line=b"FRAME"):
    data = header.encode() + b"\n"
    for i in range(frames):
        data += frame_line + b"\n" + bytes((i * 37 + j * 11) & 0xFF for j in range(frame_bytes))
    return data


def y4m():
    yield "420jpeg.y4m", y4m_stream("YUV4MPEG2 W4 H4 F30:1 Ip A1:1 C420jpeg", 2, 16 + 2 * 4)
    yield "420_odd.y4m", y4m_stream("YUV4MPEG2 W3 H3 F25:1 C420mpeg2 XCOLORRANGE=FULL", 2, 9 + 2 * 4)
    yield "422.y4m", y4m_stream("YUV4MPEG2 W4 H2 F30000:1001 C422", 1, 8 + 2 * 4)
    yield "444.y4m", y4m_stream("YUV4MPEG2 W2 H2 F1:1 C444", 2, 12, b"FRAME Ixyz")
    yield "mono.y4m", y4m_stream("YUV4MPEG2 W5 H1 Cmono", 3, 5)
    yield "420p10.y4m", y4m_stream("YUV4MPEG2 W2 H2 C420p10", 1, 2 * (4 + 2))
    yield "444p16.y4m", y4m_stream("YUV4MPEG2 W1 H1 C444p16", 2, 6)


def npy_file(values, shape, descr="<f4", version=1):
    tuple_text = "(%s,)" % shape[0] if len(shape) == 1 else "(" + ", ".join(map(str, shape)) + ")"
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, tuple_text)
    prefix = 10 if version == 1 else 12
    header += " " * ((64 - (prefix + len(header) + 1) % 64) % 64) + "\n"
    size = struct.pack("<H", len(header)) if version == 1 else struct.pack("<I", len(header))
    data = struct.pack("<%d%s" % (len(values), "f" if descr == "<f4" else "d"), *values)
    return b"\x93NUMPY" + bytes([version, 0]) + size + header.encode() + data


def npy():
    for path in sorted(glob.glob(os.path.join(ROOT, "Tests", "Fixtures", "runtime", "*", "*.npy"))):
        if os.path.getsize(path) <= 4096:
            yield os.path.basename(os.path.dirname(path)) + "." + os.path.basename(path), open(path, "rb").read()
    yield "f8_v2.npy", npy_file([1.5, -2.0, 3.25], [3], "<f8", 2)
    yield "f4_v3_scalar.npy", npy_file([7.0], [], "<f4", 3)
    yield "f4_2x2.npy", npy_file([0.0, 1.0, 2.0, 3.0], [2, 2])


def records():
    fixtures = small_codec_fixtures(limit=4096)
    for name, data in fixtures[:6]:
        yield name + ".jsonl", json.dumps({"source": name, "data": base64.b64encode(data).decode()}).encode()
    name, data = fixtures[0]
    yield "no_source.jsonl", json.dumps({"data": base64.b64encode(data).decode()}).encode()
    yield "null_source.jsonl", json.dumps({"source": None, "data": base64.b64encode(data).decode()}).encode()
    yield "not_base64.jsonl", b'{"source": "x", "data": "@@@"}'


def requests():
    """visage-server request bodies: 'CONTENT-TYPE\nQUERY\nBODY' (Fuzz/Sources/FuzzRequests)."""
    fixtures = small_codec_fixtures(limit=4096)
    name, data = fixtures[0]
    encoded = base64.b64encode(data)
    yield "raw.req", b"image/png\nnum-faces=2&blendshapes=true\n" + data
    yield "json.req", b"application/json\nrange=all\n" + b'{"image": {"content": "' + encoded + b'"}}'
    yield "json_source.req", b'application/json\n\n{"image": {"source": {"imageUri": "x"}}}'
    form = (b'--b\r\nContent-Disposition: form-data; name="note"\r\n\r\nhi\r\n'
            b'--b\r\nContent-Disposition: form-data; name="image"; filename="a.png"\r\n\r\n' + data + b"\r\n--b--\r\n")
    yield "multipart.req", b'multipart/form-data; boundary="b"\nany-rotation\n' + form
    yield "octet.req", b"\nmin-detection-confidence=0.3&ignore-exif=false\n" + fixtures[-1][1]
    # Cloud Vision's batch (images:annotate): names and numbers, snake_case, errors per image.
    yield "annotate.req", (b"application/json\n$alt=json;enum-encoding=int\n"
                           b'{"requests": [{"image": {"content": "' + encoded + b'"}, "features": [{"type": 1, '
                           b'"maxResults": "3"}]}, {"image": {"source": {"image_uri": "x"}}, "features": '
                           b'[{"type": "LABEL_DETECTION"}]}], "imageContext": {"languageHints": ["en"]}}')


TARGETS = {
    "task-bundle": task_bundle, "model": model, "geometry": geometry, "image": image,
    "y4m": y4m, "npy": npy, "records": records, "requests": requests,
}

if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in TARGETS:
        sys.exit("usage: fuzz_seeds.py {%s} OUTPUT_DIRECTORY" % ",".join(TARGETS))
    os.makedirs(sys.argv[2], exist_ok=True)
    for name, data in TARGETS[sys.argv[1]]():
        with open(os.path.join(sys.argv[2], name), "wb") as f:
            f.write(data)
