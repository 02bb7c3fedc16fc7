"""Packages the visage-server executable that Tools/release/build made: VISAGE_PREBUILT_SERVER
names it, VISAGE_SERVER_RESOURCES its SwiftPM resource folder (the page at `/`), and
VISAGE_WHEEL_PLATFORM the platform it is for. The version is the `visage` package's, and the
wheel asks for `visage` of that version, whose models the server runs."""

import os
import shutil
from pathlib import Path

from setuptools import Distribution, setup
from setuptools.command.bdist_wheel import bdist_wheel
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent


def version():
    for line in (ROOT / "Python" / "visage" / "__init__.py").read_text().splitlines():
        if line.startswith("__version__ = "):
            return line.split('"')[1]
    raise RuntimeError("Python/visage/__init__.py has no __version__")


class CopyServer(build_py):
    def run(self):
        super().run()
        folder = Path(self.build_lib) / "visage_server" / "bin"
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(os.environ["VISAGE_PREBUILT_SERVER"], folder / "visage-server")
        os.chmod(folder / "visage-server", 0o755)
        resources = "VisageServer_VisageServer.resources"
        shutil.copytree(os.environ["VISAGE_SERVER_RESOURCES"], folder / resources, dirs_exist_ok=True)


class BinaryDistribution(Distribution):
    def has_ext_modules(self):
        return True


class PlatformWheel(bdist_wheel):
    def get_tag(self):
        return ("py3", "none", os.environ.get("VISAGE_WHEEL_PLATFORM") or super().get_tag()[2])


setup(
    version=version(),
    install_requires=[f"visage=={version()}"],
    cmdclass={"build_py": CopyServer, "bdist_wheel": PlatformWheel},
    distclass=BinaryDistribution,
)
