"""The `visage` command the wheel installs (`visage_command.py`, running the command line inside
the package's shared object): the same program as the Swift build's `visage`, with its outputs,
exit statuses and streams (docs/cli.md, docs/install.md)."""

import os
import subprocess
import sys

import pytest

from conftest import ASTRONAUT, FIXTURES

INSTALLED = os.path.join(os.path.dirname(sys.executable), "visage")
FRAMES = sorted(str(p) for p in (FIXTURES / "landmarker" / "frames" / "pan").glob("*.jpg"))[:3]


def run(*arguments, **options):
    return subprocess.run([INSTALLED, *arguments], capture_output=True, **options)


def test_the_command_is_installed():
    assert os.access(INSTALLED, os.X_OK), f"pip installed no visage beside {sys.executable}"
    result = run("--help", text=True)
    assert result.returncode == 0 and "USAGE: visage <subcommand>" in result.stdout, result.stdout


@pytest.mark.parametrize(
    "arguments",
    [
        ["landmark", ASTRONAUT, "--blendshapes", "--transformation-matrices"],
        ["detect", ASTRONAUT],
        ["landmark", "--running-mode", "video", *FRAMES],
    ],
    ids=["landmark", "detect", "video"],
)
def test_same_output_as_the_swift_build(cli, arguments):
    ours = run(*arguments, "--output", "json")
    theirs = subprocess.run([cli, *arguments, "--output", "json"], capture_output=True)
    assert ours.returncode == theirs.returncode == 0, ours.stderr
    assert ours.stdout == theirs.stdout


def test_writes_the_annotated_png(tmp_path):
    out = tmp_path / "out" / "astronaut.png"
    result = run("landmark", ASTRONAUT, "--blendshapes", "--output", "text", "--annotate", str(out), text=True)
    assert result.returncode == 0, result.stderr
    assert "1 face" in result.stdout and out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_finds_its_bundled_models_anywhere(tmp_path):
    # From a folder with no Weights/, and no VISAGE_WEIGHTS: the wheel's own models.
    environment = {k: v for k, v in os.environ.items() if k != "VISAGE_WEIGHTS"}
    result = run("landmark", ASTRONAUT, "--output", "json", cwd=tmp_path, env=environment)
    assert result.returncode == 0, result.stderr
    result = run("bench", "--iterations", "1", "--warmup", "0", "--output", "json", cwd=tmp_path, env=environment)
    assert result.returncode == 0, result.stderr


def test_exit_statuses_as_the_contract_says(tmp_path):
    assert run("landmark", str(tmp_path / "missing.png")).returncode == 1
    usage = run("landmark", ASTRONAUT, "--no-such-flag", text=True)
    assert usage.returncode == 2 and "Usage:" in usage.stderr
    not_utf8 = os.fsencode(str(tmp_path)) + b"/lat\xe9.png"
    result = subprocess.run([INSTALLED.encode(), b"landmark", not_utf8], capture_output=True)
    assert result.returncode == 1 and b"lat" in result.stderr


def test_a_closed_pipe_ends_it_as_it_ends_the_executable():
    # `visage … | head -c 1`: the reader goes; the command must not hang or print a traceback.
    command = f"'{INSTALLED}' landmark --running-mode video {' '.join(FRAMES * 4)} --output json | head -c 1"
    result = subprocess.run(["sh", "-c", command], capture_output=True, timeout=120)
    assert result.stdout == b"{" and b"Traceback" not in result.stderr


def test_reads_frames_from_standard_input():
    with open(FRAMES[0], "rb") as image:
        result = run("detect", "-", "--output", "json", stdin=image)
    assert result.returncode == 0 and b'"detections"' in result.stdout, result.stderr
