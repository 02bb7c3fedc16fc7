"""Threads: the engine runs without the GIL, two tasks on two threads give what they give
alone, and one task shared by threads is serialised."""

import ctypes
import threading

import visage as mp
from visage import _native
from conftest import FIXTURES, PHOTOS

vision = mp.tasks.vision


def test_engine_calls_release_the_gil():
    # ctypes releases the GIL around calls through a CDLL (not a PyDLL) function.
    assert type(_native.lib) is ctypes.CDLL
    assert not _native.lib.visage_task_run._flags_ & ctypes._FUNCFLAG_PYTHONAPI


def test_close_waits_for_a_callback_that_needs_the_gil():
    # close() blocks in the engine until the frame in hand has called back; the callback needs
    # the GIL, so this would deadlock if the engine held it.
    seen = []
    options = vision.FaceLandmarkerOptions(
        running_mode=vision.RunningMode.LIVE_STREAM, result_callback=lambda r, i, t: seen.append(t)
    )
    task = vision.FaceLandmarker.create_from_options(options)
    task.detect_async(mp.Image.create_from_file(str(FIXTURES / PHOTOS[0])), 5)
    task.close()
    assert seen == [5]


def landmarks(task, image):
    return [[(p.x, p.y, p.z) for p in face] for face in task.detect(image).face_landmarks]


def test_two_tasks_on_two_threads():
    images = [mp.Image.create_from_file(str(FIXTURES / p)) for p in PHOTOS[:4]]
    options = vision.FaceLandmarkerOptions(num_faces=3)
    with vision.FaceLandmarker.create_from_options(options) as task:
        alone = [landmarks(task, image) for image in images]
    results = {}

    def work(name):
        with vision.FaceLandmarker.create_from_options(options) as task:
            results[name] = [landmarks(task, image) for image in images for _ in range(2)][::2]

    threads = [threading.Thread(target=work, args=(n,)) for n in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results["a"] == alone and results["b"] == alone


def test_one_task_shared_by_threads():
    images = [mp.Image.create_from_file(str(FIXTURES / p)) for p in PHOTOS[:3]]
    errors = []
    with vision.FaceDetector.create_from_options(vision.FaceDetectorOptions()) as task:
        alone = [task.detect(image) for image in images]

        def work():
            try:
                for _ in range(5):
                    assert [task.detect(image) for image in images] == alone
            except BaseException as error:  # reported below
                errors.append(error)

        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        # Closing while others run waits for their call in hand; later calls raise ValueError.
        for t in threads:
            t.join()
    assert not errors


def test_close_while_another_thread_runs():
    image = mp.Image.create_from_file(str(FIXTURES / PHOTOS[3]))
    task = vision.FaceDetector.create_from_options(vision.FaceDetectorOptions(detector_range="all"))
    outcome = []
    started = threading.Event()

    def work():
        try:
            while True:
                task.detect(image)
                started.set()
        except ValueError as error:
            outcome.append(str(error))

    thread = threading.Thread(target=work)
    thread.start()
    started.wait(60)
    task.close()
    thread.join()
    assert outcome == ["The task is closed."]
