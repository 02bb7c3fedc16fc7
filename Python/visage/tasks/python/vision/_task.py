"""What the face landmarker and the face detector share: the engine handle, the running modes,
the live-stream callback, closing."""

from __future__ import annotations

import ctypes
import functools
import json
import logging
import math
import os
import tempfile
import threading
import weakref
from typing import Any, Callable, Dict, Optional, Sequence, Type, TypeVar

import numpy as np

from visage import _native
from visage.tasks.python.core.base_options import BaseOptions
from visage.tasks.python.vision.core.image import Image
from visage.tasks.python.vision.core.image_processing_options import ImageProcessingOptions
from visage.tasks.python.vision.core.vision_task_running_mode import VisionTaskRunningMode as RunningMode

_logger = logging.getLogger("visage")
_Task = TypeVar("_Task", bound="VisionTask")
_MODE_CODES = {RunningMode.IMAGE: _native.Mode.IMAGE, RunningMode.VIDEO: _native.Mode.VIDEO, RunningMode.LIVE_STREAM: _native.Mode.LIVE_STREAM}
_MODE_NAMES = {RunningMode.IMAGE: "image", RunningMode.VIDEO: "video", RunningMode.LIVE_STREAM: "live stream"}


def validate_running_mode(running_mode: RunningMode, result_callback: Optional[Callable]) -> None:
    """MediaPipe's rule: a callback in live-stream mode, and only there."""
    if not isinstance(running_mode, RunningMode):
        raise ValueError(f"running_mode must be a RunningMode, got {running_mode!r}")
    if running_mode == RunningMode.LIVE_STREAM and result_callback is None:
        raise ValueError("The vision task is in live stream mode, a user-defined result callback must be provided.")
    if running_mode != RunningMode.LIVE_STREAM and result_callback is not None:
        raise ValueError("The vision task is in image or video mode, a user-defined result callback should not be provided.")


# Options whose None means "not set" (Visage's own); MediaPipe's options are never None.
_MAY_BE_NONE = ("landmark_smoothing", "min_face_presence_confidence")


def validate_values(configuration: Dict[str, Any]) -> None:
    """Refuses None where MediaPipe does (TypeError, as its options' conversion raises) and a
    number that is not finite, naming the option."""
    for name, value in configuration.items():
        if value is None and name not in _MAY_BE_NONE:
            raise TypeError(f"{name} must not be None")
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"invalid option {name}={value!r}: must be a finite number")


def model_path(base_options: BaseOptions, temporary: list) -> Optional[str]:
    """The model file: the given path, the given bytes written to a temporary file (appended to
    `temporary`, removed once the task is made), or None for the bundled `face_landmarker.task`."""
    if not isinstance(base_options, BaseOptions):
        raise ValueError(f"base_options must be a BaseOptions, got {type(base_options).__name__}")
    if base_options.model_asset_path is not None and base_options.model_asset_buffer is not None:
        raise ValueError("Specify only one of model_asset_path and model_asset_buffer.")
    if base_options.model_asset_buffer is not None:
        data = bytes(base_options.model_asset_buffer)
        # A TFLite flatbuffer has its identifier at byte 4; anything else is taken for a bundle
        # (a zip archive, which may start with other bytes: the official .task starts 00 00 PK).
        suffix = ".tflite" if data[4:8] == b"TFL3" else ".task"
        handle, path = tempfile.mkstemp(suffix=suffix, prefix="visage-model-")
        with os.fdopen(handle, "wb") as file:
            file.write(data)
        temporary.append(path)
        return path
    if base_options.model_asset_path is not None:
        return os.fspath(base_options.model_asset_path)
    return None


def _close_handle(handle: int, keep_alive: Any, owner: int) -> None:
    # In a child of fork() the engine's threads are gone: closing would wait for them for ever.
    # The child's copy of the task is left as it is (the parent still has the task).
    if os.getpid() == owner:
        _native.lib.visage_task_close(handle)


def _check_process(owner: int) -> None:
    if os.getpid() != owner:
        raise RuntimeError(
            "this task was made before fork() and cannot be used in the child process "
            "(the engine's threads stayed in the parent): make a new task in the child"
        )


def _dispatch(task_ref: "weakref.ref[VisionTask]", context: Any, table: Optional[int], timestamp: int, error: Optional[bytes]) -> None:
    """The live-stream callback, on the engine's thread with the GIL held: converts the result,
    calls the user's callback, and reports (never raises) what goes wrong there."""
    result = _native.ResultTable(table) if table else None
    try:
        task = task_ref()
        if task is not None:
            task._deliver(result, timestamp, error)
    except BaseException:  # the engine's thread must never see a Python exception
        _logger.exception("visage: the live-stream result_callback raised an exception")
    finally:
        if result is not None:
            result.close()


class VisionTask:
    """A task bound to one engine handle. Usable from several threads: calls on one task are
    serialised; `close()` waits for the live stream's frames in hand."""

    def __init__(
        self,
        configuration: Dict[str, Any],
        base_options: BaseOptions,
        running_mode: RunningMode,
        result_callback: Optional[Callable],
    ):
        validate_running_mode(running_mode, result_callback)
        validate_values(configuration)
        self._running_mode = running_mode
        self._result_callback = result_callback
        self._images: Dict[int, Image] = {}
        self._lock = threading.Lock()
        self._images_lock = threading.Lock()
        self._callback_thread: Optional[int] = None
        temporary: list = []
        try:
            configuration = dict(configuration)
            configuration["model_asset_path"] = model_path(base_options, temporary)
            # The bundled models, which the options' ranges name; the engine maps every option
            # to its own through one table (VisageHosting's TaskSettings).
            configuration["bundled_model_path"] = _native.LANDMARKER_MODEL
            configuration["full_range_model_path"] = _native.FULL_RANGE_MODEL
            configuration["running_mode"] = running_mode.value
            if base_options.thread_count != 1:
                configuration["thread_count"] = base_options.thread_count
            text = json.dumps({k: v for k, v in configuration.items() if v is not None}).encode()
            callback = _native.LIVE_STREAM_CALLBACK(functools.partial(_dispatch, weakref.ref(self)))
            handle, error = ctypes.c_void_p(), ctypes.c_void_p()
            status = _native.lib.visage_task_create(text, callback, None, ctypes.byref(handle), ctypes.byref(error))
            _native.check(status, error)
        finally:
            for path in temporary:
                os.remove(path)
        self._handle = handle.value
        self._owner = os.getpid()
        self._finalizer = weakref.finalize(self, _close_handle, handle.value, callback, self._owner)

    # The options class each task takes.
    _Options: type

    @classmethod
    def create_from_options(cls: Type[_Task], options: Any) -> _Task:
        """A task with these options. Raises ValueError for bad options, FileNotFoundError for a
        missing model, RuntimeError for a model that cannot be read."""
        return cls(options)

    @classmethod
    def create_from_model_path(cls: Type[_Task], model_path: str) -> _Task:
        """A task in image mode, with default options, for the model at `model_path`."""
        return cls(cls._Options(base_options=BaseOptions(model_asset_path=model_path)))

    # The result conversion each task gives.
    def _convert(self, table: _native.ResultTable) -> Any:
        raise NotImplementedError

    def _take(self, table: Optional[_native.ResultTable]) -> Any:
        """The result of an image or video call, the engine's table freed. The engine's own time
        rides along in a field that is not MediaPipe's (`_engine_ms`, for Benchmarks/python_api.py)."""
        assert table is not None
        try:
            result = self._convert(table)
            result._engine_ms = table.engine_milliseconds()
            return result
        finally:
            table.close()

    def _deliver(self, table: Optional[_native.ResultTable], timestamp: int, error: Optional[bytes]) -> None:
        with self._images_lock:
            image = self._images.pop(timestamp, None)
            for older in [t for t in self._images if t < timestamp]:
                del self._images[older]  # frames the flow limiter dropped
        if error is not None:
            _logger.error("visage: live-stream frame at %d ms failed: %s", timestamp, error.decode("utf-8", "replace"))
            return
        if table is not None and self._result_callback is not None:
            self._callback_thread = threading.get_ident()
            try:
                self._result_callback(self._convert(table), image, timestamp)
            finally:
                self._callback_thread = None

    def _run(
        self,
        mode: RunningMode,
        method: str,
        image: Image,
        timestamp_ms: int,
        image_processing_options: Optional[ImageProcessingOptions],
        regions: Optional[np.ndarray] = None,
    ) -> Optional[_native.ResultTable]:
        _check_process(self._owner)
        if self._running_mode != mode:
            raise ValueError(
                f"Task is not initialized with the {_MODE_NAMES[mode]} mode. "
                f"Current running mode:{_MODE_NAMES[self._running_mode]} mode"
            )
        if not isinstance(image, Image):
            raise ValueError(f"{method} takes an Image, got {type(image).__name__}")
        if isinstance(timestamp_ms, bool) or not isinstance(timestamp_ms, (int, np.integer)):
            raise ValueError(f"timestamp_ms must be an int, got {type(timestamp_ms).__name__}")
        rotation = 0
        if image_processing_options is not None:
            if image_processing_options.region_of_interest is not None:
                raise ValueError("This task doesn't support region-of-interest.")
            rotation = image_processing_options.rotation_degrees
            if isinstance(rotation, bool) or not isinstance(rotation, (int, np.integer)) or rotation % 90 != 0:
                raise ValueError("Expected rotation to be a multiple of 90°.")
        pixels, _kept = _native.image(image._data, int(rotation) % 360)
        region_pointer, region_count = None, 0
        if regions is not None:
            region_pointer = regions.ctypes.data_as(ctypes.POINTER(ctypes.c_float))
            region_count = len(regions)
        result, error = ctypes.c_void_p(), ctypes.c_void_p()
        registered = False
        with self._lock:
            if self._handle is None:
                raise ValueError("The task is closed.")
            if mode == RunningMode.LIVE_STREAM:
                # Registered before the engine has the frame, whose result may come at once. A
                # timestamp already in hand is left to its frame (the engine refuses this one).
                with self._images_lock:
                    registered = int(timestamp_ms) not in self._images
                    if registered:
                        self._images[int(timestamp_ms)] = image
            status = _native.lib.visage_task_run(
                self._handle, _MODE_CODES[mode], ctypes.byref(pixels), int(timestamp_ms), region_pointer, region_count,
                ctypes.byref(result), ctypes.byref(error),
            )  # fmt: skip
        if status != 0 and registered:
            with self._images_lock:
                self._images.pop(int(timestamp_ms), None)
        _native.check(status, error)
        return _native.ResultTable(result.value) if result.value else None

    def close(self) -> None:
        """Shuts the task down, after the live stream's frames in hand have had their results.
        Calls after this raise ValueError. Not from within `result_callback`, whose frame
        close() would wait for."""
        if self._callback_thread == threading.get_ident():
            raise ValueError("close() cannot be called from the result callback")
        if os.getpid() != self._owner:
            # A child of fork(): its copy of the lock may be held for ever by a thread it lacks.
            self._handle = None
            self._finalizer.detach()
            return
        with self._lock:
            if self._handle is not None:
                self._handle = None
                self._finalizer()

    def __del__(self) -> None:
        # As MediaPipe's tasks do: a task dropped without close() still delivers the results of
        # the live stream's frames in hand (close() waits for them while the task is alive).
        if getattr(self, "_handle", None) is not None and self._callback_thread != threading.get_ident():
            self.close()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        self.close()


def regions_array(face_regions: Optional[Sequence[Any]]) -> Optional[np.ndarray]:
    """Face regions (Visage) as rows of x, y, width, height in pixels and rotation in degrees,
    from `FaceRegion`s or detections."""
    if face_regions is None:
        return None
    rows = []
    for region in face_regions:
        box = region.bounding_box
        rotation = getattr(region, "rotation_degrees", None) or 0.0
        rows.append([box.origin_x, box.origin_y, box.width, box.height, rotation])
    return np.asarray(rows, dtype=np.float32).reshape(-1, 5)
