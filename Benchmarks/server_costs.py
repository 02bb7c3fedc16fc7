#!/usr/bin/env python3
"""What single requests cost visage-server: the figures of docs/server.md's "What a request can
cost" and "Memory" sections.

- memory: for each kind of 8000x8000 image (all-zero PNG, baseline and progressive JPEG, JPEG
  with Exif orientation 6, both), a fresh `--threads 2` server, one request and then two at
  once; its resident memory at rest and its peak (VmHWM), and the bytes a pixel each image
  added;
- costly options: the worst requests Schemathesis found on a 1x1 JPEG, timed, with the
  status and the start of the answer;
- inference: the Open Inference Protocol (/v2) through Triton's own client, on a fresh
  `--threads 2` server: its resident memory at rest and once both copies have run every bundled
  model, and each model's time per request with JSON and with binary tensors (median and min of
  20 after a warm-up), beside the server's own share (`visage_inference_seconds`).

Needs Pillow and tritonclient[http] (.venv-server has both after .ci/server-checks) and the
release server; name sections to run only those:

    swift build -c release --package-path Server
    .venv-server/bin/python Benchmarks/server_costs.py [memory] [options] [inference]
"""

from __future__ import annotations

import base64
import io
import json
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Server", "Tools"))
from hostile_clients import connect, jpeg, metrics, post, receive, resident, zero_png  # noqa: E402
from server_harness import start_server  # noqa: E402

from PIL import Image  # noqa: E402

BINARY = os.path.join("Server", ".build", "release", "visage-server")


def exif_jpeg(progressive: bool) -> bytes:
    exif = Image.Exif()
    exif[0x0112] = 6
    out = io.BytesIO()
    Image.new("RGB", (8000, 8000)).save(out, "JPEG", quality=92, exif=exif, progressive=progressive)
    return out.getvalue()


def annotate_body(image: bytes) -> bytes:
    return json.dumps({"requests": [{"image": {"content": base64.b64encode(image).decode()},
                                     "features": [{"type": "FACE_DETECTION"}]}]}).encode()


def memory() -> None:
    zeros = zero_png()
    cases = [("PNG, all zero, /v1/detect", "/v1/detect", zeros),
             ("PNG, all zero, /v1/landmark", "/v1/landmark", zeros),
             ("PNG, analyze?performance=accurate (422)", "/v1/analyze?performance=accurate", zeros),
             ("PNG, images:annotate", "/v1/images:annotate", annotate_body(zeros)),
             ("baseline JPEG", "/v1/detect", jpeg(8000, 8000, False)),
             ("progressive JPEG", "/v1/detect", jpeg(8000, 8000, True)),
             ("JPEG, Exif 6", "/v1/detect", exif_jpeg(False)),
             ("progressive JPEG, Exif 6", "/v1/detect", exif_jpeg(True))]
    for name, path, body in cases:
        for count in (1, 2):
            server = start_server(BINARY, ["--queue-depth", "8"], label="costs", threads=2)
            rest = resident(server.process.pid, "VmRSS")
            statuses: list[int] = []
            workers = [threading.Thread(target=lambda: statuses.append(post(server.port, path, body)[0]))
                       for _ in range(count)]
            for worker in workers:
                worker.start()
            for worker in workers:
                worker.join()
            peak = resident(server.process.pid, "VmHWM")
            server.stop()
            print(f"{name}, {count} at once: {statuses}; rest {rest >> 20} MB, peak {peak >> 20} MB, "
                  f"+{(peak - rest) / count / 64e6:.2f} B/px each", flush=True)


def costly_options() -> None:
    out = io.BytesIO()
    Image.new("RGB", (1, 1), (128, 128, 128)).save(out, "JPEG")
    tiny = out.getvalue()
    server = start_server(BINARY, [], label="options", threads=2)
    for path in ["/v1/detect?any-rotation&range=full&min-detection-confidence=0&min-face-presence-confidence=0",
                 "/v1/landmark?num-faces=1000&min-face-detection-confidence=0&min-face-presence-confidence=0"
                 "&detector-range=full&any-rotation",
                 "/v1/landmark?num-faces=500&min-face-detection-confidence=0&min-face-presence-confidence=0"
                 "&detector-range=full&any-rotation"]:
        with connect(server.port) as sock:
            start = time.monotonic()
            sock.sendall(f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: {len(tiny)}\r\n"
                         "Connection: close\r\n\r\n".encode() + tiny)
            reply = receive(sock, 120)
            seconds = time.monotonic() - start
        body = reply.split(b"\r\n\r\n", 1)[-1]
        print(f"{path}\n  {seconds:.2f} s, {len(body)} bytes: {body[:160].decode('utf-8', 'replace')}", flush=True)
    server.stop()


def inference(repeats: int = 20) -> None:
    import numpy as np
    import tritonclient.http as triton

    server = start_server(BINARY, [], label="inference", threads=2)
    rest = resident(server.process.pid, "VmRSS")
    client = triton.InferenceServerClient(f"127.0.0.1:{server.port}")
    rng = np.random.default_rng(7)
    for model in ["face_detector", "face_landmarks_detector", "face_blendshapes", "face_detection_full_range"]:
        spec = client.get_model_metadata(model)
        for binary in (False, True):
            inputs = []
            for tensor in spec["inputs"]:
                data = rng.random(tensor["shape"], dtype=np.float32)
                inputs.append(triton.InferInput(tensor["name"], tensor["shape"], "FP32"))
                inputs[-1].set_data_from_numpy(data, binary_data=binary)
            outputs = [triton.InferRequestedOutput(t["name"], binary_data=binary) for t in spec["outputs"]]
            for _ in range(2):  # each copy's interpreter made and warm
                client.infer(model, inputs, outputs=outputs)
            before = metrics(server.port)
            times = []
            for _ in range(repeats):
                start = time.perf_counter()
                client.infer(model, inputs, outputs=outputs)
                times.append(time.perf_counter() - start)
            after = metrics(server.port)
            key = f'visage_inference_seconds_sum{{model="{model}"}}'
            served = (after.get(key, 0) - before.get(key, 0)) / repeats
            times.sort()
            print(f"{model}, {'binary' if binary else 'JSON'}: median {times[len(times) // 2] * 1e3:.1f} ms, "
                  f"min {times[0] * 1e3:.1f} ms; the server's copy {served * 1e3:.1f} ms a request", flush=True)
    print(f"resident: {rest >> 20} MB at rest, {resident(server.process.pid, 'VmRSS') >> 20} MB after every model "
          "on both copies", flush=True)
    server.stop()


if __name__ == "__main__":
    sections = set(sys.argv[1:]) or {"memory", "options", "inference"}
    if "memory" in sections:
        memory()
    if "options" in sections:
        costly_options()
    if "inference" in sections:
        inference()
