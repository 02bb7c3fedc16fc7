"""Builds the Swift engine into the package: `swift build` of Package.swift (beside this file)
into `visage/libvisage.so`, with Swift's runtime and Foundation linked in statically, and the
bundled models copied from the repository's Weights/. The wheel is tagged py3-none-<platform>:
one wheel serves every CPython, since Python reaches the engine through ctypes."""

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
        command = ["swift", "build", "-c", "release", "--package-path", str(HERE)]
        command += ["--scratch-path", os.environ.get("VISAGE_PYTHON_SCRATCH", str(ROOT / ".build-python"))]
        # Swift's runtime and Foundation go inside the object, so it needs no toolchain.
        command += ["-Xswiftc", "-static-stdlib"]
        subprocess.run(command, check=True)
        folder = subprocess.run(command + ["--show-bin-path"], check=True, capture_output=True, text=True).stdout
        package = Path(self.build_lib) / "visage"
        target = package / "libvisage.so"
        shutil.copyfile(Path(folder.strip()) / "libVisageC.so", target)
        # Debug sections and local symbols are a quarter of the object's size.
        if shutil.which("strip"):
            subprocess.run(["strip", "--strip-unneeded", str(target)], check=True)
        (package / "models").mkdir(exist_ok=True)
        for name in MODELS:
            shutil.copyfile((ROOT / "Weights" / name).resolve(), package / "models" / name)


class BinaryDistribution(Distribution):
    """A distribution with a native library, installed to platlib (as auditwheel requires)."""

    def has_ext_modules(self):
        return True


class PlatformWheel(bdist_wheel):
    def get_tag(self):
        return ("py3", "none", super().get_tag()[2])


setup(cmdclass={"build_py": BuildEngine, "bdist_wheel": PlatformWheel}, distclass=BinaryDistribution)
