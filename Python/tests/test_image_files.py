"""`Image.create_from_file` reads files as MediaPipe 1.2.2's does, held to what MediaPipe made of
each file of Tests/Fixtures/stb/manifest.json (Tools/make_stb_fixtures.py): JPEG of every kind
and every Exif orientation, cut short too; PNG of every bit depth and layout; BMP; GIF. The
same format, shape and pixels (an FNV-1a 64 hash of them), or the same exception type."""

import json

import pytest

import visage as mp
from visage import _native
from conftest import FIXTURES

MANIFEST = json.loads((FIXTURES / "stb" / "manifest.json").read_text())["files"]
# Where Visage differs on purpose: MediaPipe refuses a top-down BMP that stb_image reads, and
# dies (SIGILL) on a cut-off Exif directory.
DIFFERENT = {"stb/bmp_top_down.bmp", "exif/bad_truncated_ifd.jpg"}
CASES = [f for f in MANIFEST if f["file"] not in DIFFERENT]


def fnv1a64(data: bytes) -> str:
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


def test_the_package_decodes_as_mediapipe():
    assert _native.lib.visage_image_decodes_as_mediapipe() == 1, "the engine was built without stb_image"
    assert len(CASES) > 100


@pytest.mark.parametrize("case", CASES, ids=[f["file"] for f in CASES])
def test_create_from_file_equals_mediapipe(case):
    path = str(FIXTURES / case["file"])
    if "error" in case:
        with pytest.raises({"RuntimeError": RuntimeError, "ValueError": ValueError}[case["error"]]):
            mp.Image.create_from_file(path)
        return
    image = mp.Image.create_from_file(path)
    view = image.numpy_view()
    assert image.image_format == getattr(mp.ImageFormat, case["format"])
    assert list(view.shape) == case["shape"]
    assert fnv1a64(view.tobytes()) == case["fnv1a64"], "pixels differ from MediaPipe's"
