"""Builds the Swift engine into the package: `swift build` of Package.swift (beside this file)
into `visage/libvisage.so`, with Swift's runtime and Foundation linked in statically, and the
bundled models copied from the repository's Weights/. The wheel is tagged py3-none-<platform>:
one wheel serves every CPython, since Python reaches the engine through ctypes.

The release build (Tools/release/build, docs/install.md) builds the object itself, against an
older Debian root and for each architecture, and hands it over: VISAGE_PREBUILT_LIBRARY names
the object, VISAGE_WHEEL_PLATFORM the platform it is for (linux_aarch64, say)."""

import os
import shutil
import subprocess
from pathlib import Path

from setuptools import Distribution, setup
from setuptools.command.bdist_wheel import bdist_wheel
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
MODELS = ["face_landmarker.task", "face_detection_full_range.tflite"]


class BuildEngine(build_py):
    def run(self):
        super().run()
        package = Path(self.build_lib) / "visage"
        target = package / "libvisage.so"
        prebuilt = os.environ.get("VISAGE_PREBUILT_LIBRARY")
        if prebuilt:
            shutil.copyfile(prebuilt, target)
        else:
            self.build_engine(target)
        for name in MODELS:
            (package / "models").mkdir(exist_ok=True)
            shutil.copyfile((ROOT / "Weights" / name).resolve(), package / "models" / name)
        # The command line's benchmark image and frames (`visage bench`), 1 MB.
        shutil.copytree(ROOT / "Weights" / "bench", package / "models" / "bench", dirs_exist_ok=True)

    def build_engine(self, target):
        command = ["swift", "build", "-c", "release", "--package-path", str(HERE)]
        command += ["--scratch-path", os.environ.get("VISAGE_PYTHON_SCRATCH", str(ROOT / ".build-python"))]
        # Swift's runtime and Foundation go inside the object, so it needs no toolchain.
        command += ["-Xswiftc", "-static-stdlib"]
        subprocess.run(command, check=True)
        folder = subprocess.run(command + ["--show-bin-path"], check=True, capture_output=True, text=True).stdout
        shutil.copyfile(Path(folder.strip()) / "libVisageC.so", target)
        # Debug sections and local symbols are a quarter of the object's size.
        if shutil.which("strip"):
            subprocess.run(["strip", "--strip-unneeded", str(target)], check=True)


class BinaryDistribution(Distribution):
    """A distribution with a native library, installed to platlib (as auditwheel requires)."""

    def has_ext_modules(self):
        return True


class PlatformWheel(bdist_wheel):
    def get_tag(self):
        return ("py3", "none", os.environ.get("VISAGE_WHEEL_PLATFORM") or super().get_tag()[2])


def version():
    """`__version__` in visage/__init__.py, the one place it is written."""
    for line in (HERE / "visage" / "__init__.py").read_text().splitlines():
        if line.startswith("__version__ = "):
            return line.split('"')[1]
    raise RuntimeError("visage/__init__.py has no __version__")


setup(
    cmdclass={"build_py": BuildEngine, "bdist_wheel": PlatformWheel},
    distclass=BinaryDistribution,
    # `pip install visage[server]`: visage-server, a wheel of its own (Tools/release/build).
    extras_require={"server": [f"visage-server=={version()}"]},
)
