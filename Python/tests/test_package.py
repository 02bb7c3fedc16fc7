"""The installed package: its engine needs no Swift toolchain, it carries its models and type
hints, and MediaPipe's module paths import."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import visage
from conftest import ASTRONAUT

PACKAGE = Path(visage.__file__).parent


def toolchain_folder():
    swift = shutil.which("swift")
    return str(Path(os.path.realpath(swift)).parents[1]) if swift else None


def test_engine_links_nothing_from_the_toolchain():
    output = subprocess.run(["ldd", str(PACKAGE / "libvisage.so")], check=True, capture_output=True, text=True).stdout
    assert "not found" not in output
    folder = toolchain_folder()
    if folder:
        assert folder not in output, output
    assert "swift" not in output.lower(), output


def test_runs_with_the_toolchain_hidden():
    folder = toolchain_folder()
    if folder is None:
        pytest.skip("no Swift toolchain on this machine to hide: every test here already runs without one")
    script = "import visage as mp; print(len(mp.tasks.vision.FaceLandmarker.create_from_options(" \
        f"mp.tasks.vision.FaceLandmarkerOptions()).detect(mp.Image.create_from_file({ASTRONAUT!r})).face_landmarks))"
    # A private mount namespace with an empty folder over the toolchain's.
    command = ["unshare", "-m", "sh", "-c", f'mount -t tmpfs none "$0" && exec "$@"', folder, sys.executable, "-c", script]
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout.strip() == "1", result.stderr


def test_a_library_of_another_c_interface_is_refused():
    # libm has no visage_abi_version: the package refuses it at import and says what to do.
    environment = {**os.environ, "VISAGE_LIBRARY": "libm.so.6"}
    result = subprocess.run([sys.executable, "-c", "import visage"], env=environment, capture_output=True, text=True)
    assert result.returncode != 0 and "ImportError" in result.stderr and "C interface version" in result.stderr, result.stderr
    assert visage.tasks.vision.FaceLandmarker  # this process's own library passed the check


def test_package_contents():
    assert (PACKAGE / "py.typed").exists()
    assert (PACKAGE / "models" / "face_landmarker.task").stat().st_size > 3_000_000
    assert (PACKAGE / "models" / "face_detection_full_range.tflite").exists()


def test_mediapipe_module_paths():
    from visage.tasks.python.components.containers import landmark as landmark_module
    from visage.tasks.python.core.base_options import BaseOptions
    from visage.tasks.python.vision import FaceDetectorResult, FaceLandmarkerResult, RunningMode
    from visage.tasks.python.vision.core.vision_task_running_mode import VisionTaskRunningMode

    assert RunningMode is VisionTaskRunningMode and visage.tasks.BaseOptions is BaseOptions
    assert landmark_module.NormalizedLandmark(x=1.0).x == 1.0
    assert FaceDetectorResult(detections=[]).detections == [] and FaceLandmarkerResult([], [], []).face_landmarks == []


def test_connections():
    # MediaPipe's lists, in its order (their lengths and first pairs as mediapipe 1.2.2 has them).
    connections = visage.tasks.vision.FaceLandmarksConnections
    Connection = connections.Connection
    assert len(connections.FACE_LANDMARKS_TESSELATION) == 2556 and len(connections.FACE_LANDMARKS_CONTOURS) == 124
    assert connections.FACE_LANDMARKS_LIPS[0] == Connection(61, 146)
    assert connections.FACE_LANDMARKS_TESSELATION[0] == Connection(127, 34)
    assert connections.FACE_LANDMARKS_LEFT_IRIS == [Connection(474, 475), Connection(475, 476), Connection(476, 477), Connection(477, 474)]
    face_mesh = visage.solutions.face_mesh
    assert face_mesh.FACEMESH_TESSELATION == {(c.start, c.end) for c in connections.FACE_LANDMARKS_TESSELATION}
    assert len(face_mesh.FACEMESH_IRISES) == 8


def test_no_source_distribution_is_made():
    """`python -m build` without `--wheel` stops at once, saying why: the engine is outside
    Python/, so a source archive of it could not build (docs/python.md)."""
    pytest.importorskip("setuptools.build_meta", reason="the build backend needs setuptools, absent from this venv")
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "build_backend"))
    try:
        import visage_build
    finally:
        sys.path.pop(0)
    with pytest.raises(RuntimeError, match="no source distribution.*--wheel"):
        visage_build.build_sdist("unused")
