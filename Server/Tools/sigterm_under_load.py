#!/usr/bin/env python3
"""SIGTERM under load: visage-server must answer every request it took, then exit 0.

Starts a fresh visage-server (from the repository root, so that it finds Weights/), fires
POST /v1/landmark requests with real photos from many threads, sends SIGTERM after a while
and checks, from the client side, what docs/server.md promises:

- every request that got a connection is answered in full: a 200 whose body is the
  landmark object, or a 503 in the error envelope (queue full, or shutting down); none is
  cut off mid-response, and none hangs past the drain bound;
- requests admitted before SIGTERM are still answered 200 (the drain), and later ones are
  refused (503, or the connection refused once the listening socket is closed);
- the process exits with status 0 within the bound.

Each request uses a connection of its own (`Connection: close`), so that an idle keep-alive
connection the server closes at shutdown (where a client would retry) is not mistaken for a
lost request. A connection closed before any response byte is split in two: one made around
SIGTERM and reset as the listening socket closed sat in the kernel's accept backlog (reported,
not a failure: no server process ever held it); any other had been accepted by the server,
which then dropped its request unanswered (a failure).

Standard library only. Prints what it measured; exit status 0 when every check passes.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


@dataclass
class Outcome:
    """One request, as the client saw it."""

    kind: str  # ok200, ok503, refused, reset_before_response, cut, hung, bad_status, bad_body
    started: float  # monotonic, when connect() began
    connected: float | None = None
    finished: float = 0.0
    status: int | None = None
    received: int = 0  # response bytes received
    sent_all: bool = False  # the whole request was written to the socket
    detail: str = ""


@dataclass
class Tally:
    outcomes: list[Outcome] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, outcome: Outcome) -> None:
        with self.lock:
            self.outcomes.append(outcome)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get_status(url: str, timeout: float = 2.0) -> int | None:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            response.read()
            return response.status
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return None


def read_response(sock: socket.socket) -> tuple[int | None, dict[str, str], bytes, int, str]:
    """Reads one HTTP/1.1 response: (status, headers, body, bytes received, problem or "")."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return None, {}, b"", len(data), "closed before the end of the response head"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    try:
        status = int(lines[0].split()[1])
    except (IndexError, ValueError):
        return None, {}, b"", len(data), f"bad status line {lines[0]!r}"
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    if "content-length" in headers:
        length = int(headers["content-length"])
        while len(body) < length:
            chunk = sock.recv(65536)
            if not chunk:
                return status, headers, body, len(head) + 4 + len(body), f"body cut at {len(body)} of {length} bytes"
            body += chunk
        return status, headers, body[:length], len(head) + 4 + len(body), ""
    if headers.get("transfer-encoding", "").lower() == "chunked":
        raw, decoded = body, b""
        while True:
            while b"\r\n" not in raw:
                chunk = sock.recv(65536)
                if not chunk:
                    return status, headers, decoded, len(head) + 4 + len(body), "chunked body cut in a chunk size"
                raw += chunk
            size_line, _, raw = raw.partition(b"\r\n")
            size = int(size_line.split(b";")[0], 16)
            while len(raw) < size + 2:
                chunk = sock.recv(65536)
                if not chunk:
                    return status, headers, decoded, len(head) + 4 + len(body), "chunked body cut in a chunk"
                raw += chunk
            if size == 0:
                return status, headers, decoded, len(head) + 4 + len(decoded), ""
            decoded += raw[:size]
            raw = raw[size + 2 :]
    # Neither: the body runs to the close.
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return status, headers, body, len(head) + 4 + len(body), ""
        body += chunk


def one_request(port: int, path: str, body: bytes, content_type: str, min_faces: int, timeout: float) -> Outcome:
    started = time.monotonic()
    outcome = Outcome(kind="?", started=started)
    try:
        sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    except ConnectionRefusedError:
        outcome.kind, outcome.finished = "refused", time.monotonic()
        return outcome
    except OSError as error:
        outcome.kind, outcome.finished, outcome.detail = "refused", time.monotonic(), f"connect: {error}"
        return outcome
    outcome.connected = time.monotonic()
    with sock:
        request = (
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: {content_type}\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        ).encode() + body
        send_error = ""
        try:
            sock.sendall(request)
            outcome.sent_all = True
        except OSError as error:
            # The server may answer (503) before reading the body and close: read what came.
            send_error = f"send: {error}"
        try:
            status, headers, payload, received, problem = read_response(sock)
        except socket.timeout:
            outcome.kind, outcome.finished = "hung", time.monotonic()
            outcome.detail = f"no complete response within {timeout} s"
            return outcome
        except OSError as error:
            status, headers, payload, received, problem = None, {}, b"", 0, f"recv: {error}"
        outcome.finished = time.monotonic()
        outcome.status, outcome.received = status, received
        if status is None:
            outcome.kind = "reset_before_response" if received == 0 else "cut"
            outcome.detail = "; ".join(x for x in (send_error, problem) if x)
            return outcome
        if problem:
            outcome.kind, outcome.detail = "cut", problem
            return outcome
        try:
            parsed = json.loads(payload)
        except ValueError:
            outcome.kind, outcome.detail = "bad_body", f"{status} with a body that is not JSON: {payload[:200]!r}"
            return outcome
        if status == 200:
            faces = parsed.get("faceLandmarks") if isinstance(parsed, dict) else None
            ok = isinstance(faces, list) and len(faces) >= min_faces and all(len(face) == 478 for face in faces)
            outcome.kind = "ok200" if ok else "bad_body"
            if not ok:
                outcome.detail = f"200 without {min_faces} or more faces of 478 landmarks: {payload[:200]!r}"
        elif status == 503:
            error = parsed.get("error", {}) if isinstance(parsed, dict) else {}
            ok = error.get("code") == 503 and error.get("status") == "UNAVAILABLE"
            ok = ok and headers.get("content-type", "").startswith("application/json")
            outcome.kind = "ok503" if ok else "bad_body"
            outcome.detail = error.get("message", "") if ok else f"503 not in the envelope: {payload[:200]!r}"
        else:
            outcome.kind, outcome.detail = "bad_status", f"{status}: {payload[:300]!r}"
        return outcome


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", default=os.path.join(REPO, "Server/.build/release/visage-server"))
    parser.add_argument("--port", type=int, default=0, help="0: a free port")
    parser.add_argument("--threads", type=int, default=2, help="the server's --threads")
    parser.add_argument("--clients", type=int, default=16, help="client threads")
    parser.add_argument("--load-seconds", type=float, default=2.0, help="load before SIGTERM")
    parser.add_argument("--drain-timeout", type=int, default=25, help="the server's --drain-timeout")
    parser.add_argument("--exit-bound", type=float, default=30.0, help="seconds after SIGTERM the process must be gone by")
    parser.add_argument("--ready-timeout", type=float, default=120.0)
    parser.add_argument("--log", default=None, help="the server's output (default: a file beside the build)")
    parser.add_argument("--pid-file", default=None, help="write the server's process id here (for a caller's cleanup)")
    args = parser.parse_args()

    # The astronaut, one face, answered in tens of milliseconds; the crowd searched at every
    # scale, about a second of a core each, so that requests are in flight when SIGTERM comes.
    requests = [
        ("/v1/landmark", "Tests/Fixtures/images/astronaut.png", "image/png", 1),
        ("/v1/landmark?num-faces=50&detector-range=all", "Tests/Fixtures/crowd/crowd_00.jpg", "image/jpeg", 1),
    ]
    bodies = [(path, open(os.path.join(REPO, file), "rb").read(), kind, faces) for path, file, kind, faces in requests]
    port = args.port or free_port()
    log_path = args.log or os.path.join(REPO, ".build-ci", "sigterm-under-load-server.log")
    os.makedirs(os.path.dirname(log_path), exist_ok=True)
    command = [
        args.binary, "--port", str(port), "--threads", str(args.threads), "--drain-timeout", str(args.drain_timeout),
    ]
    print(f"starting: {' '.join(command)} (in {REPO}; log {log_path})", flush=True)
    log = open(log_path, "wb")
    server = subprocess.Popen(command, cwd=REPO, stdout=log, stderr=subprocess.STDOUT)
    if args.pid_file:
        with open(args.pid_file, "w") as f:
            f.write(f"{server.pid}\n")
    failures: list[str] = []
    try:
        start = time.monotonic()
        while True:
            if server.poll() is not None:
                print(f"FAIL: the server exited with {server.returncode} before it was ready", flush=True)
                return 1
            if get_status(f"http://127.0.0.1:{port}/readyz") == 200:
                break
            if time.monotonic() - start > args.ready_timeout:
                print(f"FAIL: /readyz was not 200 within {args.ready_timeout:.0f} s", flush=True)
                return 1
            time.sleep(0.25)
        print(f"ready in {time.monotonic() - start:.1f} s on port {port}", flush=True)

        tally = Tally()
        stop = threading.Event()
        # Per-request socket timeout: the longest a response may take, the drain bound plus slack.
        request_timeout = args.exit_bound + 5

        def client(index: int) -> None:
            n = index
            while not stop.is_set():
                path, body, kind, faces = bodies[n % len(bodies)]
                n += 1
                outcome = one_request(port, path, body, kind, faces, request_timeout)
                tally.add(outcome)
                # Once the listening socket is closed there is nothing more to ask.
                if outcome.kind == "refused" and server.poll() is not None:
                    return
                if outcome.kind == "refused":
                    time.sleep(0.05)

        threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(args.clients)]
        for thread in threads:
            thread.start()
        time.sleep(args.load_seconds)
        term_at = time.monotonic()
        server.send_signal(signal.SIGTERM)
        print(f"SIGTERM sent after {args.load_seconds:.1f} s of load from {args.clients} threads", flush=True)
        try:
            code = server.wait(timeout=args.exit_bound)
            exited_after = time.monotonic() - term_at
        except subprocess.TimeoutExpired:
            code, exited_after = None, None
        stop.set()
        for thread in threads:
            thread.join(timeout=request_timeout + 5)
        stuck = sum(thread.is_alive() for thread in threads)

        outcomes = list(tally.outcomes)
        before = [o for o in outcomes if o.started < term_at]
        after = [o for o in outcomes if o.started >= term_at]
        counts = collections.Counter(o.kind for o in outcomes)
        print(f"requests: {len(outcomes)} ({len(before)} started before SIGTERM, {len(after)} after)")
        for kind, count in sorted(counts.items()):
            print(f"  {kind}: {count}")
        in_flight_at_term = [o for o in outcomes if o.connected is not None and o.connected < term_at < o.finished]
        drained = [o for o in in_flight_at_term if o.kind == "ok200"]
        print(f"in flight at SIGTERM: {len(in_flight_at_term)}; of them answered 200 after SIGTERM: {len(drained)}")
        shutting = [o for o in outcomes if o.kind == "ok503" and "shutting down" in o.detail]
        print(f"503 'shutting down': {len(shutting)}; 503 'queue full': {counts['ok503'] - len(shutting)}")
        latest = max((o.finished - term_at for o in outcomes if o.kind in ("ok200", "ok503")), default=0.0)
        print(f"last complete response {latest:.2f} s after SIGTERM")
        first_refused = min((o.finished - term_at for o in after if o.kind == "refused"), default=None)
        if first_refused is not None:
            print(f"first refused connection {first_refused:.2f} s after SIGTERM")
        longest = max((o.finished - o.started for o in outcomes if o.kind in ("ok200", "ok503")), default=0.0)
        print(f"longest complete request: {longest:.2f} s")
        if exited_after is None:
            print(f"exit: still running {args.exit_bound:.0f} s after SIGTERM")
        else:
            print(f"exit: status {code}, {exited_after:.2f} s after SIGTERM")
            if exited_after > latest + 5:
                print(
                    f"note: the process exited {exited_after - latest:.1f} s after its last complete response: its "
                    f"graceful shutdown waited for something no client was waiting on (--drain-timeout is {args.drain_timeout} s)"
                )

        # Connections closed before any response byte. Those made around SIGTERM and reset when
        # the listening socket closed (about when the first connection is refused) sat in the
        # kernel's accept backlog: no server process ever held them, so they are only reported.
        # Any other was accepted by the server, which then dropped its request unanswered.
        window = 0.5
        listen_closed = term_at + (first_refused if first_refused is not None else 0.0)
        resets = [o for o in outcomes if o.kind == "reset_before_response"]

        # A connection NIO accepted just before the socket closed, and dropped unanswered until
        # the process exited (apple/swift-nio#2813), is a failure like any other: the server
        # stops accepting and waits for the accepted ones before it closes the socket
        # (ConnectionLimit), so there are none.
        def in_backlog(o: Outcome) -> bool:
            if o.connected is None:
                return False
            return o.connected >= term_at - window and o.finished <= listen_closed + window

        racy = [o for o in resets if in_backlog(o)]
        dropped = [o for o in resets if not in_backlog(o)]
        if racy:
            print(
                f"note: {len(racy)} connection(s) made within {window} s of SIGTERM were reset when the listening "
                "socket closed, before any response byte (the kernel's accept backlog):"
            )
            for o in racy[:10]:
                print(f"  connected {o.connected - term_at:+.3f} s, closed {o.finished - term_at:+.3f} s from SIGTERM: {o.detail}")

        refused_early = [o for o in before if o.kind == "refused" and o.finished < term_at]
        if refused_early:
            failures.append(f"{len(refused_early)} connection(s) refused before SIGTERM: {refused_early[0].detail}")
        if counts["ok200"] == 0:
            failures.append("no request was answered 200: the load never reached the models")
        if not before or not any(o.kind == "ok200" and o.finished < term_at for o in before):
            failures.append("no 200 before SIGTERM")
        for kind in ("cut", "hung", "bad_status", "bad_body"):
            for o in [o for o in outcomes if o.kind == kind][:5]:
                failures.append(
                    f"{kind}: started {o.started - term_at:+.2f} s from SIGTERM, status {o.status}, "
                    f"{o.received} bytes received: {o.detail}"
                )
            if counts[kind] > 5:
                failures.append(f"... and {counts[kind] - 5} more {kind}")
        for o in dropped[:5]:
            connected = f"{o.connected - term_at:+.3f} s" if o.connected is not None else "?"
            failures.append(
                f"dropped: connected {connected} from SIGTERM, request {'sent in full' if o.sent_all else 'not sent in full'}, "
                f"then no response byte and the connection closed {o.finished - term_at:+.3f} s from SIGTERM "
                f"(the process exited {exited_after if exited_after is not None else float('nan'):+.3f} s from it): {o.detail}"
            )
        if len(dropped) > 5:
            failures.append(f"... and {len(dropped) - 5} more dropped")
        if stuck:
            failures.append(f"{stuck} client thread(s) still waiting {request_timeout + 5:.0f} s after the end")
        if code is None:
            failures.append(f"the server did not exit within {args.exit_bound:.0f} s of SIGTERM")
        elif code != 0:
            failures.append(f"the server exited with status {code}, not 0")
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
        log.close()
        if args.pid_file and os.path.exists(args.pid_file):
            os.remove(args.pid_file)
    if failures:
        print("FAIL:")
        for failure in failures:
            print(f"  {failure}")
        with open(log_path, "rb") as f:
            tail = f.read()[-4000:].decode("utf-8", "replace")
        print(f"--- the server's log ({log_path}), last lines:\n{tail}")
        return 1
    print("PASS: every request that got a connection was answered in full, and the server exited 0 in time")
    return 0


if __name__ == "__main__":
    sys.exit(main())
