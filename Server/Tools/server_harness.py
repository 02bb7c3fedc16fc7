"""What the Python checks in Server/Tools share: PNG in plain Python, and a visage-server of their own.

Standard library only. Imported by the scripts beside it, which are run as scripts (Python
puts a script's folder on sys.path):

- decode_png, decode_png_rgb, encode_png: 8-bit, non-interlaced gray, gray+alpha, RGB and
  RGBA PNGs (all five filters) read; anything else refused with a ValueError that says why;
  PNGs written unfiltered, with a palette if one is given.
- free_port: a port of 127.0.0.1 free a moment ago.
- start_server: visage-server on 127.0.0.1, answering /healthz, stopped at exit however the
  script exits (atexit; SIGTERM is turned into sys.exit so that atexit runs, and Ctrl-C's
  KeyboardInterrupt unwinds to it too).
"""

from __future__ import annotations

import atexit
import os
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import zlib

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_CHANNELS = {0: 1, 4: 2, 2: 3, 6: 4}  # PNG colour type -> channels (gray, gray+alpha, RGB, RGBA)

# ---- PNG -----------------------------------------------------------------------------------


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def decode_png(data: bytes) -> tuple[int, int, int, list[bytearray]]:
    """(width, height, channels, rows) of an 8-bit, non-interlaced gray, gray+alpha, RGB or RGBA PNG.

    Each row is a bytearray of width * channels samples. Raises ValueError for anything else
    (another bit depth, a palette, interlacing, a bad filter type, cut-off data).
    """
    if data[:8] != PNG_SIGNATURE:
        raise ValueError("not a PNG (no PNG signature)")
    header, idat, pos = None, [], 8
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IHDR":
            header = data[pos + 8:pos + 8 + length]
        elif kind == b"IDAT":
            idat.append(data[pos + 8:pos + 8 + length])
        pos += 12 + length
    if header is None or len(header) != 13:
        raise ValueError("PNG without a valid IHDR")
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    channels = _CHANNELS.get(colour)
    if depth != 8 or channels is None or interlace != 0:
        raise ValueError(f"PNG kind not handled here (bit depth {depth}, colour type {colour}, interlace "
                         f"{interlace}): only 8-bit, non-interlaced gray, gray+alpha, RGB or RGBA")
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    if len(raw) < height * (stride + 1):
        raise ValueError(f"PNG data cut off: {len(raw)} bytes, want {height * (stride + 1)}")
    rows, previous = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        if kind == 1:  # Sub
            for i in range(channels, stride):
                line[i] = (line[i] + line[i - channels]) & 255
        elif kind == 2:  # Up
            for i in range(stride):
                line[i] = (line[i] + previous[i]) & 255
        elif kind == 3:  # Average
            for i in range(stride):
                left = line[i - channels] if i >= channels else 0
                line[i] = (line[i] + ((left + previous[i]) >> 1)) & 255
        elif kind == 4:  # Paeth
            for i in range(stride):
                a = line[i - channels] if i >= channels else 0
                b = previous[i]
                c = previous[i - channels] if i >= channels else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        elif kind != 0:
            raise ValueError(f"bad PNG filter type {kind} in row {y}")
        rows.append(line)
        previous = line
    return width, height, channels, rows


def decode_png_rgb(data: bytes) -> tuple[int, int, bytes]:
    """(width, height, pixels) of a PNG decode_png reads, as packed 8-bit RGB (gray spread, alpha dropped)."""
    width, height, channels, rows = decode_png(data)
    pixels = b"".join(rows)
    if channels == 3:
        return width, height, pixels
    rgb = bytearray(width * height * 3)
    for c in range(3):
        rgb[c::3] = pixels[0 if channels < 3 else c::channels]
    return width, height, bytes(rgb)


def encode_png(width: int, height: int, channels: int, rows, palette: bytes | None = None, level: int = 6) -> bytes:
    """An 8-bit PNG of `rows` (each width * channels bytes), unfiltered.

    With `palette` (packed RGB triplets, up to 256) the rows hold one palette index a pixel
    (channels must be 1).
    """
    if palette is not None and channels != 1:
        raise ValueError("a paletted PNG has one channel: the palette index")
    colour = 3 if palette is not None else {c: t for t, c in _CHANNELS.items()}[channels]
    raw = b"".join(b"\x00" + bytes(row) for row in rows)
    return (PNG_SIGNATURE + _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, colour, 0, 0, 0))
            + (_chunk(b"PLTE", palette) if palette is not None else b"")
            + _chunk(b"IDAT", zlib.compress(raw, level)) + _chunk(b"IEND", b""))


# ---- The server ----------------------------------------------------------------------------


def free_port() -> int:
    """A TCP port of 127.0.0.1 that was free a moment ago."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def exit_on_sigterm(status: int = 143) -> None:
    """Makes SIGTERM exit the script with `status` through sys.exit, so that atexit handlers
    (which stop the servers) and `finally` blocks run. Main thread only."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(status))


class ServerError(RuntimeError):
    """visage-server exited at start or did not answer /healthz in time; the message ends with its log's tail."""


# Loopback only: no proxy, whatever the environment says.
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class Server:
    """A visage-server process on 127.0.0.1 (see start_server). stop() may be called any number of times."""

    def __init__(self, binary: str, args: list[str], label: str, threads: int):
        self.label = label
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = tempfile.NamedTemporaryFile(prefix=f"visage-{label}-", suffix=".log", delete=False)
        command = [binary, "--host", "127.0.0.1", "--port", str(self.port), "--threads", str(threads), *args]
        self.process = subprocess.Popen(command, cwd=REPO, stdin=subprocess.DEVNULL, stdout=self.log,
                                        stderr=subprocess.STDOUT)
        atexit.register(self.stop)

    def wait_ready(self, timeout: float) -> None:
        """Returns once GET /healthz answers 200; raises ServerError if the process exits first or time runs out."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise ServerError(f"visage-server ({self.label}) exited at start with status "
                                  f"{self.process.returncode}:\n{self.tail()}")
            try:
                with _OPENER.open(self.base + "/healthz", timeout=2.0) as response:
                    if response.status == 200:
                        return
            except OSError:  # refused, reset, timed out, or an HTTP error status
                pass
            time.sleep(0.2)
        raise ServerError(f"visage-server ({self.label}) not answering /healthz after {timeout:.0f} s:\n{self.tail()}")

    def tail(self, lines: int = 30) -> str:
        """The last lines of the server's output ("" once stopped: the log is deleted then)."""
        try:
            with open(self.log.name, "r", errors="replace") as f:
                return "".join(f.readlines()[-lines:])
        except OSError:
            return ""

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after 15 s; deletes the log."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)
        try:
            self.log.close()
            os.unlink(self.log.name)
        except OSError:
            pass


def report_failure(server: Server, failure: BaseException, expected: type | tuple = ()) -> int:
    """Prints a check script's failure, with the exception's type unless it is one of `expected`
    (the script's own check failures), and the last lines of the server's log; returns 1, the
    script's exit status."""
    kind = "" if isinstance(failure, expected) else f"{type(failure).__name__}: "
    print(f"FAIL {kind}{failure}", file=sys.stderr, flush=True)
    tail = server.tail()
    if tail:
        print("--- server log (last lines) ---\n" + tail, file=sys.stderr)
    return 1


def start_server(binary: str, args: list[str] = (), label: str = "server", threads: int = 2,
                 timeout: float = 90.0) -> Server:
    """Starts `binary --host 127.0.0.1 --port <free> --threads <threads> *args` in the repository
    root (where it finds Weights/) and returns it once /healthz answers 200.

    The server is stopped at exit (atexit), and SIGTERM is made to exit the script if nothing
    handles it yet. If it exits at start or does not answer within `timeout` seconds, it is
    stopped and ServerError raised with its log's tail.
    """
    if (threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL):
        exit_on_sigterm()
    server = Server(os.path.abspath(binary), list(args), label, threads)
    try:
        server.wait_ready(timeout)
    except BaseException:
        server.stop()
        raise
    return server
