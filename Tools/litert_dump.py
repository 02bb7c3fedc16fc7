#!/usr/bin/env python3
"""Dump every tensor of a TFLite model as LiteRT computes it, in the layout `visage compare` reads.

    .venv/bin/python Tools/litert_dump.py MODEL [--input NAME=FILE.npy]... DIR [--kernels K]

MODEL is a .tflite file or one model in a .task bundle (bundle.task:entry.tflite). Inputs
are .npy files by input tensor name or by position, of the input's exact shape and dtype.
--kernels picks LiteRT's path:
  reference  the reference kernels (OpResolverType.BUILTIN_REF), every tensor preserved
             (experimental_preserve_all_tensors);
  xnnpack    the default path, with the XNNPACK delegate. LiteRT keeps no intermediate
             inside a delegated partition, and preserving all tensors turns the delegate
             off, so the model is rewritten with every operator's output made a model output
             (as Polygraphy's --mark all does). The manifest records how far the model's own
             outputs then are from an unmodified XNNPACK run ("markedOutputsGap").
One thread. DIR gets NNNN_name.npy per tensor and manifest.json (docs/validation.md):
inputs first, then each operator in the file's order, preceded by the constants it reads
that are not yet listed; constants no operator reads last. Constants keep their stored dtype.
"""
import argparse
import json
import os
import re
import struct
import sys
import zipfile

import numpy as np
import ai_edge_litert
from ai_edge_litert.interpreter import Interpreter, OpResolverType


def model_bytes(reference):
    bundle, sep, entry = reference.rpartition(":")
    if sep and bundle.endswith(".task"):
        with zipfile.ZipFile(bundle) as z:
            return z.read(entry)
    with open(reference, "rb") as f:
        return f.read()


def field(buf, table, slot):
    """Position of field `slot` of the flatbuffer table at `table`, or None when absent."""
    vtable = table - struct.unpack_from("<i", buf, table)[0]
    if 4 + 2 * slot >= struct.unpack_from("<H", buf, vtable)[0]:
        return None
    offset = struct.unpack_from("<H", buf, vtable + 4 + 2 * slot)[0]
    return table + offset if offset else None


def first_subgraph(buf):
    """Position of subgraph 0's table (Model field 2 is the subgraphs vector)."""
    root = struct.unpack_from("<I", buf, 0)[0]
    subgraphs = field(buf, root, 2)
    vector = subgraphs + struct.unpack_from("<I", buf, subgraphs)[0]
    return vector + 4 + struct.unpack_from("<I", buf, vector + 4)[0]


def tensor_count(model):
    """How many tensors subgraph 0 declares (SubGraph field 0); LiteRT adds scratch tensors
    of its own after them, which are not the model's."""
    graph = first_subgraph(model)
    tensors = field(model, graph, 0)
    return struct.unpack_from("<I", model, tensors + struct.unpack_from("<I", model, tensors)[0])[0]


def with_outputs(model, outputs):
    """The model with subgraph 0's outputs replaced: a new int32 vector appended at the end
    and the field's forward offset pointed at it (SubGraph field 2 is its outputs)."""
    buf = bytearray(model)
    slot = field(buf, first_subgraph(buf), 2)
    if slot is None:
        sys.exit("litert_dump: the model's first subgraph has no outputs field to rewrite")
    buf += b"\0" * (-len(buf) % 4)
    start = len(buf)
    buf += struct.pack(f"<I{len(outputs)}i", len(outputs), *outputs)
    struct.pack_into("<I", buf, slot, start - slot)
    return bytes(buf)


def safe(name):
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)[:80]


def order(details, ops, inputs):
    """(tensor index, operator or None) in execution order, as Visage writes its manifest."""
    written = {o for op in ops for o in op["outputs"]}
    constant = {t["index"] for t in details} - written - set(inputs)
    listed, result = set(), []

    def add(index, op):
        if index not in listed:
            listed.add(index)
            result.append((index, op))

    for index in inputs:
        add(index, None)
    for op in ops:
        for index in op["inputs"]:
            if index >= 0 and index in constant:
                add(index, None)
        for index in op["outputs"]:
            add(index, op)
    for index in sorted(constant):
        add(index, None)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model")
    parser.add_argument("directory")
    parser.add_argument("--input", action="append", default=[], help="NAME=FILE.npy or FILE.npy, repeatable")
    parser.add_argument("--kernels", choices=["reference", "xnnpack"], default="reference")
    args = parser.parse_args()

    model = model_bytes(args.model)
    # The reference interpreter names every operator in the file's order (no delegate).
    reference = Interpreter(model_content=model, num_threads=1,
                            experimental_op_resolver_type=OpResolverType.BUILTIN_REF,
                            experimental_preserve_all_tensors=True)
    reference.allocate_tensors()
    ops = reference._get_ops_details()
    declared = tensor_count(model)
    details = {t["index"]: t for t in reference.get_tensor_details() if t["index"] < declared}
    input_details = reference.get_input_details()
    names = [d["name"] for d in input_details]
    values = [None] * len(names)
    for position, spec in enumerate(args.input):
        name, sep, path = spec.rpartition("=")
        index = names.index(name) if sep and name in names else position
        path = path if sep and name in names else spec
        if index >= len(names):
            sys.exit(f"litert_dump: the model has {len(names)} inputs ({', '.join(names)}); got more")
        x = np.load(path)
        want = input_details[index]
        if tuple(x.shape) != tuple(want["shape"]) or x.dtype != want["dtype"]:
            sys.exit(f"litert_dump: input '{names[index]}' needs {want['dtype'].__name__} {list(want['shape'])}; "
                     f"{path} has {x.dtype} {list(x.shape)}")
        values[index] = x
    missing = [n for n, v in zip(names, values) if v is None]
    if missing:
        sys.exit(f"litert_dump: missing inputs: {', '.join(missing)}")

    def run(interpreter):
        for d, x in zip(interpreter.get_input_details(), values):
            interpreter.set_tensor(d["index"], x)
        interpreter.invoke()

    gap = None
    if args.kernels == "reference":
        interpreter = reference
    else:
        outputs = [d["index"] for d in reference.get_output_details()]
        marked = outputs + [o for op in ops for o in op["outputs"] if o not in outputs]
        interpreter = Interpreter(model_content=with_outputs(model, marked), num_threads=1)
        plain = Interpreter(model_content=model, num_threads=1)
        plain.allocate_tensors()
        run(plain)
        interpreter.allocate_tensors()
    run(interpreter)
    if gap is None and args.kernels == "xnnpack":
        gap = max(float(np.abs(interpreter.get_tensor(d["index"]).astype(np.float64)
                               - plain.get_tensor(d["index"]).astype(np.float64)).max())
                  for d in plain.get_output_details())

    os.makedirs(args.directory, exist_ok=True)
    digits = max(4, len(str(len(details) - 1)))
    tensors, skipped = [], []
    for index, op in order(list(details.values()), ops, [d["index"] for d in input_details]):
        try:
            value = interpreter.get_tensor(index)
        except ValueError:
            continue  # LiteRT holds no value for it (an unused tensor)
        if args.kernels == "xnnpack" and op is not None and op["op_name"] == "DEQUANTIZE" \
                and not value.any() and interpreter.get_tensor(op["inputs"][0]).any():
            # XNNPACK widens fp16 weights inside the delegate and never writes this tensor.
            skipped.append(int(index))
            continue
        name = details[index]["name"]
        file = f"{index:0{digits}d}_{safe(name)}.npy"
        np.save(os.path.join(args.directory, file), value)
        tensors.append({"index": int(index), "name": name, "file": file, "shape": [int(s) for s in value.shape],
                        "dtype": value.dtype.str,
                        "operator": None if op is None else {"index": int(op["index"]), "type": op["op_name"],
                                                             "inputs": [int(i) for i in op["inputs"] if i >= 0]}})
    version = getattr(ai_edge_litert, "__version__", "unknown")
    manifest = {"model": args.model, "engine": f"litert {version} {args.kernels}", "tensors": tensors,
                "stopped": None}
    if gap is not None:
        manifest["markedOutputsGap"] = gap
    if skipped:
        manifest["notWritten"] = {"tensors": skipped, "reason": "DEQUANTIZE of a constant: XNNPACK widens the "
                                  "fp16 weights inside the delegate and leaves this tensor unwritten"}
    with open(os.path.join(args.directory, "manifest.json"), "w") as f:
        json.dump(manifest, f)
        f.write("\n")
    print(json.dumps({"model": args.model, "engine": manifest["engine"], "directory": args.directory,
                      "tensors": len(tensors), **({"markedOutputsGap": gap} if gap is not None else {})}))


if __name__ == "__main__":
    main()
