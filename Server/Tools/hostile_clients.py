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
  upgrade 426.

    python3 Server/Tools/hostile_clients.py --binary Server/.build/release/visage-server
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_harness import REPO, start_server  # noqa: E402

ASTRONAUT = open(os.path.join(REPO, "Tests", "Fixtures", "images", "astronaut.png"), "rb").read()


def connect(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def receive(sock: socket.socket, timeout: float, first_only: bool = False) -> bytes:
    """What arrives within `timeout` seconds, until the peer closes (or, with `first_only`,
    the first bytes)."""
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
    ok = all(s == 200 for s in statuses) and worst < max(5 * median_alone, 0.05) and worst < 5
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
    ok = (interim.startswith(b"HTTP/1.1 100 Continue") and waited < 5 and status_of(final) == 200
          and status_of(refused) == 413 and refused_after < 5)
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", default=os.path.join(REPO, "Server", ".build", "release", "visage-server"))
    args = parser.parse_args()
    server = start_server(args.binary, ["--queue-depth", "2"], label="hostile", threads=1)
    results = [check(server.port) for check in (check_slow_bodies, check_expect_continue, check_malformed, check_methods)]
    for ok, line in results:
        print(("ok    " if ok else "FAIL  ") + line)
    failed = sum(not ok for ok, _ in results)
    print(f"hostile clients: {len(results) - failed} of {len(results)} checks passed")
    server.stop()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
