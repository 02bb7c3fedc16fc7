"""The image a task reads (`mediapipe.tasks.python.vision.core.image`)."""

from __future__ import annotations

import ctypes
import enum
import os
import warnings
from typing import Literal

import numpy as np

from visage import _native


class ImageFormat(enum.IntEnum):
    """Pixel formats, with MediaPipe's numbers. Visage's tasks read SRGB, SRGBA and GRAY8."""

    UNKNOWN = 0
    SRGB = 1
    SRGBA = 2
    GRAY8 = 3
    GRAY16 = 4
    SRGB48 = 7
    SRGBA64 = 8
    VEC32F1 = 9
    VEC32F2 = 12
    VEC32F4 = 13


_CHANNELS = {ImageFormat.SRGB: 3, ImageFormat.SRGBA: 4, ImageFormat.GRAY8: 1}


class Image:
    """Pixels for a task: `Image(image_format=ImageFormat.SRGB, data=array)` with a uint8 array of
    shape (height, width, 3) (4 for SRGBA, (height, width) or (height, width, 1) for GRAY8).

    As in MediaPipe, the array is copied: changing it later changes nothing here, and a live
    stream's `output_image` is the frame it processed. `copy=False` (Visage) keeps the array
    instead, saving a copy of each frame: then it must not change while a task may still read
    it (a live-stream frame until its result comes).
    """

    def __init__(self, image_format: ImageFormat, data: np.ndarray, copy: bool = True):
        if not isinstance(data, np.ndarray):
            raise ValueError(f"data must be a numpy array, got {type(data).__name__}")
        image_format = ImageFormat(image_format)
        if image_format not in _CHANNELS:
            raise ValueError(f"Unsupported image format: {image_format.name} (Visage reads SRGB, SRGBA and GRAY8)")
        if data.dtype != np.uint8:
            raise ValueError(f"Unsupported image format: {image_format.name} needs uint8 data, got {data.dtype}")
        channels = _CHANNELS[image_format]
        shape_ok = data.ndim == 3 and data.shape[2] == channels or (channels == 1 and data.ndim == 2)
        if not shape_ok:
            raise ValueError(
                f"{image_format.name} data must have shape (height, width{', ' + str(channels) if channels > 1 else ''}), got {data.shape}"
            )
        if data.shape[0] < 1 or data.shape[1] < 1:
            raise ValueError(f"an image needs at least one pixel, got shape {data.shape}")
        self._format = image_format
        if data.ndim == 2:
            data = data[:, :, np.newaxis]
        self._data = np.array(data, order="C") if copy else data

    @classmethod
    def create_from_file(cls, file_name: str, decoder: Literal["mediapipe-python", "standard"] = "mediapipe-python") -> "Image":
        """Decodes an image file as MediaPipe 1.2.2 does: with stb_image (JPEG, PNG, BMP, GIF, ...),
        gray as GRAY8, RGB as SRGB, with alpha (PNG, GIF) as SRGBA, 16-bit samples cut to 8, and a
        JPEG turned upright by its Exif orientation (mirrored ones too); a PNG stays as stored.
        `decoder="standard"` (Visage) decodes PNG and JPEG with libpng and libjpeg-turbo instead,
        Pillow's pixels, always as SRGB, a JPEG turned upright as above.

        Raises FileNotFoundError for a missing file, RuntimeError for one that cannot be decoded
        and ValueError for gray with alpha, as MediaPipe does."""
        if decoder not in ("mediapipe-python", "standard"):
            raise ValueError(f"decoder must be 'mediapipe-python' or 'standard', got {decoder!r}")
        if decoder != "standard" and not _native.lib.visage_image_decodes_as_mediapipe():
            warnings.warn(
                "this build of Visage has no stb_image (Tools/stb-header was not run before it was built): "
                "create_from_file reads PNG and JPEG only, with JPEG pixels up to 3 levels from MediaPipe's",
                RuntimeWarning, stacklevel=2,
            )
        decoded, error = _native.VisageImage(), ctypes.c_void_p()
        coder = _native.Decoder.STANDARD if decoder == "standard" else _native.Decoder.MEDIAPIPE
        status = _native.lib.visage_image_decode(os.fsencode(file_name), coder, ctypes.byref(decoded), ctypes.byref(error))
        _native.check(status, error)
        try:
            shape = (decoded.height, decoded.width, decoded.format)
            data = np.frombuffer(ctypes.string_at(decoded.pixels, decoded.byte_count), dtype=np.uint8)
        finally:
            _native.lib.visage_free(decoded.pixels)
        formats = {_native.PixelFormat.GRAY8: ImageFormat.GRAY8, _native.PixelFormat.SRGB: ImageFormat.SRGB}
        return cls(formats.get(decoded.format, ImageFormat.SRGBA), data.reshape(shape), copy=False)

    @property
    def width(self) -> int:
        """Pixels per row."""
        return self._data.shape[1]

    @property
    def height(self) -> int:
        """Rows."""
        return self._data.shape[0]

    @property
    def channels(self) -> int:
        """Bytes per pixel: 3 for SRGB, 4 for SRGBA, 1 for GRAY8."""
        return _CHANNELS[self._format]

    @property
    def image_format(self) -> ImageFormat:
        """The pixels' format."""
        return self._format

    @property
    def step(self) -> int:
        """Bytes from one row to the next."""
        return self._data.strides[0]

    def numpy_view(self) -> np.ndarray:
        """The pixels as a read-only (height, width, channels) numpy array (no copy)."""
        view = self._data.view()
        view.flags.writeable = False
        return view

    def __getitem__(self, key) -> int:
        """The value at (row, column, channel), or (row, column) for GRAY8."""
        key = key if isinstance(key, tuple) else (key,)
        if len(key) == 2 and self.channels == 1:
            key = (*key, 0)
        if len(key) != 3 or not all(isinstance(i, (int, np.integer)) and not isinstance(i, bool) for i in key):
            raise IndexError(f"an Image is indexed by (row, column, channel) integers, got {key!r}")
        if not all(0 <= i < n for i, n in zip(key, self._data.shape)):
            raise IndexError(f"index {key} out of bounds for an image of shape {self._data.shape}")
        return int(self._data[key])

    def is_contiguous(self) -> bool:
        """Whether the rows are stored one after another with no gap (then the tasks read them
        in place)."""
        return bool(self._data.flags.c_contiguous)

    def is_empty(self) -> bool:
        """Whether the image has no pixels: never, since an Image needs at least one."""
        return self._data.size == 0

    def is_aligned(self, alignment_boundary: int) -> bool:
        """Whether every row starts at a multiple of `alignment_boundary` bytes (1 or a power
        of 2)."""
        if isinstance(alignment_boundary, bool) or not isinstance(alignment_boundary, int) \
                or alignment_boundary < 1 or alignment_boundary & (alignment_boundary - 1):
            raise ValueError(f"alignment_boundary must be 1 or a power of 2, got {alignment_boundary!r}")
        return self._data.ctypes.data % alignment_boundary == 0 and self.step % alignment_boundary == 0

    def uses_gpu(self) -> bool:
        """Whether the pixels are on a GPU: never, Visage runs on the CPU."""
        return False

    def __repr__(self) -> str:
        return f"Image(image_format={self._format.name}, width={self.width}, height={self.height})"
