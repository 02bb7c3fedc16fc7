"""Paths and helpers the tests share. The tests run against the installed package (the wheel,
in a fresh venv: Python/test) and the repository's fixtures and `visage` command line."""

import os
import struct
import subprocess
import zlib
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "Tests" / "Fixtures"
ASTRONAUT = str(FIXTURES / "images" / "astronaut.png")
# Real photos: a portrait, a man with a camera, a face in a crowd's source, a meeting of ten,
# two crowds.
PHOTOS = [
    "images/astronaut.png",
    "images/camera.png",
    "crowd/sources/denis.png",
    "crowd/group/TeamMeeting2019.jpg",
    "crowd/crowd_00.jpg",
    "crowd/crowd_01.jpg",
]


@pytest.fixture(scope="session")
def cli() -> str:
    """The release `visage` the README's test command builds (or $VISAGE_CLI)."""
    path = os.environ.get("VISAGE_CLI", str(ROOT / ".build" / "release" / "visage"))
    if not os.access(path, os.X_OK):
        pytest.fail(f"no visage command line at {path}: run `swift build -c release` first or set VISAGE_CLI")
    return path


def run_cli(cli: str, *arguments: str) -> list:
    """The command line's JSON Lines output, one object per input."""
    import json

    output = subprocess.run([cli, *arguments, "--output", "json"], check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in output.splitlines() if line.strip()]


def fnv1a64(pixels: np.ndarray) -> str:
    """The fixture scripts' hash of pixels (Tools/make_exif_fixtures.py, make_stb_fixtures.py):
    64-bit FNV-1a of the bytes, rows top to bottom, as 16 hex digits."""
    h = 0xCBF29CE484222325
    for byte in np.ascontiguousarray(pixels).tobytes():
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def write_png(path: Path, rgb: np.ndarray) -> None:
    """An RGB PNG (8-bit, no filter), so that the tests need nothing beyond numpy."""
    height, width, _ = rgb.shape
    rows = np.concatenate([np.zeros((height, 1), np.uint8), rgb.reshape(height, width * 3)], axis=1)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    body = chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows.tobytes(), 6)) + chunk(b"IEND", b"")
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + body)
