#!/usr/bin/env python3
"""visage-server under load: images/s against `visage landmark`, latency, memory, live frames/s.

One run measures the server's images/s against the command line's, its latency by
concurrency, its peak memory, and the live stream's frames/s.

It makes its own inputs (in --work, default /tmp/visage-server-throughput) from the
repository's photos, different crops of them resized (seed 2026), so that no two files are
alike, and keeps them between runs:
  12mp    4000x3000 JPEGs, quality 92
  selfie  640x480 JPEGs, quality 92
It starts one server itself, from the repository root,
  Server/.build/release/visage-server --port <free> --threads N --queue-depth Q
waits for GET /readyz to answer 200, and measures, with default options everywhere
(POST /v1/landmark with the JPEG file itself as the body, Content-Type image/jpeg):
  throughput  images/s at saturation (min(2N, N+Q) clients, so none is refused) over a batch
              of the set's files (repeated to at least --batch-min images), against
              `visage landmark --threads N --output json BATCH` (a release build), the whole
              process timed, its start and the models' loading included; --rounds alternating
              blocks, images/s over all blocks. The ratio is server/CLI; the bar is 0.90. Every
              server reply is checked against the CLI's line for the same file (same faces,
              largest landmark difference printed).
  latency     p50 and p99 of the 200s at 1, 2, 8 and 64 concurrent clients for --seconds
              each: every client is a thread that sends the next file as soon as its reply
              is in, even after a 503 (--retry-after honor: it sleeps the 503's Retry-After
              first), on its own persistent http.client.HTTPConnection (a new one only when
              the server closes it or a request fails: both counted), or on a fresh
              connection per request with --fresh-connections. 200s and 503s (the queue was
              full) are counted apart, as are other statuses and socket errors.
  live        frames/s on one WebSocket, /v1/live?task=landmark, sending the 640x480 files as
              binary messages with one frame in flight (the next is sent when the previous
              one's reply is in), and the replies answered, dropped ("dropped": true, the
              flow limiter's) and failed.
  memory      the server process's peak RSS, /proc/<pid>/status VmHWM (also printed after
              each block, so that a growth can be placed), and the CLI's (GNU time's %M,
              when /usr/bin/time is installed).
The server is stopped with SIGTERM at the end; its exit status and log (--work/server.log)
are reported. The clients (this script) run on the same machine and take CPU from the server,
which the CLI does not have to share: the tables give the server's CPU and the script's (per
image, or in % of one core), and the load average before and after, since other work on the
machine skews every figure.

    swift build -c release --product visage
    swift build -c release --package-path Server --product visage-server
    python3 -m venv .venv && .venv/bin/pip install numpy pillow websockets
                                    # or: bash Tools/setup-python.sh && .venv/bin/pip install websockets
    .venv/bin/python Benchmarks/server_throughput.py              # --threads 2 --count 24 --seconds 20 --rounds 3
    .venv/bin/python Benchmarks/server_throughput.py --count 4 --batch-min 8 --seconds 3 --rounds 1   # a quick check

Needs numpy, Pillow and websockets (the sync client, websockets.sync.client); nothing else
beyond the standard library.
"""

import argparse
import http.client
import json
import os
import resource
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
from PIL import Image
from websockets.sync.client import connect as ws_connect

ROOT = Path(__file__).resolve().parent.parent
PHOTOS = [ROOT / "Tests/Fixtures/images/astronaut.png", ROOT / "Tests/Fixtures/images/camera.png"]
SETS = {"12mp": (4000, 3000), "selfie": (640, 480)}
LEVELS = [1, 2, 8, 64]
BAR = 0.90


def make_inputs(work: Path, count: int) -> dict[str, list[str]]:
    """Writes each set once (kept between runs) and returns its file names."""
    rng = np.random.default_rng(2026)
    sources = [Image.open(p).convert("RGB") for p in PHOTOS]
    sets = {}
    for name, (w, h) in SETS.items():
        folder = work / name
        folder.mkdir(parents=True, exist_ok=True)
        files = []
        for i in range(count):
            source = sources[i % len(sources)]
            # Drawn whether or not the file exists, so that file i is the same for every --count.
            cw, ch = int(source.width * rng.uniform(0.7, 1)), int(source.height * rng.uniform(0.7, 1))
            x, y = int(rng.integers(0, source.width - cw + 1)), int(rng.integers(0, source.height - ch + 1))
            path = folder / f"{name}-{i:02d}.jpg"
            files.append(str(path))
            if not path.exists():
                image = source.crop((x, y, x + cw, y + ch)).resize((w, h), Image.BICUBIC)
                image.save(path, quality=92)
        sets[name] = files
    return sets


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def proc_status(pid: int, key: str) -> int | None:
    """A /proc/<pid>/status field in kB (VmHWM, VmRSS), or None once the process is gone."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except FileNotFoundError:
        pass
    return None


def cpu_seconds(pid: int) -> float:
    """User plus system CPU seconds a process has used (/proc/<pid>/stat), 0 once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except FileNotFoundError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def own_cpu_seconds() -> float:
    times = os.times()
    return times.user + times.system


def children_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def loadavg() -> str:
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else float("nan")


class Server:
    """visage-server started from the repository root, logging to a file."""

    def __init__(self, binary: str, threads: int, queue_depth: int, work: Path):
        self.port = free_port()
        self.args = [binary, "--port", str(self.port), "--threads", str(threads), "--queue-depth", str(queue_depth)]
        self.log_path = work / "server.log"
        self.log = open(self.log_path, "wb")
        self.process = subprocess.Popen(self.args, cwd=ROOT, stdout=self.log, stderr=subprocess.STDOUT)
        self.pid = self.process.pid

    def command(self) -> str:
        return shlex.join([os.path.relpath(self.args[0], ROOT)] + self.args[1:])

    def wait_ready(self, timeout: float) -> float:
        """Seconds until GET /readyz answered 200."""
        start = time.perf_counter()
        while time.perf_counter() - start < timeout:
            if self.process.poll() is not None:
                raise SystemExit(f"visage-server exited with status {self.process.returncode} before it was ready:\n"
                                 + self.log_tail())
            try:
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
                conn.request("GET", "/readyz")
                response = conn.getresponse()
                response.read()
                conn.close()
                if response.status == 200:
                    return time.perf_counter() - start
            except OSError:
                pass
            time.sleep(0.2)
        self.stop()
        raise SystemExit(f"visage-server not ready after {timeout:.0f} s:\n" + self.log_tail())

    def get(self, path: str) -> tuple[int, bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            conn.request("GET", path)
            response = conn.getresponse()
            return response.status, response.read()
        finally:
            conn.close()

    def peak_mb(self) -> float:
        return (proc_status(self.pid, "VmHWM") or 0) / 1024

    def rss_mb(self) -> float:
        return (proc_status(self.pid, "VmRSS") or 0) / 1024

    def stop(self, timeout: float = 40) -> tuple[int | None, float]:
        """SIGTERM; the exit status (None: killed after `timeout`) and the seconds it took."""
        if self.process.poll() is not None:
            return self.process.returncode, 0.0
        start = time.perf_counter()
        self.process.send_signal(signal.SIGTERM)
        try:
            status = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            status = None
        self.log.close()
        return status, time.perf_counter() - start

    def log_tail(self, lines: int = 20) -> str:
        if not self.log.closed:
            self.log.flush()
        text = self.log_path.read_text(errors="replace").splitlines()
        return "\n".join("    " + line for line in text[-lines:])


class Client:
    """One HTTP client: a persistent connection (reopened when the server closes it or a
    request fails), or a fresh one per request."""

    def __init__(self, port: int, fresh: bool):
        self.port, self.fresh = port, fresh
        self.conn = None
        self.connections = 0  # connections opened
        self.closed_by_server = 0  # replies that ended the connection (Connection: close)
        self.retry_after = None  # the last reply's Retry-After

    def post(self, body: bytes, path: str = "/v1/landmark") -> tuple[int, bytes]:
        """(status, body); raises OSError or http.client.HTTPException on a socket failure,
        after dropping the connection."""
        if self.conn is None:
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=300)
            self.connections += 1
        try:
            self.conn.request("POST", path, body=body, headers={"Content-Type": "image/jpeg"})
            response = self.conn.getresponse()
            data = response.read()
            self.retry_after = response.getheader("Retry-After")
        except (OSError, http.client.HTTPException):
            self.close()
            raise
        if response.will_close and not self.fresh:
            self.closed_by_server += 1
        if response.will_close or self.fresh:
            self.close()
        return response.status, data

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def run_cli(visage: str, batch: list[str], threads: int) -> tuple[float, float, int | None, list[str]]:
    """Seconds for one `visage landmark` process over the batch, its CPU seconds, its peak RSS
    in MB (GNU time's %M, None without /usr/bin/time), and its output lines."""
    args = [visage, "landmark", "--threads", str(threads), "--output", "json"] + batch
    with tempfile.NamedTemporaryFile("r") as peak:
        timed = (["/usr/bin/time", "-f", "%M", "-o", peak.name] if os.path.exists("/usr/bin/time") else []) + args
        cpu = children_cpu_seconds()
        start = time.perf_counter()
        done = subprocess.run(timed, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        seconds = time.perf_counter() - start
        cpu = children_cpu_seconds() - cpu
        if done.returncode != 0:
            raise SystemExit(f"visage failed ({done.returncode}) on {batch[0]}...:\n{done.stderr.decode()[-2000:]}")
        peak_mb = int(peak.read().split()[-1]) // 1024 if len(timed) > len(args) else None
    lines = done.stdout.decode().splitlines()
    if len(lines) != len(batch):
        raise SystemExit(f"visage gave {len(lines)} lines for {len(batch)} inputs")
    return seconds, cpu, peak_mb, lines


def run_server_batch(port: int, batch: list[bytes], clients: int) -> tuple[float, dict[int, bytes], dict]:
    """Seconds for `clients` connections to get every image of the batch answered (each takes
    the next one as soon as its reply is in); the replies by batch index; the status counts."""
    lock = threading.Lock()
    next_index = [0]
    replies: dict[int, bytes] = {}
    statuses: dict = {}
    barrier = threading.Barrier(clients + 1)

    def work():
        client = Client(port, fresh=False)
        barrier.wait()
        while True:
            with lock:
                i = next_index[0]
                next_index[0] += 1
            if i >= len(batch):
                break
            try:
                status, data = client.post(batch[i])
            except (OSError, http.client.HTTPException) as error:
                status, data = type(error).__name__, b""
            with lock:
                statuses[status] = statuses.get(status, 0) + 1
                replies[i] = data if status == 200 else b""
        client.close()

    threads = [threading.Thread(target=work) for _ in range(clients)]
    for t in threads:
        t.start()
    barrier.wait()
    start = time.perf_counter()
    for t in threads:
        t.join()
    return time.perf_counter() - start, replies, statuses


def landmarks(reply: dict) -> np.ndarray:
    faces = reply.get("faceLandmarks", [])
    return np.array([[[p["x"], p["y"], p["z"]] for p in face] for face in faces], dtype=np.float64)


def compare(files: list[str], server_replies: dict[int, bytes], cli_lines: list[str]) -> str:
    """How the server's replies agree with the CLI's lines for the same files."""
    faces_server = faces_cli = differing = 0
    largest = 0.0
    for i in range(len(files)):
        try:
            ours = landmarks(json.loads(server_replies.get(i, b"{}") or b"{}"))
        except json.JSONDecodeError:
            ours = np.zeros((0,))
        theirs = landmarks(json.loads(cli_lines[i]))
        faces_server += len(ours)
        faces_cli += len(theirs)
        if ours.shape != theirs.shape:
            differing += 1
        elif ours.size:
            largest = max(largest, float(np.abs(ours - theirs).max()))
    verdict = "same faces" if differing == 0 else f"{differing} of {len(files)} files differ in faces"
    return f"faces: server {faces_server}, CLI {faces_cli} ({verdict}; largest landmark difference {largest:.2g})"


def measure_throughput(args, server: Server, name: str, files: list[str]) -> dict:
    passes = max(1, -(-args.batch_min // len(files)))
    batch = files * passes
    bodies = [Path(f).read_bytes() for f in files] * passes
    clients = min(2 * args.threads, args.threads + args.queue_depth)
    run_server_batch(server.port, bodies[: min(len(bodies), 2 * clients)], clients)  # warm-up
    server_total = cli_total = 0.0
    server_best = cli_best = float("inf")
    answered = 0  # 200s: a refused or failed request does not count as an image done
    server_cpu = client_cpu = cli_cpu = 0.0
    cli_peak = None
    statuses: dict = {}
    check = ""
    for round_index in range(args.rounds):
        cpu = cpu_seconds(server.pid), own_cpu_seconds()
        seconds, replies, counts = run_server_batch(server.port, bodies, clients)
        server_cpu += cpu_seconds(server.pid) - cpu[0]
        client_cpu += own_cpu_seconds() - cpu[1]
        server_total += seconds
        server_best = min(server_best, seconds * len(bodies) / max(1, counts.get(200, 0)))
        answered += counts.get(200, 0)
        for k, v in counts.items():
            statuses[k] = statuses.get(k, 0) + v
        cli_seconds, cpu, peak, lines = run_cli(args.visage, batch, args.threads)
        cli_total += cli_seconds
        cli_cpu += cpu
        cli_best = min(cli_best, cli_seconds)
        cli_peak = max(cli_peak or 0, peak) if peak is not None else cli_peak
        if round_index == 0:
            check = compare(files, replies, lines)
    n = len(batch)
    return {
        "set": name, "images": n, "clients": clients,
        "server": answered / server_total, "server_best": n / server_best,
        "cli": n * args.rounds / cli_total, "cli_best": n / cli_best,
        "server_cpu_ms": 1000 * server_cpu / max(1, answered), "client_cpu_ms": 1000 * client_cpu / max(1, answered),
        "cli_cpu_ms": 1000 * cli_cpu / (n * args.rounds), "cli_peak": cli_peak, "statuses": statuses, "check": check, "server_peak": server.peak_mb(),
    }


def measure_latency(args, server: Server, files: list[str], clients: int) -> dict:
    """`clients` closed-loop clients for --seconds: counts and latencies by status."""
    bodies = [Path(f).read_bytes() for f in files]
    results = []
    barrier = threading.Barrier(clients + 1)
    start_box = [0.0]

    def work(index: int):
        client = Client(server.port, fresh=args.fresh_connections)
        ok, busy, other, errors = [], [], {}, {}
        i = index  # each client starts at another file
        barrier.wait()
        deadline = start_box[0] + args.seconds
        last_end = start_box[0]
        while time.perf_counter() < deadline:
            body = bodies[i % len(bodies)]
            i += 1
            t0 = time.perf_counter()
            try:
                status, _ = client.post(body)
            except (OSError, http.client.HTTPException) as error:
                key = type(error).__name__
                errors[key] = errors.get(key, 0) + 1
                last_end = time.perf_counter()
                continue
            last_end = time.perf_counter()
            elapsed = last_end - t0
            if status == 200:
                ok.append(elapsed)
            elif status == 503:
                busy.append(elapsed)
                if args.retry_after == "honor":
                    time.sleep(max(0.0, min(float(client.retry_after or 1), deadline - time.perf_counter())))
            else:
                other[status] = other.get(status, 0) + 1
        client.close()
        results.append((ok, busy, other, errors, client.connections, client.closed_by_server, last_end))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(clients)]
    for t in threads:
        t.start()
    cpu = cpu_seconds(server.pid), own_cpu_seconds()
    start_box[0] = time.perf_counter()
    barrier.wait()
    for t in threads:
        t.join()
    server_cpu, client_cpu = cpu_seconds(server.pid) - cpu[0], own_cpu_seconds() - cpu[1]
    ok = [x for r in results for x in r[0]]
    busy = [x for r in results for x in r[1]]
    other: dict = {}
    errors: dict = {}
    for r in results:
        for k, v in r[2].items():
            other[k] = other.get(k, 0) + v
        for k, v in r[3].items():
            errors[k] = errors.get(k, 0) + v
    wall = max(r[6] for r in results) - start_box[0]
    total = len(ok) + len(busy) + sum(other.values()) + sum(errors.values())
    return {
        "clients": clients, "wall": wall, "ok": len(ok), "busy": len(busy), "other": other, "errors": errors,
        "total": total, "p50": percentile(ok, 50) * 1000, "p99": percentile(ok, 99) * 1000,
        "busy_p50": percentile(busy, 50) * 1000, "connections": sum(r[4] for r in results),
        "closed_by_server": sum(r[5] for r in results), "server_peak": server.peak_mb(),
        "server_cpu": 100 * server_cpu / wall, "client_cpu": 100 * client_cpu / wall,
    }


def measure_live(args, server: Server, files: list[str]) -> dict:
    """One WebSocket, one frame in flight, for --seconds."""
    bodies = [Path(f).read_bytes() for f in files]
    answered = dropped = failed = 0
    rtts = []
    first_error = None
    url = f"ws://127.0.0.1:{server.port}/v1/live?task=landmark"
    with ws_connect(url, compression=None, max_size=None, open_timeout=30, close_timeout=30) as ws:
        # One frame first, so the stream's task is made and warm before the clock starts.
        ws.send(bodies[0])
        json.loads(ws.recv(timeout=120))
        cpu = cpu_seconds(server.pid), own_cpu_seconds()
        start = time.perf_counter()
        sent = 0
        while time.perf_counter() - start < args.seconds:
            t0 = time.perf_counter()
            ws.send(bodies[sent % len(bodies)])
            reply = json.loads(ws.recv(timeout=120))
            rtts.append(time.perf_counter() - t0)
            sent += 1
            if "error" in reply:
                failed += 1
                first_error = first_error or reply["error"]
            elif reply.get("dropped"):
                dropped += 1
            else:
                answered += 1
        wall = time.perf_counter() - start
        server_cpu, client_cpu = cpu_seconds(server.pid) - cpu[0], own_cpu_seconds() - cpu[1]
    return {
        "frames": sent, "wall": wall, "answered": answered, "dropped": dropped, "failed": failed,
        "first_error": first_error, "p50": percentile(rtts, 50) * 1000, "p99": percentile(rtts, 99) * 1000,
        "server_peak": server.peak_mb(), "server_cpu": 100 * server_cpu / wall, "client_cpu": 100 * client_cpu / wall,
    }


def counts_text(counts: dict) -> str:
    return ", ".join(f"{k}: {v}" for k, v in sorted(counts.items(), key=lambda kv: str(kv[0]))) or "none"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", default=str(ROOT / "Server/.build/release/visage-server"))
    parser.add_argument("--visage", default=str(ROOT / ".build/release/visage"))
    parser.add_argument("--work", default="/tmp/visage-server-throughput")
    parser.add_argument("--threads", type=int, default=2, help="the server's --threads and the CLI's (default 2)")
    parser.add_argument("--queue-depth", type=int, default=8, help="the server's --queue-depth (default 8, its own)")
    parser.add_argument("--count", type=int, default=24, help="files per set (default 24)")
    parser.add_argument("--batch-min", type=int, default=240,
                        help="throughput batches repeat the set's files to at least this many images (default 240)")
    parser.add_argument("--seconds", type=float, default=20, help="per concurrency level, and for the live stream (default 20)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating server/CLI throughput blocks (default 3)")
    parser.add_argument("--levels", type=int, nargs="+", default=LEVELS, help="concurrent clients (default 1 2 8 64)")
    parser.add_argument("--retry-after", choices=["ignore", "honor"], default="ignore",
                        help="after a 503, send the next request at once (ignore, the default) or sleep Retry-After")
    parser.add_argument("--fresh-connections", action="store_true",
                        help="a new connection for every latency request instead of one per client")
    parser.add_argument("--start-timeout", type=float, default=300, help="seconds to wait for /readyz")
    args = parser.parse_args()

    for binary in (args.server, args.visage):
        if not os.access(binary, os.X_OK):
            raise SystemExit(f"not found: {binary} (build it: see this script's docstring)")
    work = Path(args.work)
    sets = make_inputs(work, args.count)

    python = os.path.relpath(sys.executable, ROOT) if sys.executable.startswith(str(ROOT) + os.sep) else sys.executable
    print("$ " + shlex.join([python, os.path.relpath(__file__, ROOT)] + sys.argv[1:]) + f"   # in {ROOT}")
    server = Server(args.server, args.threads, args.queue_depth, work)
    try:
        ready = server.wait_ready(args.start_timeout)
        print(f"server: {server.command()}  (pid {server.pid}, ready in {ready:.1f} s, "
              f"RSS {server.rss_mb():.0f} MB; log {server.log_path})")
        print(f"CLI:    {os.path.relpath(args.visage, ROOT)} landmark --threads {args.threads} --output json BATCH")
        print(f"inputs: {', '.join(f'{n} {len(f)} x {SETS[n][0]}x{SETS[n][1]} JPEG' for n, f in sets.items())} "
              f"in {work}; {os.cpu_count()} cores; load average {loadavg()}")
        summaries = []

        print("\n## Throughput at saturation (POST /v1/landmark, default options)")
        print("(CPU ms/img: the server's CPU time per image answered, the client's (this script's) beside it, "
              "and the CLI process's)")
        print(f"{'set':7} {'images':>6} {'clients':>7} {'server/s':>9} {'best':>7} {'CLI/s':>7} {'best':>7} "
              f"{'ratio':>6} {'srv CPU':>8} {'client':>7} {'CLI CPU':>8} {'CLI MB':>7} {'srv MB':>7}  statuses")
        for name, files in sets.items():
            r = measure_throughput(args, server, name, files)
            ratio = r["server"] / r["cli"]
            cli_mb = f"{r['cli_peak']:7d}" if r["cli_peak"] is not None else f"{'-':>7}"
            print(f"{name:7} {r['images']:6d} {r['clients']:7d} {r['server']:9.2f} {r['server_best']:7.2f} "
                  f"{r['cli']:7.2f} {r['cli_best']:7.2f} {ratio:6.2f} {r['server_cpu_ms']:8.1f} {r['client_cpu_ms']:7.1f} "
                  f"{r['cli_cpu_ms']:8.1f} {cli_mb} {r['server_peak']:7.0f}  "
                  f"{counts_text(r['statuses'])}")
            print(f"        check: {r['check']}")
            summaries.append(
                f"throughput {name}: server {r['server']:.2f} images/s, CLI {r['cli']:.2f} images/s "
                f"(--threads {args.threads}, {r['images']} images x {args.rounds} rounds): ratio {ratio:.2f}, "
                f"{'meets' if ratio >= BAR else 'BELOW'} the {BAR:.2f} bar"
                + ("" if set(r["statuses"]) == {200} else f"; statuses {counts_text(r['statuses'])}"))

        mode = "a fresh connection per request" if args.fresh_connections else "one persistent connection per client"
        pause = "no pause after a 503" if args.retry_after == "ignore" else "a 503's client sleeps its Retry-After"
        print(f"\n## Latency by concurrency ({args.seconds:g} s per level; {mode}; {pause})")
        print("(p50/p99: of the 200s; 503 %: of all requests; CPU %: of one core, the server's and this script's)")
        print(f"{'set':7} {'clients':>7} {'200s':>6} {'200/s':>7} {'p50 ms':>8} {'p99 ms':>8} {'503s':>6} "
              f"{'503 %':>6} {'503 p50':>8} {'other':>6} {'errors':>6} {'conns':>6} {'srv CPU':>8} {'client':>7} "
              f"{'srv MB':>7}")
        for name, files in sets.items():
            for level in args.levels:
                r = measure_latency(args, server, files, level)
                other, errors = sum(r["other"].values()), sum(r["errors"].values())
                share = 100 * r["busy"] / r["total"] if r["total"] else 0.0
                print(f"{name:7} {level:7d} {r['ok']:6d} {r['ok'] / r['wall']:7.2f} {r['p50']:8.0f} {r['p99']:8.0f} "
                      f"{r['busy']:6d} {share:6.1f} {r['busy_p50']:8.1f} {other:6d} {errors:6d} "
                      f"{r['connections']:6d} {r['server_cpu']:7.0f}% {r['client_cpu']:6.0f}% {r['server_peak']:7.0f}")
                line = (f"latency {name} x{level}: {r['ok']} 200s ({r['ok'] / r['wall']:.2f}/s), p50 {r['p50']:.0f} ms, "
                        f"p99 {r['p99']:.0f} ms; {r['busy']} 503s ({share:.1f}% of {r['total']} requests, "
                        f"{r['busy'] / r['wall']:.1f}/s)")
                if other or errors:
                    line += f"; other statuses {counts_text(r['other'])}; socket errors {counts_text(r['errors'])}"
                if not args.fresh_connections:
                    line += f"; {r['connections']} connections for {level} clients ({r['closed_by_server']} closed by the server)"
                summaries.append(line)

        print(f"\n## Live stream (/v1/live?task=landmark, selfie frames, one in flight, {args.seconds:g} s)")
        try:
            r = measure_live(args, server, sets["selfie"])
        except Exception as error:  # reported; the run goes on to the memory and the stop
            print(f"live stream failed: {type(error).__name__}: {error}")
            summaries.append(f"live: FAILED: {type(error).__name__}: {error}")
        else:
            print(f"{'frames':>6} {'frames/s':>9} {'answered':>9} {'dropped':>8} {'failed':>7} {'p50 ms':>7} "
                  f"{'p99 ms':>7} {'srv CPU':>8} {'client':>7} {'srv MB':>7}")
            print(f"{r['frames']:6d} {r['frames'] / r['wall']:9.2f} {r['answered']:9d} {r['dropped']:8d} "
                  f"{r['failed']:7d} {r['p50']:7.1f} {r['p99']:7.1f} {r['server_cpu']:7.0f}% {r['client_cpu']:6.0f}% "
                  f"{r['server_peak']:7.0f}")
            summaries.append(
                f"live: {r['frames'] / r['wall']:.2f} frames/s ({r['frames']} frames in {r['wall']:.1f} s): "
                f"{r['answered']} answered, {r['dropped']} dropped, {r['failed']} failed"
                + (f" (first: {r['first_error']})" if r["first_error"] else "")
                + f"; round trip p50 {r['p50']:.1f} ms, p99 {r['p99']:.1f} ms")

        status, _ = server.get("/readyz")
        peak, rss = server.peak_mb(), server.rss_mb()
        summaries.append(f"server memory: peak RSS (VmHWM) {peak:.0f} MB, RSS at the end {rss:.0f} MB; /readyz {status} after the run")
    finally:
        exit_status, seconds = server.stop()
    summaries.append(f"server stop: SIGTERM -> exit status {exit_status if exit_status is not None else 'none (killed)'} "
                     f"in {seconds:.1f} s; load average {loadavg()}")
    print("\n## Summary")
    for line in summaries:
        print(line)
    if exit_status != 0:
        print("server log tail:\n" + server.log_tail())


if __name__ == "__main__":
    main()
