"""Video and live-stream behaviour: timestamps, the flow limiter, callbacks and their errors,
closing."""

import logging
import threading

import pytest

import visage as mp
from conftest import ASTRONAUT, FIXTURES

vision = mp.tasks.vision
PAN = sorted((FIXTURES / "landmarker" / "frames" / "pan").glob("*.jpg"))


def test_video_timestamps_must_increase():
    options = vision.FaceLandmarkerOptions(running_mode=vision.RunningMode.VIDEO)
    with vision.FaceLandmarker.create_from_options(options) as task:
        image = mp.Image.create_from_file(ASTRONAUT)
        task.detect_for_video(image, 100)
        with pytest.raises(ValueError, match="monotonically increasing"):
            task.detect_for_video(image, 50)
        with pytest.raises(ValueError, match="image mode"):
            task.detect(image)
        with pytest.raises(ValueError, match="live stream mode"):
            task.detect_async(image, 200)


def test_tracking_ids_follow_a_face_through_video():
    options = vision.FaceDetectorOptions(running_mode=vision.RunningMode.VIDEO, track_faces=True)
    ids = []
    with vision.FaceDetector.create_from_options(options) as task:
        for i, path in enumerate(PAN[:10]):
            ids.append(task.detect_for_video(mp.Image.create_from_file(str(path)), i * 33).face_tracking_ids)
    assert all(frame == ids[0] for frame in ids) and len(ids[0]) == 1


def test_live_stream_results_come_in_order_and_may_drop_frames():
    got = []
    done = threading.Event()

    def on_result(result, image, timestamp_ms):
        got.append((timestamp_ms, image))
        if timestamp_ms == 33 * (len(PAN) - 1):
            done.set()

    options = vision.FaceLandmarkerOptions(running_mode=vision.RunningMode.LIVE_STREAM, result_callback=on_result)
    frames = [mp.Image.create_from_file(str(p)) for p in PAN]
    with vision.FaceLandmarker.create_from_options(options) as task:
        for i, frame in enumerate(frames):
            task.detect_async(frame, i * 33)
        with pytest.raises(ValueError, match="monotonically increasing"):
            task.detect_async(frames[0], 0)
    # close() waited for the frames in hand: the last frame is never dropped.
    assert done.is_set()
    stamps = [t for t, _ in got]
    assert stamps == sorted(stamps) and len(set(stamps)) == len(stamps)
    # Each result comes with the image it was computed on.
    assert all(image is frames[t // 33] for t, image in got), got


def test_an_exception_in_the_callback_is_reported_not_fatal(caplog):
    calls = []

    def on_result(result, image, timestamp_ms):
        calls.append(timestamp_ms)
        raise KeyError("raised by the caller's callback")

    options = vision.FaceDetectorOptions(running_mode=vision.RunningMode.LIVE_STREAM, result_callback=on_result)
    image = mp.Image.create_from_file(ASTRONAUT)
    with caplog.at_level(logging.ERROR, logger="visage"):
        with vision.FaceDetector.create_from_options(options) as task:
            task.detect_async(image, 1)
            task.close()
            with pytest.raises(ValueError, match="closed"):
                task.detect_async(image, 2)
    assert calls == [1]
    assert "raised by the caller's callback" in caplog.text


def test_callback_only_in_live_stream_mode():
    with pytest.raises(ValueError, match="result callback must be provided"):
        vision.FaceLandmarker.create_from_options(vision.FaceLandmarkerOptions(running_mode=vision.RunningMode.LIVE_STREAM))
    with pytest.raises(ValueError, match="should not be provided"):
        vision.FaceDetector.create_from_options(vision.FaceDetectorOptions(result_callback=lambda *a: None))


def test_a_dropped_task_delivers_its_pending_results():
    # As MediaPipe's __del__: the last frame's result comes though close() was never called.
    got = []
    options = vision.FaceLandmarkerOptions(
        running_mode=vision.RunningMode.LIVE_STREAM, result_callback=lambda result, image, t: got.append(t))
    task = vision.FaceLandmarker.create_from_options(options)
    task.detect_async(mp.Image.create_from_file(ASTRONAUT), 7)
    del task
    assert got == [7]


def test_a_reused_camera_buffer_gives_each_result_its_own_frame():
    # A camera loop that writes every frame into one array: the Image copies it (MediaPipe's
    # way), so each result's output_image is the frame it was computed on.
    import numpy as np

    frames = [mp.Image.create_from_file(str(p)).numpy_view() for p in PAN[:6]]
    got = {}
    options = vision.FaceDetectorOptions(
        running_mode=vision.RunningMode.LIVE_STREAM,
        result_callback=lambda result, image, t: got.update({t: image.numpy_view().copy()}))
    buffer = np.empty_like(frames[0])
    with vision.FaceDetector.create_from_options(options) as task:
        for i, frame in enumerate(frames):
            buffer[:] = frame
            task.detect_async(mp.Image(image_format=mp.ImageFormat.SRGB, data=buffer), i)
            buffer[:] = 0
    assert got and all(np.array_equal(image, frames[t]) for t, image in got.items())


def test_a_task_in_a_child_of_fork_raises_and_closes_without_hanging():
    import os
    import time
    import warnings

    options = vision.FaceLandmarkerOptions(
        running_mode=vision.RunningMode.LIVE_STREAM, result_callback=lambda result, image, t: None)
    image = mp.Image.create_from_file(ASTRONAUT)
    with vision.FaceLandmarker.create_from_options(options) as task:
        task.detect_async(image, 1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # fork() with threads running
            pid = os.fork()
        if pid == 0:
            code = 3
            try:
                try:
                    task.detect_async(image, 2)
                    code = 1
                except RuntimeError as error:
                    code = 0 if "fork" in str(error) else 2
                task.close()
                del task
            finally:
                os._exit(code)
        deadline = time.monotonic() + 30
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() > deadline:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
                pytest.fail("the child hung")
            time.sleep(0.05)
        assert os.waitstatus_to_exitcode(status) == 0
        task.detect_async(image, 3)  # the parent's task still works
