#!/usr/bin/env python3
"""Read back the exact 128x128x3 tensor MediaPipe's FaceDetector feeds its model, and compare it
with this repository's emulation of MediaPipe's preprocessing.

MediaPipe gives no access to the tensor it builds from an image (ROI, letterbox, OpenCV's
fixed-point warp, range conversion), so this tool asks the detector itself: it builds a "probe"
.tflite with the short-range detector's input ([1,128,128,3] float32), outputs ([1,896,16]
regressors, [1,896,1] scores) and TFLite metadata, so that MediaPipe accepts it, but whose
outputs are copies of chosen input values (RESHAPE, GATHER, MUL, CONCATENATION). Each anchor
becomes one detection (minimum confidence 0, tiny boxes that never overlap, so no suppression)
carrying five input values:

  * score logit      = input value a           (read back as log(s / (1 - s)))
  * keypoint 3 (x,y) = anchor + 64 * (b, c)    keypoints are decoded as anchor + raw / 128,
  * keypoint 4 (x,y) = anchor + 64 * (d, e)    so in input-pixel units 0.5 * value
  * keypoints 0, 1, 2 = anchor, anchor + (64, 0), anchor + (0, 64): the frame in which 3 and 4
    are read, whatever rotation and letterbox MediaPipe projects them through
  * keypoint 5 x      = 64 * i / 1000          identifies the anchor i, hence which inputs

Eleven runs (896 x 5 values each) cover all 49152 inputs. MediaPipe's input is
level * (2/255) - 1 for a uint8 level, so each value is read back as the level
round((v + 1) * 127.5), checked to be within 0.05 of an integer.

The emulation is make_sweep_fixtures.roi / box_points / warp (float32 ROI, OpenCV 5's
RotatedRect corners, cv2.getPerspectiveTransform + cv2.invert, OpenCV's fixed-point bilinear
warp with a zero border), the arithmetic the Swift preprocessing follows.

Usage:
    .venv/bin/python Tools/mediapipe_input_probe.py IMAGE [--rotation DEG] [--save OUT.npy]

IMAGE is a PNG or JPEG, decoded as Tools/make_detector_fixtures.decode_rgb decodes it; DEG is
MediaPipe's ImageProcessingOptions.rotation_degrees (a multiple of 90, default 0). Prints the
number of values that differ between MediaPipe's tensor and the emulation and where they are;
--save writes MediaPipe's tensor as a uint8 [128,128,3] .npy of levels. Exit status 1 if any
value differs.
"""
import argparse
import math
import os
import sys

os.environ.setdefault("GLOG_minloglevel", "2")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import flatbuffers  # noqa: E402
import numpy as np  # noqa: E402
from ai_edge_litert import schema_py_generated as schema  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bundled_models import model_bytes  # noqa: E402
from make_detector_fixtures import decode_rgb  # noqa: E402
from make_sweep_fixtures import box_points, roi, warp  # noqa: E402

SIZE = 128
ANCHORS = 896
PER_ANCHOR = 5  # values read back per anchor: score logit, keypoints 3 and 4
INPUTS = SIZE * SIZE * 3


# ------------------------------------------------------------------------------------------------
# The probe model.

def probe_model(indices):
    """A detector-shaped .tflite: anchor i reports the flat input values indices[i, 0..4]."""
    indices = np.asarray(indices, np.int32).reshape(ANCHORS, PER_ANCHOR)
    original = schema.ModelT.InitFromPackedBuf(model_bytes("face_detector"), 0)
    metadata = original.buffers[original.metadata[0].buffer].data

    buffers, tensors, opcodes, operators = [schema.BufferT()], [], [], []  # buffer 0: empty

    def tensor(name, shape, data=None, kind=schema.TensorType.FLOAT32):
        t = schema.TensorT()
        t.name, t.shape, t.type, t.buffer = name.encode(), np.array(shape, np.int32), kind, 0
        if data is not None:
            b = schema.BufferT()
            b.data = np.frombuffer(np.ascontiguousarray(data).tobytes(), np.uint8)
            buffers.append(b)
            t.buffer = len(buffers) - 1
        tensors.append(t)
        return len(tensors) - 1

    def operator(code, inputs, outputs, options_type, options):
        if code not in [c.builtinCode for c in opcodes]:
            c = schema.OperatorCodeT()
            c.builtinCode = c.deprecatedBuiltinCode = code
            c.version = 1
            opcodes.append(c)
        o = schema.OperatorT()
        o.opcodeIndex = [c.builtinCode for c in opcodes].index(code)
        o.inputs, o.outputs = np.array(inputs, np.int32), np.array(outputs, np.int32)
        o.builtinOptionsType, o.builtinOptions = options_type, options
        operators.append(o)

    def gather(source, index_data, name):
        out = tensor(name, index_data.shape)
        index = tensor(name + "_indices", index_data.shape, index_data, schema.TensorType.INT32)
        options = schema.GatherOptionsT()
        options.axis = options.batchDims = 0
        operator(schema.BuiltinOperator.GATHER, [source, index], [out], schema.BuiltinOptions.GatherOptions, options)
        return out

    image = tensor("input", [1, SIZE, SIZE, 3])
    flat = tensor("flat", [INPUTS])
    reshape = schema.ReshapeOptionsT()
    reshape.newShape = np.array([INPUTS], np.int32)
    flat_shape = tensor("flat_shape", [1], np.array([INPUTS], np.int32), schema.TensorType.INT32)
    operator(schema.BuiltinOperator.RESHAPE, [image, flat_shape], [flat], schema.BuiltinOptions.ReshapeOptions, reshape)
    scores = gather(flat, indices[:, :1].reshape(1, ANCHORS, 1), "classificators")
    values = gather(flat, indices[:, 1:].reshape(1, ANCHORS, 4), "values")
    scaled = tensor("scaled", [1, ANCHORS, 4])
    mul = schema.MulOptionsT()
    operator(schema.BuiltinOperator.MUL, [values, tensor("k64", [1], np.array([64], np.float32))], [scaled],
             schema.BuiltinOptions.MulOptions, mul)

    i = np.arange(ANCHORS)
    head = np.zeros((1, ANCHORS, 10), np.float32)  # box (4) and keypoints 0..2 (6)
    head[0, :, 0] = 0.64 * (i % 6)  # shift anchors sharing a cell apart: no box overlaps another
    head[0, :, 2] = head[0, :, 3] = 0.01
    head[0, :, 6] = 64  # keypoint 1 x
    head[0, :, 9] = 64  # keypoint 2 y
    tail = np.zeros((1, ANCHORS, 2), np.float32)  # keypoint 5
    tail[0, :, 0] = 64 * i / 1000
    regressors = tensor("regressors", [1, ANCHORS, 16])
    concat = schema.ConcatenationOptionsT()
    concat.axis = 2
    operator(schema.BuiltinOperator.CONCATENATION,
             [tensor("head", head.shape, head), scaled, tensor("tail", tail.shape, tail)], [regressors],
             schema.BuiltinOptions.ConcatenationOptions, concat)

    graph = schema.SubGraphT()
    graph.name, graph.tensors, graph.operators = b"main", tensors, operators
    graph.inputs, graph.outputs = np.array([image], np.int32), np.array([regressors, scores], np.int32)
    meta = schema.BufferT()
    meta.data = metadata
    buffers.append(meta)
    entry = schema.MetadataT()
    entry.name, entry.buffer = b"TFLITE_METADATA", len(buffers) - 1
    model = schema.ModelT()
    model.version, model.description = 3, b"mediapipe input probe"
    model.subgraphs, model.operatorCodes, model.buffers, model.metadata = [graph], opcodes, buffers, [entry]
    builder = flatbuffers.Builder(1024)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


# ------------------------------------------------------------------------------------------------
# Reading MediaPipe's tensor back.

def _level(value):
    level = (value + 1) * 127.5
    assert abs(level - round(level)) < 0.05, f"not an input level: {value}"
    return round(level)


def mediapipe_input(rgb, rotation_degrees=0):
    """MediaPipe's detector input for an RGB image as uint8 levels, [128, 128, 3]."""
    import mediapipe as mp
    from mediapipe.tasks.python import BaseOptions, vision

    image = mp.Image(image_format=mp.ImageFormat.SRGB, data=np.ascontiguousarray(rgb))
    processing = vision.ImageProcessingOptions(rotation_degrees=rotation_degrees)
    levels = np.full(INPUTS, -1, np.int64)
    for start in range(0, INPUTS, ANCHORS * PER_ANCHOR):
        indices = (np.arange(ANCHORS * PER_ANCHOR) + start).reshape(ANCHORS, PER_ANCHOR) % INPUTS
        detector = vision.FaceDetector.create_from_options(vision.FaceDetectorOptions(
            base_options=BaseOptions(model_asset_buffer=probe_model(indices)),
            min_detection_confidence=0.0, min_suppression_threshold=0.3))
        found = detector.detect(image, image_processing_options=processing).detections
        detector.close()
        assert len(found) == ANCHORS, f"{len(found)} detections, expected one per anchor"
        for d in found:
            k = np.array([[p.x, p.y] for p in d.keypoints], np.float64)
            # Keypoints 3, 4 and 5 in the frame of keypoints 0 -> 1 and 0 -> 2 (64 input px each).
            frame = np.stack([k[1] - k[0], k[2] - k[0]], 1)
            kp3, kp4, kp5 = np.linalg.solve(frame, (k[3:6] - k[0]).T).T
            anchor = kp5[0] * 1000
            assert abs(anchor - round(anchor)) < 0.05, f"bad anchor index {anchor}"
            s = d.categories[0].score
            values = [math.log(s / (1 - s)), *kp3, *kp4]
            levels[indices[round(anchor)]] = [_level(v) for v in values]
    assert (levels >= 0).all(), "some inputs were not read back"
    return levels.reshape(SIZE, SIZE, 3).astype(np.uint8)


def emulated_input(rgb, rotation_degrees=0):
    """make_sweep_fixtures' emulation of the same tensor, uint8 levels [128, 128, 3]."""
    h, w = rgb.shape[:2]
    return warp(rgb, box_points(*roi(w, h, rotation_degrees, SIZE)), SIZE).astype(np.uint8)


def summarize(actual, emulated):
    """Print how many values differ and where; return the count."""
    where = np.argwhere(actual != emulated)
    print(f"differing values: {len(where)} of {actual.size}")
    if len(where):
        delta = emulated.astype(int) - actual.astype(int)
        (y0, x0, _), (y1, x1, _) = where.min(0), where.max(0)
        pixels = len({(y, x) for y, x, _ in where})
        print(f"  at {pixels} pixels, rows {y0}..{y1}, columns {x0}..{x1}; "
              f"per channel {np.bincount(where[:, 2], minlength=3).tolist()}; "
              f"emulation - MediaPipe in [{delta.min()}, {delta.max()}]")
        for y, x, c in where[:20]:
            print(f"  (row {y}, column {x}, channel {c}): MediaPipe {actual[y, x, c]}, emulation {emulated[y, x, c]}")
        if len(where) > 20:
            print(f"  ... {len(where) - 20} more")
    return len(where)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("image", help="PNG or JPEG")
    parser.add_argument("--rotation", type=int, default=0, help="rotation_degrees (multiple of 90)")
    parser.add_argument("--save", metavar="OUT.npy", help="write MediaPipe's tensor (uint8 levels)")
    args = parser.parse_args()
    rgb = decode_rgb(args.image)
    print(f"{args.image}: {rgb.shape[1]}x{rgb.shape[0]}, rotation {args.rotation}")
    actual = mediapipe_input(rgb, args.rotation)
    if args.save:
        np.save(args.save, actual)
        print(f"wrote {args.save}")
    sys.exit(1 if summarize(actual, emulated_input(rgb, args.rotation)) else 0)


if __name__ == "__main__":
    main()
