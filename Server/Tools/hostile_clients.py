#!/usr/bin/env python3
"""Careless and hostile callers against a visage-server of its own, on 127.0.0.1 only.

Each check is a bounded loop of raw sockets; the script prints one line per check and a
summary line of figures, and exits 1 if any check fails:

- slow bodies: ten connections promise a photo (Content-Length 791555) and send a byte a
  second; meanwhile normal POSTs of the astronaut must be answered 200, in about their time
  alone (at most 5x the median alone, and under 5 s);
- Expect: 100-continue: `100 Continue` must come for a body within the limit, and the final 413
  for one over it, each within 5 s (the times are printed: milliseconds, as a rule);
- malformed HTTP: bad chunk sizes, Content-Length with Transfer-Encoding, two lengths, a NUL in
  the target, a 120 KB URL, a header over 80 KB, 1,000 headers: each answered 400, 414 or 431
  with the error envelope, then the connection closed;
- methods: HEAD /healthz 200 without a body, PURGE /v1/detect 501, GET /v1/live without an
  upgrade 426;
- WebSocket protocol errors on /v1/live: an unmasked frame and a continuation with no start
  are closed with 1002, a frame over --max-body-bytes with 1009, each then a FIN (no reset).

On a server with `--max-connections 2`, both held by idle connections: GET /healthz is
answered 200 within a second, and another route 503 with Retry-After.

On a second server (`--threads 2 --queue-depth 8`), what a request may cost:
- a huge image: an 8000x8000 all-zero PNG (187 KB) on every route, each answered within 10 s
  (searches at every scale or turn 422 before any model run; Cloud Vision's batch with the
  image's own error), while an ordinary request beside each is answered within 2 s;
- callers that leave: 48 callers send a 12 MP JPEG and close at once; at most 3 model runs
  follow, and /metrics counts the dropped requests (status 499) apart from 200s;
- memory: ten 8000x8000 PNGs and four progressive 8000x8000 JPEGs at once; the server's peak
  resident memory (VmHWM) must stay under the ceiling docs/server.md states for two copies.
Pillow (in .venv-server) makes the JPEGs.

    python3 Server/Tools/hostile_clients.py --binary Server/.build/release/visage-server

The aarch64 release build's server under qemu-user: Tools/release/hostile_arm64.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import socket
import statistics
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_harness import REPO, encode_png, start_server  # noqa: E402

ASTRONAUT = open(os.path.join(REPO, "Tests", "Fixtures", "images", "astronaut.png"), "rb").read()

# Every time bound and wait below is multiplied by this (--time-scale): an arm64 server under
# qemu-user is some 20 times slower than the same server run natively.
TIME_SCALE = 1.0


def bound(seconds: float) -> float:
    """A time bound or wait of the native server, scaled for an emulated one."""
    return seconds * TIME_SCALE


def connect(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=bound(10))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def receive(sock: socket.socket, timeout: float, first_only: bool = False) -> bytes:
    """What arrives within `timeout` seconds, until the peer closes (or, with `first_only`,
    the first bytes)."""
    timeout = bound(timeout)
    sock.settimeout(timeout)
    data = b""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            break
        except OSError:
            break
        if not chunk:
            break
        data += chunk
        if first_only:
            break
        sock.settimeout(max(0.05, min(0.3, end - time.monotonic())))
    return data


def status_of(reply: bytes) -> int:
    try:
        return int(reply.split(b" ", 2)[1])
    except (IndexError, ValueError):
        return 0


def post(port: int, path: str, body: bytes) -> tuple[int, float]:
    start = time.monotonic()
    with connect(port) as sock:
        sock.sendall(f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode())
        sock.sendall(body)
        reply = receive(sock, 30)
    return status_of(reply), time.monotonic() - start


def check_slow_bodies(port: int) -> tuple[bool, str]:
    alone = [post(port, "/v1/detect", ASTRONAUT)[1] for _ in range(5)]
    slow = [connect(port) for _ in range(10)]
    for sock in slow:
        sock.sendall(b"POST /v1/detect HTTP/1.1\r\nHost: x\r\nContent-Length: 791555\r\n\r\n")
    beside, statuses = [], []
    for _ in range(5):
        for sock in slow:
            sock.sendall(b"\xff")
        status, seconds = post(port, "/v1/detect", ASTRONAUT)
        statuses.append(status)
        beside.append(seconds)
        time.sleep(max(0.0, 1.0 - seconds))
    for sock in slow:
        sock.close()
    median_alone, worst = statistics.median(alone), max(beside)
    ok = all(s == 200 for s in statuses) and worst < max(5 * median_alone, 0.05) and worst < bound(5)
    return ok, (f"slow bodies: 10 at a byte a second; beside them {statuses.count(200)}/5 answered 200, "
                f"worst {worst * 1000:.0f} ms (alone: median {median_alone * 1000:.0f} ms)")


def check_expect_continue(port: int) -> tuple[bool, str]:
    with connect(port) as sock:
        start = time.monotonic()
        sock.sendall(f"POST /v1/detect HTTP/1.1\r\nHost: x\r\nContent-Length: {len(ASTRONAUT)}\r\n"
                     "Expect: 100-continue\r\n\r\n".encode())
        interim = receive(sock, 5, first_only=True)
        waited = time.monotonic() - start
        sock.sendall(ASTRONAUT)
        final = receive(sock, 30)
    with connect(port) as sock:
        start = time.monotonic()
        sock.sendall(b"POST /v1/detect HTTP/1.1\r\nHost: x\r\nContent-Length: 500000000\r\nExpect: 100-continue\r\n\r\n")
        refused = receive(sock, 2, first_only=True)
        refused_after = time.monotonic() - start
    # The 100 comes within milliseconds; once in a run of .ci/server-checks it did not come
    # within 2 s (not reproduced in isolation), so the bound is 5 s and the time is reported.
    ok = (interim.startswith(b"HTTP/1.1 100 Continue") and waited < bound(5) and status_of(final) == 200
          and status_of(refused) == 413 and refused_after < bound(5))
    return ok, (f"Expect: 100-continue: {interim[:21].decode('latin-1') or 'nothing'} after {waited * 1000:.0f} ms, "
                f"then {status_of(final)}; over the limit: {status_of(refused)} after {refused_after * 1000:.0f} ms")


MALFORMED = [
    ("a bad chunk size", b"POST /v1/detect HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n", 400),
    ("Content-Length with Transfer-Encoding",
     b"POST /v1/detect HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
    ("two Content-Lengths", b"POST /v1/detect HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n", 400),
    ("a NUL in the target", b"GET /health\x00z HTTP/1.1\r\nHost: x\r\n\r\n", 400),
    ("a 120 KB URL", b"GET /" + b"a" * 120_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414),
    ("a header over 80 KB", b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"b" * 90_000 + b"\r\n\r\n", 431),
    ("1,000 headers", b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + b"X-Many: 1\r\n" * 1000 + b"\r\n", 431),
]


def check_malformed(port: int) -> tuple[bool, str]:
    wrong = []
    for name, request, expected in MALFORMED:
        with connect(port) as sock:
            try:
                sock.sendall(request)
            except OSError:
                pass
            reply = receive(sock, 5)
        if status_of(reply) != expected or b'"error"' not in reply:
            wrong.append(f"{name}: {reply[:60]!r}")
    return not wrong, (f"malformed HTTP: {len(MALFORMED) - len(wrong)}/{len(MALFORMED)} answered as due"
                       + (f" (wrong: {'; '.join(wrong)})" if wrong else ""))


def check_methods(port: int) -> tuple[bool, str]:
    answers = {}
    for name, request in [("HEAD /healthz", b"HEAD /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
                          ("PURGE /v1/detect", b"PURGE /v1/detect HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
                          ("GET /v1/live", b"GET /v1/live?task=detect HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")]:
        with connect(port) as sock:
            sock.sendall(request)
            answers[name] = receive(sock, 5)
    head = answers["HEAD /healthz"]
    ok = (status_of(head) == 200 and head.endswith(b"\r\n\r\n") and status_of(answers["PURGE /v1/detect"]) == 501
          and status_of(answers["GET /v1/live"]) == 426)
    return ok, "methods: " + ", ".join(f"{name} {status_of(reply)}" for name, reply in answers.items())


# ---- WebSocket protocol errors and the connection limit -------------------------------------

UPGRADE = (b"GET /v1/live?task=detect HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
           b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")


def ws_frame(first: int, payload: bytes, masked: bool = True) -> bytes:
    n = len(payload)
    size = (bytes([n]) if n < 126 else bytes([126]) + n.to_bytes(2, "big") if n < 65536
            else bytes([127]) + n.to_bytes(8, "big"))
    if not masked:
        return bytes([first]) + size + payload
    key = b"\x11\x22\x33\x44"
    return (bytes([first, size[0] | 0x80]) + size[1:] + key
            + bytes(b ^ key[i % 4] for i, b in enumerate(payload)))


def close_after(port: int, frame: bytes) -> tuple[int | None, str]:
    """The close status the server answers `frame` with on a fresh live stream, and how the
    connection ended ("FIN", "reset" or "open")."""
    with connect(port) as sock:
        sock.sendall(UPGRADE)
        head = receive(sock, 5, first_only=True)
        if not head.startswith(b"HTTP/1.1 101"):
            return None, f"no upgrade: {head[:40]!r}"
        try:
            sock.sendall(frame)
        except OSError:
            pass
        data, ending = b"", "open"
        sock.settimeout(bound(5))
        try:
            while True:
                chunk = sock.recv(65536)
                if not chunk:
                    ending = "FIN"
                    break
                data += chunk
        except ConnectionResetError:
            ending = "reset"
        except socket.timeout:
            pass
    code = int.from_bytes(data[2:4], "big") if len(data) >= 4 and data[0] == 0x88 else None
    return code, ending


def check_websocket(port: int) -> tuple[bool, str]:
    cases = [("unmasked", ws_frame(0x82, ASTRONAUT[:1000], masked=False), 1002),
             ("continuation first", ws_frame(0x80, b"tail"), 1002),
             # A header that announces 21 MiB (over the 20 MiB limit), and the first 64 KB of it.
             ("over the limit", bytes([0x82, 0xFF]) + (21 << 20).to_bytes(8, "big") + b"\x11\x22\x33\x44" + bytes(65536),
              1009)]
    got = [(name, *close_after(port, frame), expected) for name, frame, expected in cases]
    ok = all(code == expected and ending == "FIN" for _, code, ending, expected in got)
    return ok, "WebSocket errors: " + ", ".join(f"{name} closed {code} then {ending}" for name, code, ending, _ in got)


def check_connection_limit(binary: str) -> tuple[bool, str]:
    server = start_server(binary, ["--max-connections", "2"], label="full", threads=1, timeout=bound(90))
    # Two connections within the limit, each a request answered, then kept open. The server may
    # still count the connection start_server's readiness poll closed (its close is read a
    # little later under load): a connection it answers as one of the reserve (with
    # `Connection: close`) is taken again.
    held: list[socket.socket] = []
    deadline = time.monotonic() + bound(10)
    while len(held) < 2 and time.monotonic() < deadline:
        sock = connect(server.port)
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        if b"connection: close" in receive(sock, 5, first_only=True).lower():
            sock.close()
            time.sleep(0.05)
            continue
        held.append(sock)
    with connect(server.port) as sock:
        start = time.monotonic()
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        probe = receive(sock, 5)
        probe_seconds = time.monotonic() - start
    with connect(server.port) as sock:
        sock.sendall(b"GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n")
        other = receive(sock, 5)
    for sock in held:
        sock.close()
    server.stop()
    ok = status_of(probe) == 200 and probe_seconds < bound(1) and status_of(other) == 503 and b"Retry-After" in other
    return ok, (f"connection limit: 2 of 2 held; /healthz {status_of(probe)} in {probe_seconds * 1000:.0f} ms, "
                f"/readyz {status_of(other)}")


# ---- What a request may cost (the second server) -------------------------------------------

ROUTES = [("/v1/detect", 200), ("/v1/detect?range=full", 200), ("/v1/detect?range=all", 422),
          ("/v1/detect?range=all&any-rotation=true", 422), ("/v1/landmark", 200),
          ("/v1/landmark?detector-range=all", 422), ("/v1/analyze", 200),
          ("/v1/analyze?performance=accurate", 422)]


def zero_png(side: int = 8000) -> bytes:
    return encode_png(side, side, 3, [bytes(side * 3)] * side)


def jpeg(width: int, height: int, progressive: bool, source: str | None = None) -> bytes:
    from PIL import Image  # .venv-server's Pillow
    image = (Image.open(source).convert("RGB").resize((width, height), Image.BICUBIC) if source
             else Image.new("RGB", (width, height)))
    out = io.BytesIO()
    image.save(out, "JPEG", quality=92, progressive=progressive)
    return out.getvalue()


def metrics(port: int) -> dict[str, float]:
    with connect(port) as sock:
        sock.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        text = receive(sock, 5).split(b"\r\n\r\n", 1)[-1].decode()
    values = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            values[name] = float(value)
    return values


def total(values: dict[str, float], pattern: str) -> float:
    return sum(v for name, v in values.items() if re.fullmatch(pattern, name))


def check_huge_images(port: int) -> tuple[bool, str]:
    zeros = zero_png()
    alone = statistics.median(post(port, "/v1/detect", ASTRONAUT)[1] for _ in range(5))
    wrong, slowest, worst_beside = [], 0.0, 0.0
    annotate = json.dumps({"requests": [{"image": {"content": __import__("base64").b64encode(zeros).decode()},
                                        "features": [{"type": "FACE_DETECTION"}]}]})
    cases = ROUTES + [("/v1/images:annotate", 200)]
    for path, expected in cases:
        body = annotate.encode() if path.endswith("annotate") else zeros
        outcome = {}
        hostile = threading.Thread(target=lambda: outcome.update(answer=post(port, path, body)))
        hostile.start()
        time.sleep(bound(0.05))
        status, beside = post(port, "/v1/detect", ASTRONAUT)
        hostile.join()
        got, seconds = outcome["answer"]
        slowest, worst_beside = max(slowest, seconds), max(worst_beside, beside)
        if got != expected or seconds > bound(10) or status != 200 or beside > bound(2):
            wrong.append(f"{path}: {got} in {seconds:.1f} s, beside {status} in {beside:.2f} s")
    return not wrong, (f"huge image: 8000x8000 zero PNG ({len(zeros) // 1000} KB) on {len(cases)} routes, "
                       f"slowest answer {slowest:.1f} s; beside it, worst {worst_beside * 1000:.0f} ms "
                       f"(alone {alone * 1000:.0f} ms)" + (f" (wrong: {'; '.join(wrong)})" if wrong else ""))


def check_leaving_callers(port: int) -> tuple[bool, str]:
    photo = jpeg(4000, 3000, False, os.path.join(REPO, "Tests", "Fixtures", "crowd", "crowd_00.jpg"))
    before = metrics(port)
    for _ in range(48):
        with connect(port) as sock:
            try:
                sock.sendall(f"POST /v1/landmark HTTP/1.1\r\nHost: x\r\nContent-Length: {len(photo)}\r\n\r\n".encode())
                sock.sendall(photo)
            except OSError:  # refused (503) and closed before the whole body went
                pass
    deadline = time.monotonic() + bound(60)
    while time.monotonic() < deadline:
        after = metrics(port)
        if after.get("visage_requests_in_flight", 1) == 0 and total(after, r'visage_http_requests_total\{route="/v1/landmark",.*') - total(before, r'visage_http_requests_total\{route="/v1/landmark",.*') >= 48:
            break
        time.sleep(0.1)
    delta = {key: total(after, pattern) - total(before, pattern) for key, pattern in [
        ("runs", r'visage_model_seconds_count\{.*'), ("dropped", r'visage_requests_abandoned_total\{.*'),
        ("499", r'visage_http_requests_total\{route="/v1/landmark",status="499"\}'),
        ("200", r'visage_http_requests_total\{route="/v1/landmark",status="200"\}'),
        ("503", r'visage_http_requests_total\{route="/v1/landmark",status="503"\}')]}
    ok = delta["runs"] <= 3 and delta["499"] == delta["dropped"] and delta["499"] + delta["200"] + delta["503"] == 48
    return ok, (f"callers that leave: 48 send a 12 MP JPEG ({len(photo) // 1000} KB) and close; "
                f"{delta['runs']:.0f} model runs, {delta['dropped']:.0f} dropped (499), {delta['200']:.0f} answered 200, "
                f"{delta['503']:.0f} refused 503")


def resident(pid: int, field: str) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return 0


# docs/server.md, "Memory": the server's resident memory stays under its size after start plus
# the decoding copies' share: PER_IMAGE_BYTES_PER_PIXEL bytes a pixel of --max-pixels each, plus
# the bodies held (at most (threads + queue depth + 2) x --max-body-bytes, here a few MB).
PER_IMAGE_BYTES_PER_PIXEL = 7


def check_memory(port: int, pid: int, threads: int = 2, max_pixels: int = 1 << 26) -> tuple[bool, str]:
    images = [("/v1/detect", zero_png())] * 10 + [("/v1/detect", jpeg(8000, 8000, True))] * 4
    start_rss = resident(pid, "VmRSS")
    results = []
    workers = [threading.Thread(target=lambda p=p, b=b: results.append(post(port, p, b)[0])) for p, b in images]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    peak = resident(pid, "VmHWM")
    ceiling = start_rss + threads * PER_IMAGE_BYTES_PER_PIXEL * max_pixels + 16 * 1024 * 1024
    ok = peak <= ceiling and all(status in (200, 503) for status in results)
    mb = 1024 * 1024
    return ok, (f"memory: {len(images)} 8000x8000 images at once ({results.count(200)} answered, "
                f"{results.count(503)} refused 503); peak {peak // mb} MB from {start_rss // mb} MB at rest, "
                f"ceiling {ceiling // mb} MB")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", default=os.path.join(REPO, "Server", ".build", "release", "visage-server"),
                        help="the server, or a script that runs it (under qemu-user, say) with its arguments")
    parser.add_argument("--time-scale", type=float, default=1.0,
                        help="multiplies every time bound and wait: about 20 for a server under emulation")
    args = parser.parse_args()
    global TIME_SCALE
    TIME_SCALE = args.time_scale
    server = start_server(args.binary, ["--queue-depth", "2"], label="hostile", threads=1, timeout=bound(90))
    results = [check(server.port) for check in (check_slow_bodies, check_expect_continue, check_malformed, check_methods,
                                                 check_websocket)]
    server.stop()
    results.append(check_connection_limit(args.binary))
    costs = start_server(args.binary, ["--queue-depth", "8"], label="costs", threads=2, timeout=bound(90))
    results += [check_memory(costs.port, costs.process.pid), check_huge_images(costs.port),
                check_leaving_callers(costs.port)]
    costs.stop()
    for ok, line in results:
        print(("ok    " if ok else "FAIL  ") + line)
    failed = sum(not ok for ok, _ in results)
    print(f"hostile clients: {len(results) - failed} of {len(results)} checks passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
