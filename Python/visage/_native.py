"""The engine: Visage's Swift library as one shared object, loaded with ctypes.

Its C interface is `Python/Sources/CVisage/include/visage.h`; the declarations here are its, held
to it by tests/test_c_header.py. ctypes releases the GIL for the length of each call, so tasks
on two threads run side by side.
"""

from __future__ import annotations

import ctypes
import enum
import json
import os
from typing import Optional, Tuple

import numpy as np

_HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(_HERE, "models")
LANDMARKER_MODEL = os.path.join(MODELS, "face_landmarker.task")
FULL_RANGE_MODEL = os.path.join(MODELS, "face_detection_full_range.tflite")

_ErrorOut = ctypes.POINTER(ctypes.c_void_p)
LIVE_STREAM_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_char_p)


# The header's enums, by its names without their prefixes (VISAGE_FIELD_LANDMARKS is
# Field.LANDMARKS).


class Status(enum.IntEnum):
    """`visage_status`: what a call returns."""

    OK = 0
    INVALID_ARGUMENT = 1
    ENGINE_FAILED = 2
    FILE_NOT_FOUND = 3


class Mode(enum.IntEnum):
    """`visage_running_mode`."""

    IMAGE = 0
    VIDEO = 1
    LIVE_STREAM = 2


class PixelFormat(enum.IntEnum):
    """`visage_image_format`: bytes a pixel."""

    GRAY8 = 1
    SRGB = 3
    SRGBA = 4


class Decoder(enum.IntEnum):
    """`visage_decoder`."""

    MEDIAPIPE = 0
    STANDARD = 1


class Field(enum.IntEnum):
    """`visage_field`: a result's fields."""

    LANDMARKS = 0
    BLENDSHAPES = 1
    MATRICES = 2
    HEAD_POSES = 3
    METRIC_LANDMARKS = 4
    IRIS_DISTANCES = 5
    TRACKING_IDS = 6
    SCORES = 7
    BOXES = 10
    CATEGORIES = 11
    KEYPOINTS = 12
    FACE_PRESENCES = 13
    DETECTION_TRACKING_IDS = 14
    ROTATIONS = 15


class VisageImage(ctypes.Structure):
    """`visage_image`: pixels in memory."""

    _fields_ = [
        ("pixels", ctypes.c_void_p),
        ("byte_count", ctypes.c_int64),
        ("width", ctypes.c_int64),
        ("height", ctypes.c_int64),
        ("row_bytes", ctypes.c_int64),
        ("format", ctypes.c_int32),
        ("rotation_degrees", ctypes.c_int32),
    ]


# The version of the C interface this package speaks (VISAGE_ABI_VERSION): the declarations
# below are those of this version. A library of another version (a wheel's package beside
# another build's object) is refused at import.
ABI_VERSION = 5


def _load() -> ctypes.CDLL:
    path = os.environ.get("VISAGE_LIBRARY") or os.path.join(_HERE, "libvisage.so")
    lib = ctypes.CDLL(path)
    p, i32, i64 = ctypes.c_void_p, ctypes.c_int32, ctypes.c_int64
    found = None
    if hasattr(lib, "visage_abi_version"):
        lib.visage_abi_version.restype, lib.visage_abi_version.argtypes = i32, []
        found = lib.visage_abi_version()
    if found != ABI_VERSION:
        raise ImportError(
            f"{path} speaks Visage's C interface version {found if found is not None else '1 or none'}; this "
            f"package needs version {ABI_VERSION}: install the wheel as built, or rebuild (pip install ./Python)"
        )
    image, enum32 = ctypes.POINTER(VisageImage), i32
    signatures = {
        "visage_free": (None, [p]),
        "visage_task_create": (i32, [ctypes.c_char_p, LIVE_STREAM_CALLBACK, p, ctypes.POINTER(p), _ErrorOut]),
        "visage_task_run": (i32, [p, enum32, image, i64, ctypes.POINTER(ctypes.c_float), i64, ctypes.POINTER(p), _ErrorOut]),
        "visage_task_close": (None, [p]),
        "visage_result_field": (i64, [p, enum32, ctypes.POINTER(p), ctypes.POINTER(i64)]),
        "visage_result_names": (p, [p]),
        "visage_result_timestamp": (i64, [p]),
        "visage_result_engine_nanoseconds": (i64, [p]),
        "visage_result_free": (None, [p]),
        "visage_image_decode": (i32, [ctypes.c_char_p, enum32, image, _ErrorOut]),
        "visage_image_decodes_as_mediapipe": (i32, []),
        "visage_face_crop": (i32, [image, ctypes.POINTER(ctypes.c_float), i64, i64, ctypes.c_double, ctypes.POINTER(p), _ErrorOut]),
        "visage_face_connections": (i64, [ctypes.c_char_p, ctypes.POINTER(i32), i64]),
        "visage_option_table": (p, [ctypes.c_char_p]),
        "visage_command_line": (i32, [i32, ctypes.POINTER(ctypes.c_char_p)]),
    }
    for name, (restype, argtypes) in signatures.items():
        function = getattr(lib, name)
        function.restype = restype
        function.argtypes = argtypes
    return lib


lib = _load()

_EXCEPTIONS = {Status.INVALID_ARGUMENT: ValueError, Status.ENGINE_FAILED: RuntimeError, Status.FILE_NOT_FOUND: FileNotFoundError}


def check(status: int, message: ctypes.c_void_p) -> None:
    """Raises the exception for a failed call, with the engine's words."""
    if status == Status.OK:
        return
    text = take_string(message.value) if message.value else "unknown error"
    raise _EXCEPTIONS.get(status, RuntimeError)(text)


def take_string(pointer: Optional[int]) -> str:
    """The text of a string the engine allocated, which is then freed."""
    if not pointer:
        return ""
    try:
        return ctypes.string_at(pointer).decode("utf-8", "replace")
    finally:
        lib.visage_free(pointer)


def image(data: np.ndarray, rotation_degrees: int = 0) -> Tuple[VisageImage, np.ndarray]:
    """A `visage_image` of an Image's (height, width, channels) uint8 pixels, and the array it
    points into (to keep alive for the call): the array itself when its rows are runs of whole
    pixels, else a contiguous copy."""
    height, width, channels = data.shape
    item = data.itemsize
    if data.dtype != np.uint8 or data.strides[2] != item or data.strides[1] != channels * item or data.strides[0] < 0:
        data = np.ascontiguousarray(data, dtype=np.uint8)
    row_bytes = data.strides[0]
    span = row_bytes * (height - 1) + width * channels
    return VisageImage(data.ctypes.data, span, width, height, row_bytes, channels, rotation_degrees), data


def option_table(task: str) -> list:
    """The option table of a task (`detect`, `landmark`, `analyze`), one dict an option: its
    command-line `name`, `python` name (None when Python does not take it), `kind`, `default`
    and an `alternative` value. The engine maps every option through it."""
    pointer = lib.visage_option_table(task.encode())
    if not pointer:
        raise ValueError(f"no task {task!r}")
    return json.loads(take_string(pointer))


def face_connections(name: str) -> list:
    """One of the engine's face landmark connection lists, as (start, end) pairs."""
    count = lib.visage_face_connections(name.encode(), None, 0)
    if count < 0:
        raise ValueError(f"no connection list {name!r}")
    values = (ctypes.c_int32 * count)()
    lib.visage_face_connections(name.encode(), values, count)
    return list(zip(values[0::2], values[1::2]))


class ResultTable:
    """A result the engine made, read field by field into numpy; frees it when closed."""

    def __init__(self, pointer: int):
        self.pointer = pointer

    def rows(self, field: Field) -> Optional[np.ndarray]:
        """The field's rows as a 2-D float32 array (read-only, a copy of the engine's), or None
        when the output is off."""
        values, width = ctypes.c_void_p(), ctypes.c_int64()
        count = lib.visage_result_field(self.pointer, field, ctypes.byref(values), ctypes.byref(width))
        if count < 0:
            return None
        size = count * width.value
        data = ctypes.string_at(values.value, size * 4) if size else b""
        return np.frombuffer(data, dtype=np.float32).reshape(count, width.value)

    def names(self) -> list:
        """The blendshapes' category names."""
        return take_string(lib.visage_result_names(self.pointer)).split("\n")

    def timestamp(self) -> int:
        """The timestamp the result is for (0 in image mode)."""
        return lib.visage_result_timestamp(self.pointer)

    def engine_milliseconds(self) -> float:
        """How long the engine's own call took."""
        return lib.visage_result_engine_nanoseconds(self.pointer) / 1e6

    def close(self) -> None:
        """Frees the engine's table (once)."""
        if self.pointer:
            lib.visage_result_free(self.pointer)
            self.pointer = 0
