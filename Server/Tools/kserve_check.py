"""Triton's own client (tritonclient.http) against visage-server's Open Inference Protocol.

Starts the release binary from the repository root on a free port (server_harness.py, beside
this script), with one more model given by --model, then:

- server live, ready and metadata (the binary_tensor_data extension named), every model ready
  and its metadata (FP32 inputs and outputs with their shapes);
- every model run on deterministic inputs three ways: JSON tensors both ways, binary tensors
  both ways, and binary inputs with no outputs named (the client then asks for every output
  as binary data); each output must equal, bit for bit, what `visage run` writes for the same
  inputs (.build/release/visage: the same runtime and kernels, so nothing is loosened);
- the refusals the client sees: an unknown model (404), a wrong shape, a wrong datatype and an
  unknown input name (400), each with the protocol's error message.

Exit status 0 when every check passes, 1 on a failure, 2 when it cannot run (no binary, no
tritonclient).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

import server_harness

REPO = server_harness.REPO
BUNDLE = "Weights/face_landmarker.task"
# The served name, and the model `visage run` opens for it.
MODELS = {
    "face_detector": f"{BUNDLE}:face_detector.tflite",
    "face_landmarks_detector": f"{BUNDLE}:face_landmarks_detector.tflite",
    "face_blendshapes": f"{BUNDLE}:face_blendshapes.tflite",
    "face_detection_full_range": "Weights/face_detection_full_range.tflite",
    # Served through --model, so that the flag is checked too.
    "full_range_again": "Weights/face_detection_full_range.tflite",
}


class CheckFailed(Exception):
    pass


def require(condition: bool, what: str) -> None:
    if not condition:
        raise CheckFailed(what)
    print(f"ok   {what}", flush=True)


def deterministic_input(name: str, shape: list[int], seed: int):
    import numpy as np
    rng = np.random.default_rng(seed)
    # Landmark points for the blendshapes model are pixel positions; images are in [-1, 1].
    high = 256.0 if "points" in name else 1.0
    return rng.uniform(-high if high == 1.0 else 0.0, high, size=shape).astype(np.float32)


def visage_run(visage: str, model: str, inputs: dict, folder: str, count: int) -> list:
    """The outputs `visage run` writes for `inputs` (name -> array), in the model's order."""
    import numpy as np
    args = [visage, "run", model, "--output-dir", folder]
    for k, (name, array) in enumerate(inputs.items()):
        path = os.path.join(folder, f"in{k}.npy")
        np.save(path, array)
        args += ["--input", f"{name}={path}"]
    done = subprocess.run(args, cwd=REPO, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise CheckFailed(f"visage run {model} failed ({done.returncode}): {done.stderr.strip()}")
    return [np.load(os.path.join(folder, f"out{k}.npy")) for k in range(count)]


def same_bits(a, b) -> str | None:
    """None when a and b are the same float32 values bit for bit, else where they differ."""
    import numpy as np
    a = np.ascontiguousarray(a, dtype=np.float32)
    b = np.ascontiguousarray(b, dtype=np.float32)
    if a.shape != b.shape:
        return f"shape {a.shape} against {b.shape}"
    differ = np.flatnonzero(a.view(np.uint32) != b.view(np.uint32))
    if differ.size:
        i = differ[0]
        return f"{differ.size} values differ, the first at {i}: {a.flat[i]!r} against {b.flat[i]!r}"
    return None


def check_model(client, http, visage: str, name: str, reference: str, seed: int) -> None:
    metadata = client.get_model_metadata(name)
    require(client.is_model_ready(name), f"{name}: ready")
    require(metadata["platform"] == "tflite" and all(t["datatype"] == "FP32" for t in metadata["inputs"]
                                                     + metadata["outputs"]),
            f"{name}: metadata, {len(metadata['inputs'])} FP32 input(s), {len(metadata['outputs'])} output(s)")
    arrays = {t["name"]: deterministic_input(t["name"], t["shape"], seed) for t in metadata["inputs"]}
    outputs = [t["name"] for t in metadata["outputs"]]
    with tempfile.TemporaryDirectory(prefix="kserve-check-") as folder:
        expected = visage_run(visage, reference, arrays, folder, len(outputs))

    for way, binary in (("JSON", False), ("binary", True)):
        inputs = []
        for input_name, array in arrays.items():
            tensor = http.InferInput(input_name, list(array.shape), "FP32")
            tensor.set_data_from_numpy(array, binary_data=binary)
            inputs.append(tensor)
        requested = [http.InferRequestedOutput(o, binary_data=binary) for o in outputs]
        result = client.infer(name, inputs, outputs=requested, request_id=f"{name}-{way}")
        require(result.get_response()["id"] == f"{name}-{way}", f"{name} {way}: the request's id given back")
        for k, output in enumerate(outputs):
            problem = same_bits(result.as_numpy(output), expected[k])
            require(problem is None, f"{name} {way}: {output} {list(expected[k].shape)} equals visage run's"
                    + (f" ({problem})" if problem else ""))
    # No outputs named: the client asks for all of them as binary data (binary_data_output).
    inputs = []
    for input_name, array in arrays.items():
        tensor = http.InferInput(input_name, list(array.shape), "FP32")
        tensor.set_data_from_numpy(array)
        inputs.append(tensor)
    result = client.infer(name, inputs)
    for k, output in enumerate(outputs):
        problem = same_bits(result.as_numpy(output), expected[k])
        require(problem is None, f"{name} every output by default: {output} equals visage run's"
                + (f" ({problem})" if problem else ""))


def check_refusals(client, http, utils) -> None:
    import numpy as np

    def refused(call, status: str, what: str) -> None:
        try:
            call()
        except utils.InferenceServerException as error:
            require(error.status() == status and bool(error.message()),
                    f"{what}: {error.status()} '{error.message()}'")
            return
        raise CheckFailed(f"{what}: not refused")

    def infer(model: str, name: str, shape: list[int], datatype: str = "FP32"):
        tensor = http.InferInput(name, shape, datatype)
        tensor.set_data_from_numpy(np.zeros(shape, dtype=np.float32 if datatype == "FP32" else np.int32))
        return lambda: client.infer(model, [tensor])

    points = client.get_model_metadata("face_blendshapes")["inputs"][0]["name"]
    refused(lambda: client.get_model_metadata("no_such_model"), "404", "an unknown model's metadata")
    refused(infer("no_such_model", points, [1, 146, 2]), "404", "an unknown model's inference")
    refused(infer("face_blendshapes", points, [1, 2, 146]), "400", "a wrong shape")
    refused(infer("face_blendshapes", points, [1, 146, 2], "INT32"), "400", "a wrong datatype")
    refused(infer("face_blendshapes", "no_such_input", [1, 146, 2]), "400", "an unknown input")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", default=os.path.join(REPO, "Server/.build/release/visage-server"),
                        help="the visage-server executable (default: the release build)")
    parser.add_argument("--visage", default=os.path.join(REPO, ".build/release/visage"),
                        help="the visage command line whose `run` gives the expected outputs (default: the release build)")
    args = parser.parse_args()
    for name in ("NO_PROXY", "no_proxy"):
        os.environ[name] = ",".join(filter(None, [os.environ.get(name, ""), "127.0.0.1", "localhost"]))
    server_harness.exit_on_sigterm(143)
    try:
        import tritonclient.http as http
        import tritonclient.utils as utils
        from importlib.metadata import version
    except ImportError:
        print("tritonclient is not installed: .venv-server/bin/pip install 'tritonclient[http]'", file=sys.stderr)
        return 2
    for tool in (args.binary, args.visage):
        if not os.access(tool, os.X_OK):
            print(f"no executable at {tool}: build it first", file=sys.stderr)
            return 2
    print(f"tritonclient {version('tritonclient')}, numpy {version('numpy')}", flush=True)
    try:
        server = server_harness.start_server(
            args.binary, ["--model", f"full_range_again={MODELS['full_range_again']}"], "kserve")
    except server_harness.ServerError as error:
        print(f"FAIL could not start visage-server: {error}", file=sys.stderr)
        return 2
    try:
        client = http.InferenceServerClient(url=server.base.removeprefix("http://"), network_timeout=120.0)
        require(client.is_server_live() and client.is_server_ready(), "server live and ready")
        metadata = client.get_server_metadata()
        require(metadata["name"] == "visage-server" and "binary_tensor_data" in metadata["extensions"],
                f"server metadata: {metadata}")
        for seed, (name, reference) in enumerate(MODELS.items()):
            check_model(client, http, args.visage, name, reference, seed)
        check_refusals(client, http, utils)
    except Exception as failure:  # the client raising is a failure too
        return server_harness.report_failure(server, failure, CheckFailed)
    finally:
        server.stop()
    print("all checks passed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
