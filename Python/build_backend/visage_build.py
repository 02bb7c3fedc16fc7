"""The build backend: setuptools' (setup.py builds the engine), then `auditwheel repair`, which
copies the C libraries the engine links (OpenBLAS, libpng, libjpeg, libdeflate and theirs) into
the wheel with an $ORIGIN rpath and gives it its manylinux tag, so that it installs where those
libraries are not. The release build (Tools/release/build) links against an older Debian root,
whose libraries are the ones to copy: VISAGE_LIBRARY_PATH names a folder of links to them
(Tools/release/build makes it), searched first."""

import os
import subprocess
import sys
import tempfile

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F401,F403 (the hooks not overridden here)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    with tempfile.TemporaryDirectory() as folder:
        name = _setuptools.build_wheel(folder, config_settings, metadata_directory)
        before = set(os.listdir(wheel_directory)) if os.path.isdir(wheel_directory) else set()
        command = [sys.executable, "-m", "auditwheel", "repair", "--wheel-dir", wheel_directory]
        environment = dict(os.environ)
        if os.environ.get("VISAGE_LIBRARY_PATH"):
            environment["LD_LIBRARY_PATH"] = os.environ["VISAGE_LIBRARY_PATH"]
        subprocess.run(command + [os.path.join(folder, name)], check=True, stdout=sys.stderr, env=environment)
        made = sorted(set(os.listdir(wheel_directory)) - before)
        if len(made) != 1:
            raise RuntimeError(f"auditwheel repair made {made}, expected one wheel")
        return made[0]


def build_sdist(sdist_directory, config_settings=None):
    """Refused: the engine is the Swift package at the repository's root, outside Python/, so a
    source archive of Python/ could not build (it would fail later, in `swift build`)."""
    raise RuntimeError(
        "Visage has no source distribution: the engine is the Swift package at the repository's root, "
        "outside Python/. Build the wheel from a checkout instead: `python -m build --wheel Python` or "
        "`pip wheel ./Python` (docs/python.md)."
    )
