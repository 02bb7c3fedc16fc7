#!/usr/bin/env python3
"""Convert MediaPipe's face-geometry graph test data into a JSON fixture for Visage.

MediaPipe's FaceGeometryFromLandmarksGraph test
(mediapipe/tasks/cc/vision/face_geometry/face_geometry_from_landmarks_graph_test.cc) feeds one
NormalizedLandmarkList of 478 landmarks (face_blendshapes_in_landmarks.prototxt) with an image
size of 820 x 1024 (width, height) through the geometry pipeline and compares the FaceGeometry it
outputs with face_geometry_expected_out.pbtxt, every float within an absolute 1e-4. This script
reads those two text protos and writes

    Tests/Fixtures/geometry/mediapipe_expected/input_landmarks.json
    Tests/Fixtures/geometry/mediapipe_expected/expected.json
    Tests/Fixtures/geometry/mediapipe_expected/README.md

Usage (standard library only):

    git --git-dir=<mediapipe mirror> show HEAD:mediapipe/tasks/testdata/vision/face_blendshapes_in_landmarks.prototxt > /tmp/mp/face_blendshapes_in_landmarks.prototxt
    git --git-dir=<mediapipe mirror> show HEAD:mediapipe/tasks/testdata/vision/face_geometry_expected_out.pbtxt > /tmp/mp/face_geometry_expected_out.pbtxt
    python3 Tools/make_geometry_expected_fixture.py /tmp/mp --commit <mediapipe commit>

Optionally pass --test-source <path to face_geometry_from_landmarks_graph_test.cc> to check that
the environment, image size and tolerance written below still match the test.

Numbers are copied as the text protos print them (shortest float32 decimals), so parsing them
as Float gives MediaPipe's float32 values.
"""
import argparse
import json
import math
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Tests", "Fixtures", "geometry", "mediapipe_expected")

LANDMARKS_FILE = "face_blendshapes_in_landmarks.prototxt"
EXPECTED_FILE = "face_geometry_expected_out.pbtxt"
TESTDATA_DIR = "mediapipe/tasks/testdata/vision/"
TEST_SOURCE = "mediapipe/tasks/cc/vision/face_geometry/face_geometry_from_landmarks_graph_test.cc"
METADATA = "mediapipe/tasks/cc/vision/face_geometry/data/geometry_pipeline_metadata_landmarks.binarypb"

# What the MediaPipe test uses (TEST_SOURCE), and what FaceGeometryFromLandmarksGraph builds
# when no environment is given (face_geometry_from_landmarks_graph.cc); both tests in the file
# compare against the same expected output.
IMAGE_WIDTH = 820
IMAGE_HEIGHT = 1024
ENVIRONMENT = {
    "originPointLocation": "TOP_LEFT_CORNER",
    "verticalFovDegrees": 63.0,
    "nearPlane": 1.0,
    "farPlane": 10000.0,
}
TOLERANCE = 1e-4

NUMBER = r"([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)"


def number(text):
    value = float(text)
    if not math.isfinite(value):
        sys.exit(f"non-finite number {text!r}")
    return value


def strip_comments(text):
    return "\n".join(line.split("#", 1)[0] for line in text.splitlines())


def read_landmarks(path):
    """The landmarks of a NormalizedLandmarkList text proto, as [x, y, z]."""
    text = strip_comments(open(path, encoding="utf-8").read())
    blocks = re.findall(r"landmark\s*\{([^}]*)\}", text)
    points = []
    for block in blocks:
        fields = dict(re.findall(r"\b(x|y|z)\s*:\s*" + NUMBER, block))
        points.append([number(fields.get(axis, "0")) for axis in ("x", "y", "z")])
    return points


def read_face_geometry(path):
    """vertex_buffer, index_buffer, vertex/primitive types and the pose matrix of a FaceGeometry."""
    text = strip_comments(open(path, encoding="utf-8").read())
    mesh = re.search(r"\bmesh\s*\{([^}]*)\}", text)
    matrix = re.search(r"\bpose_transform_matrix\s*\{([^}]*)\}", text)
    if not mesh or not matrix:
        sys.exit(f"{path}: no mesh or pose_transform_matrix")
    mesh, matrix = mesh.group(1), matrix.group(1)
    vertex_type = re.search(r"vertex_type\s*:\s*(\w+)", mesh)
    primitive_type = re.search(r"primitive_type\s*:\s*(\w+)", mesh)
    layout = re.search(r"layout\s*:\s*(\w+)", matrix)
    return {
        "vertexType": vertex_type.group(1) if vertex_type else "VERTEX_PT",
        "primitiveType": primitive_type.group(1) if primitive_type else "TRIANGLE",
        "vertexBuffer": [number(v) for v in re.findall(r"vertex_buffer\s*:\s*" + NUMBER, mesh)],
        "indexBuffer": [int(v) for v in re.findall(r"index_buffer\s*:\s*(\d+)", mesh)],
        "rows": int(re.search(r"rows\s*:\s*(\d+)", matrix).group(1)),
        "cols": int(re.search(r"cols\s*:\s*(\d+)", matrix).group(1)),
        "layout": layout.group(1) if layout else "COLUMN_MAJOR",
        "packedData": [number(v) for v in re.findall(r"packed_data\s*:\s*" + NUMBER, matrix)],
    }


def check_test_source(path):
    """Exits if the constants above are no longer what the MediaPipe test uses."""
    text = open(path, encoding="utf-8").read()
    wanted = {
        "image size": r"std::make_pair\(\s*%d\s*,\s*%d\s*\)" % (IMAGE_WIDTH, IMAGE_HEIGHT),
        "vertical FOV": r"set_vertical_fov_degrees\(\s*63(?:\.0*)?\b",
        "near plane": r"set_near_plane\(\s*1(?:\.0*)?\b",
        "far plane": r"set_far_plane\(\s*10000(?:\.0*)?\b",
        "origin": r"OriginPointLocation::TOP_LEFT_CORNER",
        "tolerance": r"1e-4\)",
        "landmarks file": re.escape(LANDMARKS_FILE),
        "expected file": re.escape(EXPECTED_FILE),
        "metadata": re.escape(os.path.basename(METADATA)),
    }
    missing = [name for name, pattern in wanted.items() if not re.search(pattern, text)]
    if missing:
        sys.exit(f"{path}: the test no longer matches this script ({', '.join(missing)})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("directory", help=f"directory holding {LANDMARKS_FILE} and {EXPECTED_FILE}")
    parser.add_argument("--commit", default="unknown", help="the MediaPipe commit the files come from")
    parser.add_argument("--test-source", help=f"path to a copy of {os.path.basename(TEST_SOURCE)} to check against")
    parser.add_argument("--out", default=OUT, help="output directory (default: %(default)s)")
    args = parser.parse_args()

    if args.test_source:
        check_test_source(args.test_source)

    landmarks = read_landmarks(os.path.join(args.directory, LANDMARKS_FILE))
    geometry = read_face_geometry(os.path.join(args.directory, EXPECTED_FILE))

    # Shape checks: 478 input landmarks (the graph keeps the first 468), a VERTEX_PT mesh of 468
    # vertices (x, y, z, u, v), 898 triangles, and a 4x4 column-major matrix whose last row is
    # 0 0 0 1.
    if len(landmarks) != 478:
        sys.exit(f"expected 478 landmarks, got {len(landmarks)}")
    if geometry["vertexType"] != "VERTEX_PT" or geometry["primitiveType"] != "TRIANGLE":
        sys.exit(f"unexpected mesh types {geometry['vertexType']} / {geometry['primitiveType']}")
    vertex_buffer = geometry["vertexBuffer"]
    if len(vertex_buffer) != 468 * 5:
        sys.exit(f"expected 468 * 5 vertex_buffer floats, got {len(vertex_buffer)}")
    if len(geometry["indexBuffer"]) != 898 * 3:
        sys.exit(f"expected 898 * 3 index_buffer entries, got {len(geometry['indexBuffer'])}")
    if (geometry["rows"], geometry["cols"], len(geometry["packedData"])) != (4, 4, 16):
        sys.exit("pose_transform_matrix is not 4x4")
    if geometry["layout"] != "COLUMN_MAJOR":
        sys.exit(f"unexpected matrix layout {geometry['layout']}")

    packed = geometry["packedData"]
    # MatrixData packs column by column (Eigen's order): entry (row r, column c) is packed[c * 4 + r].
    row_major = [packed[column * 4 + row] for row in range(4) for column in range(4)]
    if row_major[12:] != [0.0, 0.0, 0.0, 1.0]:
        sys.exit(f"last matrix row is {row_major[12:]}, not 0 0 0 1")

    vertices = [vertex_buffer[i * 5 : i * 5 + 3] for i in range(468)]

    # Sanity: the rotation part has orthonormal columns of length ~1 (scale ~1).
    columns = [[row_major[r * 4 + c] for r in range(3)] for c in range(3)]
    lengths = [math.sqrt(sum(v * v for v in column)) for column in columns]
    if any(abs(length - 1) > 0.05 for length in lengths):
        sys.exit(f"rotation columns have lengths {lengths}")

    os.makedirs(args.out, exist_ok=True)
    source = {
        "repository": "https://github.com/google-ai-edge/mediapipe",
        "commit": args.commit,
        "licence": "Apache-2.0",
        "landmarks": TESTDATA_DIR + LANDMARKS_FILE,
        "expected": TESTDATA_DIR + EXPECTED_FILE,
        "test": TEST_SOURCE,
        "generator": "Tools/make_geometry_expected_fixture.py",
    }
    with open(os.path.join(args.out, "input_landmarks.json"), "w", encoding="utf-8") as f:
        json.dump(landmarks, f, separators=(",", ":"))
        f.write("\n")
    expected = {
        "source": source,
        "imageWidth": IMAGE_WIDTH,
        "imageHeight": IMAGE_HEIGHT,
        "environment": ENVIRONMENT,
        "metadata": METADATA,
        "tolerance": TOLERANCE,
        "vertices": vertices,
        "poseTransformMatrix": row_major,
        "poseTransformMatrixLayout": "row-major (converted from the proto's column-major packed_data)",
        "triangleCount": len(geometry["indexBuffer"]) // 3,
    }
    with open(os.path.join(args.out, "expected.json"), "w", encoding="utf-8") as f:
        json.dump(expected, f, separators=(",", ":"))
        f.write("\n")

    readme = f"""# MediaPipe's face-geometry graph test data

From [google-ai-edge/mediapipe](https://github.com/google-ai-edge/mediapipe) at commit
`{args.commit}`, licensed Apache-2.0 (Copyright The MediaPipe Authors). The numbers are
MediaPipe's test data, converted to JSON by `Tools/make_geometry_expected_fixture.py`; no
MediaPipe code is included.

Sources:

- `{TESTDATA_DIR}{LANDMARKS_FILE}`: the input, one `NormalizedLandmarkList`.
- `{TESTDATA_DIR}{EXPECTED_FILE}`: the expected `FaceGeometry`.
- `{TEST_SOURCE}`: the test that uses them: it runs
  `FaceGeometryFromLandmarksGraph` (which keeps the first 468 landmarks and runs
  `FaceGeometryPipelineCalculator`) with the metadata `{METADATA}` (the same metadata as the
  `geometry_pipeline_metadata_landmarks.binarypb` inside `face_landmarker.task`), an
  `IMAGE_SIZE` of `(820, 1024)` (width, height), and either the graph's default environment or the
  same environment passed as a side packet. It checks the output with
  `testing::proto::Approximately(EqualsProto(expected), 1e-4)`: every float (vertex positions,
  texture coordinates, matrix entries) within an absolute 1e-4.

Files:

- `input_landmarks.json`: the 478 input landmarks as `[x, y, z]`: x and y normalized to the
  image width and height (origin top-left), z relative depth scaled like x. The geometry pipeline
  uses only the first 468 (the face mesh; the last 10 are iris points).
- `expected.json`:
  - `vertices`: the 468 `[x, y, z]` positions of the output mesh, in centimetres. These are the
    runtime metric landmarks (the input unprojected with the estimated scale) multiplied by the
    inverse of the pose matrix, that is the face's own landmarks in the canonical face's frame,
    not the canonical model. The proto's vertex buffer also holds `u, v` per vertex
    (`VERTEX_PT`) and the proto has an index buffer (`triangleCount`: 898 triangles); both are
    dropped here: they are copied unchanged from the canonical mesh (checked at commit
    `85c0cdc7` against `face_landmarker.task`'s metadata: identical).
  - `poseTransformMatrix`: the 4x4 pose matrix (canonical face to camera space, cm), 16 floats
    **row by row**. The proto's `MatrixData.packed_data` is column-major (its default layout),
    so entry (r, c) is `packed_data[c * 4 + r]`; the translation is the last column.
  - `imageWidth`, `imageHeight`, `environment` (origin, vertical FOV in degrees, near and far
    planes in cm), `metadata`, `tolerance` (MediaPipe's 1e-4), `source`.

Regenerate:

```sh
mkdir -p /tmp/mp
git --git-dir=<mediapipe mirror> show {args.commit if args.commit != "unknown" else "HEAD"}:{TESTDATA_DIR}{LANDMARKS_FILE} > /tmp/mp/{LANDMARKS_FILE}
git --git-dir=<mediapipe mirror> show {args.commit if args.commit != "unknown" else "HEAD"}:{TESTDATA_DIR}{EXPECTED_FILE} > /tmp/mp/{EXPECTED_FILE}
python3 Tools/make_geometry_expected_fixture.py /tmp/mp --commit {args.commit}
```
"""
    with open(os.path.join(args.out, "README.md"), "w", encoding="utf-8") as f:
        f.write(readme)

    print(f"wrote {args.out}: {len(landmarks)} landmarks, {len(vertices)} vertices")
    print("matrix rows:")
    for row in range(4):
        print("  ", row_major[row * 4 : row * 4 + 4])
    print("rotation column lengths:", lengths)


if __name__ == "__main__":
    main()
