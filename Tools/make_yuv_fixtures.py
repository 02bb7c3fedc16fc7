#!/usr/bin/env python3
"""Write the YUV 4:2:0 conversion fixtures of MPImage into Tests/Fixtures/yuv/.

Each fixture is one frame: `<name>.yuv`, its planes as a camera hands them over (rows padded to
the stride given in index.json, the padding filled with junk the conversion must not read), and
`<name>.rgb`, the 8-bit RGB it must become (rows top to bottom, no padding).

Frames: a seeded sweep of sizes (odd and even widths and heights, aspect ratios from 1:4 to
4:1, at most 64 pixels a side, plus a few of 1 to 5 pixels), NV12, NV21 and I420, video and
full range, tight and padded strides. Half the frames are cut from Tests/Fixtures/images/astronaut.png (a random crop,
resized) and turned into YUV with BT.601; the others are uniform noise, every sample 0...255,
which reaches every saturation.

Expected RGB:
  video range  OpenCV's cv2.cvtColor with COLOR_YUV2RGB_NV12 / _NV21 / _I420, the reference the
               Swift conversion matches bit for bit. cvtColor takes only even sizes, so an odd
               frame is converted as the next even size up: the same chroma planes (which
               already cover the extra column and row, ceil(w/2) x ceil(h/2) samples) and a Y
               plane with its last column and row repeated; then the result is cropped back.
               Each pixel's result depends only on its own Y and its block's chroma, so the
               crop is exactly the odd frame's conversion. The script also checks that
               OpenCV's answers equal the 20-bit integer formula the Swift code documents.
  full range   R = Y + 1.402 (V - 128), G = Y - 0.344136 (U - 128) - 0.714136 (V - 128),
               B = Y + 1.772 (U - 128) in double precision, rounded half up and clamped to
               0...255 (OpenCV has no full-range 4:2:0 conversion). The Swift code's 20-bit
               fixed point may differ from it by one level.

The output is deterministic for the same OpenCV, NumPy and Pillow.
Run:  .venv/bin/python Tools/make_yuv_fixtures.py   (the venv of Tools/setup-python.sh: mediapipe
      brings OpenCV as opencv-contrib-python; opencv-python-headless, numpy and Pillow also do)
"""
import json
import os
import shutil

import cv2
import numpy as np
from PIL import Image

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Tests", "Fixtures", "yuv")
IMAGE = os.path.join(ROOT, "Tests", "Fixtures", "images", "astronaut.png")
CODES = {"nv12": cv2.COLOR_YUV2RGB_NV12, "nv21": cv2.COLOR_YUV2RGB_NV21, "i420": cv2.COLOR_YUV2RGB_I420}
FRAMES_PER_KIND = 8  # per (layout, range): 48 frames
# The last frame of each (layout, range) is one of these: a single pixel, a single row or column,
# a lone half-block.
TINY = [(1, 1), (1, 3), (3, 1), (2, 3), (3, 2), (5, 1)]


# MARK: Source pictures as Y, U, V planes

def astronaut_crop(rng, width, height):
    """width x height RGB: a random crop of the astronaut with the frame's aspect, resized."""
    picture = np.asarray(Image.open(IMAGE).convert("RGB"))
    scale = rng.uniform(0.2, 1.0) * min(512 / width, 512 / height)
    w, h = max(1, int(width * scale)), max(1, int(height * scale))
    x, y = int(rng.integers(0, 512 - w + 1)), int(rng.integers(0, 512 - h + 1))
    return cv2.resize(np.ascontiguousarray(picture[y:y + h, x:x + w]), (width, height), interpolation=cv2.INTER_AREA)


def bt601_planes(rgb, full_range):
    """Y at full size, U and V averaged over each 2x2 block (the blocks of an odd edge over
    the pixels they have), with BT.601's matrix in the given range."""
    r, g, b = (rgb[..., i].astype(np.float64) for i in range(3))
    y = 0.299 * r + 0.587 * g + 0.114 * b
    cb, cr = (b - y) / 1.772, (r - y) / 1.402
    if full_range:
        y, cb, cr = y, cb + 128, cr + 128
    else:
        y, cb, cr = 16 + y * 219 / 255, 128 + cb * 224 / 255, 128 + cr * 224 / 255
    h, w = y.shape
    ch, cw = (h + 1) // 2, (w + 1) // 2

    def subsample(plane):
        padded = np.pad(plane, ((0, 2 * ch - h), (0, 2 * cw - w)), mode="edge")
        return padded.reshape(ch, 2, cw, 2).mean(axis=(1, 3))

    def to8(plane):
        return np.clip(np.floor(plane + 0.5), 0, 255).astype(np.uint8)

    return to8(y), to8(subsample(cb)), to8(subsample(cr))


def noise_planes(rng, width, height):
    ch, cw = (height + 1) // 2, (width + 1) // 2
    return tuple(rng.integers(0, 256, shape, dtype=np.uint8) for shape in [(height, width), (ch, cw), (ch, cw)])


# MARK: Expected RGB

def opencv_rgb(y, u, v, layout):
    """cv2.cvtColor's RGB for any size: odd sizes through the next even size, cropped."""
    h, w = y.shape
    ch, cw = u.shape
    even_y = np.pad(y, ((0, 2 * ch - h), (0, 2 * cw - w)), mode="edge")
    if layout == "i420":
        chroma = np.concatenate([u.reshape(-1), v.reshape(-1)])
    else:
        pairs = (u, v) if layout == "nv12" else (v, u)
        chroma = np.stack(pairs, axis=2).reshape(-1)
    frame = np.concatenate([even_y.reshape(-1), chroma]).reshape(3 * ch, 2 * cw)
    return cv2.cvtColor(frame, CODES[layout])[:h, :w]


def formula_rgb(y, u, v):
    """The 20-bit integer formula of OpenCV's ITUR_BT_601 constants, as YUVToRGB documents it."""
    h, w = y.shape
    cb = np.repeat(np.repeat(u.astype(np.int64) - 128, 2, 0), 2, 1)[:h, :w]
    cr = np.repeat(np.repeat(v.astype(np.int64) - 128, 2, 0), 2, 1)[:h, :w]
    luma = np.maximum(0, y.astype(np.int64) - 16) * 1220542 + (1 << 19)
    rgb = [(luma + 1673527 * cr) >> 20, (luma - 852492 * cr - 409993 * cb) >> 20, (luma + 2116026 * cb) >> 20]
    return np.clip(np.stack(rgb, axis=2), 0, 255).astype(np.uint8)


def full_range_rgb(y, u, v):
    """The full-range BT.601 formula in double precision, rounded half up."""
    h, w = y.shape
    cb = np.repeat(np.repeat(u.astype(np.float64) - 128, 2, 0), 2, 1)[:h, :w]
    cr = np.repeat(np.repeat(v.astype(np.float64) - 128, 2, 0), 2, 1)[:h, :w]
    luma = y.astype(np.float64)
    rgb = [luma + 1.402 * cr, luma - 0.344136 * cb - 0.714136 * cr, luma + 1.772 * cb]
    return np.clip(np.floor(np.stack(rgb, axis=2) + 0.5), 0, 255).astype(np.uint8)


# MARK: Writing frames

def padded(plane, row_bytes, stride, rng):
    """A plane's rows (row_bytes each) at the given stride, the padding filled with junk."""
    rows = plane.reshape(plane.shape[0], row_bytes)
    junk = rng.integers(0, 256, (rows.shape[0], stride - row_bytes), dtype=np.uint8)
    return np.concatenate([rows, junk], axis=1).reshape(-1)


def frame_size(rng, index):
    """A width and height at most 64 pixels, their parities cycling through the four pairs, with
    a random aspect ratio between 1:4 and 4:1."""
    aspect = np.exp(rng.uniform(np.log(0.25), np.log(4)))
    area = rng.uniform(1, 64 * 48)
    w = int(np.clip(round(np.sqrt(area * aspect)), 1, 64))
    h = int(np.clip(round(np.sqrt(area / aspect)), 1, 64))
    want_w, want_h = index % 2, (index // 2) % 2  # 1 = odd
    w = w if w % 2 == want_w else (w + 1 if w < 64 else w - 1)
    h = h if h % 2 == want_h else (h + 1 if h < 64 else h - 1)
    return max(w, 1), max(h, 1)


def main():
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)
    rng = np.random.default_rng(4202)
    entries = []
    for layout in ["nv12", "nv21", "i420"]:
        for value_range in ["video", "full"]:
            for k in range(FRAMES_PER_KIND):
                width, height = frame_size(rng, k) if k < FRAMES_PER_KIND - 1 else TINY[len(entries) // FRAMES_PER_KIND]
                source = "astronaut" if k % 2 == 0 else "noise"
                if source == "astronaut":
                    y, u, v = bt601_planes(astronaut_crop(rng, width, height), value_range == "full")
                else:
                    y, u, v = noise_planes(rng, width, height)
                if value_range == "video":
                    expected = opencv_rgb(y, u, v, layout)
                    assert np.array_equal(expected, formula_rgb(y, u, v)), "OpenCV differs from the 20-bit formula"
                else:
                    expected = full_range_rgb(y, u, v)
                ch, cw = u.shape
                padding = 0 if k < 3 else int(rng.integers(1, 40))  # the first three frames tight
                y_stride = width + padding
                data = [padded(y, width, y_stride, rng)]
                if layout == "i420":
                    strides = [cw + padding, cw + padding + (k % 3)]
                    data += [padded(u, cw, strides[0], rng), padded(v, cw, strides[1], rng)]
                else:
                    pairs = (u, v) if layout == "nv12" else (v, u)
                    strides = [2 * cw + padding]
                    data.append(padded(np.stack(pairs, axis=2), 2 * cw, strides[0], rng))
                planes, offset = [], 0
                for plane, stride in zip(data, [y_stride] + strides):
                    planes.append({"offset": offset, "length": len(plane), "bytesPerRow": stride})
                    offset += len(plane)
                name = f"{layout}_{value_range}_{k}_{width}x{height}"
                with open(os.path.join(OUT, name + ".yuv"), "wb") as f:
                    f.write(np.concatenate(data).tobytes())
                with open(os.path.join(OUT, name + ".rgb"), "wb") as f:
                    f.write(np.ascontiguousarray(expected).tobytes())
                entries.append({"name": name, "width": width, "height": height, "layout": layout,
                                "range": value_range, "source": source, "planes": planes})
    index = {
        "about": "Written by Tools/make_yuv_fixtures.py; see its docstring for how expected pixels are made. "
                 "<name>.yuv holds the planes at the given offsets and strides, <name>.rgb the expected RGB.",
        "opencv": cv2.__version__,
        "frames": entries,
    }
    with open(os.path.join(OUT, "index.json"), "w") as f:
        json.dump(index, f, indent=1, sort_keys=True)
        f.write("\n")
    total = sum(os.path.getsize(os.path.join(OUT, n)) for n in os.listdir(OUT))
    print(f"wrote {len(entries)} frames, {total} bytes, to {OUT} (OpenCV {cv2.__version__})")


if __name__ == "__main__":
    main()
