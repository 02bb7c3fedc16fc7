"""What a user of the installed wheels does, run with the Python of a venv that has
`visage[server]` installed from dist/ (Tools/release/test runs it in each clean root):

1. MediaPipe's Python guide code (guide_numbers.py) on the photos;
2. the README's main job with the installed `visage` command: the landmarker on the first
   photo, JSON out and the annotated PNG written;
3. `visage-server` started on 127.0.0.1, `/readyz`, then one `/v1/landmark` with the first
   photo, then SIGTERM.

Writes guide.json, cli.json and server.json into OUT (a folder), and fails on any step that
does not answer as it should.

    python user_checks.py --model face_landmarker.task --port 18490 OUT PHOTO...
"""

import argparse
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))


def command(name: str) -> str:
    """The venv's own command NAME: what `pip install` put on PATH."""
    path = os.path.join(os.path.dirname(sys.executable), name)
    if not os.access(path, os.X_OK):
        sys.exit(f"{name} is not installed beside {sys.executable}")
    return path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True)
    parser.add_argument("--port", type=int, default=18490)
    parser.add_argument("out")
    parser.add_argument("photos", nargs="+")
    arguments = parser.parse_args()
    os.makedirs(arguments.out, exist_ok=True)
    photo = arguments.photos[0]

    started = time.time()
    subprocess.run([sys.executable, os.path.join(HERE, "guide_numbers.py"), "--module", "visage", "--model",
                    arguments.model, os.path.join(arguments.out, "guide.json")] + arguments.photos, check=True)
    print(f"the guide code: {len(arguments.photos)} photos in {time.time() - started:.1f} s", flush=True)

    started = time.time()
    annotated = os.path.join(arguments.out, "annotated.png")
    answer = subprocess.run([command("visage"), "landmark", photo, "--blendshapes", "--output", "json",
                             "--annotate", annotated], check=True, capture_output=True)
    with open(os.path.join(arguments.out, "cli.json"), "wb") as file:
        file.write(answer.stdout)
    with open(annotated, "rb") as file:
        if file.read(8) != b"\x89PNG\r\n\x1a\n":
            sys.exit("visage landmark --annotate wrote no PNG")
    print(f"visage landmark: {len(answer.stdout)} bytes of JSON and a PNG in {time.time() - started:.1f} s", flush=True)

    started = time.time()
    base = f"http://127.0.0.1:{arguments.port}"
    server = subprocess.Popen([command("visage-server"), "--host", "127.0.0.1", "--port", str(arguments.port),
                               "--threads", "1"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        ready = False
        for _ in range(600):  # under emulation it may take a minute
            if server.poll() is not None:
                break
            try:
                with urllib.request.urlopen(base + "/readyz", timeout=5) as reply:
                    ready = reply.status == 200
                break
            except OSError:
                time.sleep(0.5)
        if not ready:
            server.kill()
            sys.exit("visage-server never answered /readyz:\n" + server.communicate()[1].decode(errors="replace"))
        print(f"visage-server: /readyz 200 after {time.time() - started:.1f} s", flush=True)
        with open(photo, "rb") as file:
            request = urllib.request.Request(base + "/v1/landmark?blendshapes=true", data=file.read(), method="POST")
        with urllib.request.urlopen(request, timeout=600) as reply:
            body = reply.read()
            if reply.status != 200:
                sys.exit(f"/v1/landmark answered {reply.status}")
        with open(os.path.join(arguments.out, "server.json"), "wb") as file:
            file.write(body)
        print(f"visage-server: /v1/landmark 200, {len(body)} bytes", flush=True)
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=60)
            except subprocess.TimeoutExpired:
                server.kill()
                sys.exit("visage-server did not stop on SIGTERM")


if __name__ == "__main__":
    main()
