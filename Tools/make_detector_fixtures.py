#!/usr/bin/env python3
"""Write the face-detector reference fixtures: synthesized images plus MediaPipe's detections.

Everything is derived from Tests/Fixtures/images/astronaut.png (public domain, scikit-image), the
only source image. The script writes

    Tests/Fixtures/detector/images/*.png, *.jpg   the synthesized test images (astronaut.png
                                                  itself is used in place, not copied)
    Tests/Fixtures/detector/mediapipe.json        one case per (image, options) run

and for each case records the image's size, the SHA-256 of its decoded 8-bit RGB bytes
("rgbSha256": row-major, R G B per pixel, no padding) and what MediaPipe 1.2.2's Tasks
FaceDetector returns for it (short-range face_detector.tflite from face_landmarker.task, passed
via model_asset_buffer, CPU). The Swift tests read only these files, never Python.

Decoding rules (the Swift decoder follows the same ones):
  * PNG is decoded here in numpy (any colour type, 1-16 bit, Adam7): alpha is dropped, never
    composited; gray is replicated to R=G=B; a palette is expanded (tRNS ignored); 16-bit
    samples go to 8 bit as libpng's png_set_scale_16 does,
    v8 = hi + (((lo - hi + 128) * 65535) >> 24) (== (v16 * 255 + 32895) >> 16);
    1/2/4-bit gray is scaled to 0..255; colour-management chunks (iCCP, gAMA, sRGB) are ignored.
  * JPEG is decoded by Pillow (libjpeg-turbo, its defaults: islow IDCT, fancy upsampling);
    gray JPEG is replicated to three channels. No EXIF orientation is written or applied.

The "groupPhoto" entry is a 1536x1024 canvas with seven faces of about 1/12 of its width, at
known (ground-truth) pixel boxes. The script checks, on the decoded pixels, that the short-range
Tasks detector finds none of them (it tolerates one) while the full-range model
(face_detection_full_range.tflite run with ai-edge-litert, decoded here in numpy as MediaPipe's
192-input graph would) finds every one and nothing else, and stops with an error if not.

Rerun (output is deterministic; rerunning rewrites identical bytes with the same Pillow, zlib
and mediapipe versions, which the JSON records):

    .venv/bin/python Tools/make_detector_fixtures.py
    # or, after Tools/setup-python.sh:  .venv/bin/python Tools/make_detector_fixtures.py
"""
import hashlib
import io
import json
import os
import struct
import sys
import zlib

os.environ.setdefault("GLOG_minloglevel", "2")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import PIL  # noqa: E402
from PIL import Image, ImageDraw, ImageEnhance, ImageFilter, ImageOps, features  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bundled_models import ROOT, model_bytes  # noqa: E402

FIXTURES = os.path.join(ROOT, "Tests", "Fixtures")
OUT = os.path.join(FIXTURES, "detector")
IMAGES = os.path.join(OUT, "images")
SOURCE = os.path.join(FIXTURES, "images", "astronaut.png")
GENERATOR = "Tools/make_detector_fixtures.py"

# MediaPipe's short-range box for the face in astronaut.png (x, y, w, h px): the sprite anchor.
FACE = (177, 82, 95, 95)
HEAD = (104, 8, 344, 358)  # head and shoulders around it, clear of the flag and the shuttle


# ------------------------------------------------------------------------------------------------
# PNG: a small encoder (for 16-bit and interlaced files, which Pillow does not write) and a
# decoder that applies the decoding rules above.

ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}


def _chunk(tag, data):
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))


def _paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = np.abs(p - a), np.abs(p - b), np.abs(p - c)
    return np.where((pa <= pb) & (pa <= pc), a, np.where(pb <= pc, b, c))


def _filter_rows(rows, bpp):
    """Per row, the filter with the smallest sum of |signed bytes| (libpng's heuristic)."""
    out = bytearray()
    prev = np.zeros(rows.shape[1], np.int32)
    pad = np.zeros(bpp, np.int32)
    for row in rows.astype(np.int32):
        left = np.concatenate([pad, row[:-bpp]])
        upleft = np.concatenate([pad, prev[:-bpp]])
        candidates = [row, row - left, row - prev, row - ((left + prev) >> 1),
                      row - _paeth(left, prev, upleft)]
        costs = [int(np.abs((c & 0xFF).astype(np.uint8).view(np.int8).astype(np.int32)).sum())
                 for c in candidates]
        best = int(np.argmin(costs))
        out.append(best)
        out += (candidates[best] & 0xFF).astype(np.uint8).tobytes()
        prev = row
    return bytes(out)


def write_png(path, samples, color_type, bit_depth=8, interlace=False, palette=None):
    """samples: HxWxC array (uint8, or uint16 for bit_depth 16), or HxW for gray/palette."""
    s = samples if samples.ndim == 3 else samples[:, :, None]
    h, w, c = s.shape
    assert c == CHANNELS[color_type] and bit_depth in (8, 16)
    s = s.astype(">u2" if bit_depth == 16 else np.uint8)
    bpp = c * bit_depth // 8
    if interlace:
        data = b""
        for x0, y0, dx, dy in ADAM7:
            sub = s[y0::dy, x0::dx]
            if sub.size:
                data += _filter_rows(np.frombuffer(sub.tobytes(), np.uint8).reshape(sub.shape[0], -1), bpp)
    else:
        data = _filter_rows(np.frombuffer(s.tobytes(), np.uint8).reshape(h, -1), bpp)
    png = b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, bit_depth, color_type, 0, 0, int(interlace)))
    if palette is not None:
        png += _chunk(b"PLTE", bytes(np.asarray(palette, np.uint8).ravel()))
    png += _chunk(b"IDAT", zlib.compress(data, 9)) + _chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(png)


def _unfilter(data, height, rowbytes, bpp):
    out = np.empty((height, rowbytes), np.uint8)
    prev = [0] * rowbytes
    pos = 0
    for y in range(height):
        ftype = data[pos]
        cur = list(data[pos + 1:pos + 1 + rowbytes])
        pos += 1 + rowbytes
        if ftype == 1:
            for i in range(bpp, rowbytes):
                cur[i] = (cur[i] + cur[i - bpp]) & 0xFF
        elif ftype == 2:
            cur = [(a + b) & 0xFF for a, b in zip(cur, prev)]
        elif ftype == 3:
            for i in range(rowbytes):
                left = cur[i - bpp] if i >= bpp else 0
                cur[i] = (cur[i] + ((left + prev[i]) >> 1)) & 0xFF
        elif ftype == 4:
            for i in range(rowbytes):
                a = cur[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                cur[i] = (cur[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        elif ftype != 0:
            raise ValueError(f"bad PNG filter {ftype}")
        out[y] = cur
        prev = cur
    return out, pos


def scale_16_to_8(v):
    """libpng png_do_scale_16_to_8: tmp = hi; tmp += ((lo - tmp + 128) * 65535) >> 24 (signed)."""
    v = np.asarray(v, np.int64)
    hi, lo = v >> 8, v & 0xFF
    return (hi + (((lo - hi + 128) * 65535) >> 24)).astype(np.uint8)


_all16 = np.arange(65536)
assert np.array_equal(scale_16_to_8(_all16), ((_all16 * 255 + 32895) >> 16).astype(np.uint8))


def decode_png(blob):
    assert blob[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, palette = 8, b"", None
    while pos < len(blob):
        n, tag = struct.unpack(">I4s", blob[pos:pos + 8])
        body = blob[pos + 8:pos + 8 + n]
        if tag == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif tag == b"PLTE":
            palette = np.frombuffer(body, np.uint8).reshape(-1, 3)
        elif tag == b"IDAT":
            idat += body
        elif tag == b"IEND":
            break
        pos += 12 + n
    data = zlib.decompress(idat)
    c = CHANNELS[ctype]
    bits = c * depth
    bpp = max(1, bits // 8)
    samples = np.zeros((h, w, c), np.int64)
    passes = ADAM7 if interlace else [(0, 0, 1, 1)]
    pos = 0
    for x0, y0, dx, dy in passes:
        pw, ph = len(range(x0, w, dx)), len(range(y0, h, dy))
        if pw == 0 or ph == 0:
            continue
        rowbytes = (pw * bits + 7) // 8
        rows, used = _unfilter(data[pos:], ph, rowbytes, bpp)
        pos += used
        if depth == 16:
            vals = rows.reshape(ph, -1, 2).astype(np.int64)
            vals = (vals[:, :, 0] << 8) | vals[:, :, 1]
        elif depth == 8:
            vals = rows.astype(np.int64)
        else:
            vals = np.unpackbits(rows, axis=1).reshape(ph, -1, depth)
            vals = (vals * (1 << np.arange(depth - 1, -1, -1))).sum(2)
        samples[y0::dy, x0::dx] = vals[:, :pw * c].reshape(ph, pw, c)
    if ctype == 3:
        return palette[samples[:, :, 0]], depth
    if depth == 16:
        samples = scale_16_to_8(samples)
    elif depth < 8:
        samples = samples * 255 // ((1 << depth) - 1)
    rgb = samples[:, :, :3] if c >= 3 else np.repeat(samples[:, :, :1], 3, axis=2)
    return np.ascontiguousarray(rgb, dtype=np.uint8), depth


def decode_rgb(path):
    """The image's 8-bit RGB pixels (HxWx3 uint8) under the decoding rules in the docstring."""
    with open(path, "rb") as f:
        blob = f.read()
    if blob[:8] == b"\x89PNG\r\n\x1a\n":
        rgb, depth = decode_png(blob)
        # Cross-check with Pillow, whose conversion follows the same rules up to 8 bits. For 16
        # bits Pillow keeps the high byte; scaling must differ from that by at most 1, somewhere.
        pillow = np.asarray(Image.open(io.BytesIO(blob)).convert("RGB")).astype(np.int32)
        if depth <= 8:
            assert np.array_equal(rgb, pillow), path
        else:
            diff = rgb.astype(np.int32) - pillow
            assert np.abs(diff).max() == 1, path
        return rgb
    im = Image.open(io.BytesIO(blob))
    assert im.format == "JPEG" and im.mode in ("RGB", "L"), (path, im.format, im.mode)
    return np.ascontiguousarray(np.asarray(im.convert("RGB")), dtype=np.uint8)


# ------------------------------------------------------------------------------------------------
# Image synthesis.

def astronaut():
    return Image.open(SOURCE).convert("RGB")


def background(w, h):
    """Blurred tiles of the right-hand strip (shuttle, helmet), alternately mirrored: no faces."""
    strip = astronaut().crop((344, 0, 512, 512))
    tile = strip.resize((max(1, round(h * strip.width / strip.height)), h), Image.BILINEAR)
    bg = Image.new("RGB", (w, h))
    for k, x in enumerate(range(0, w, tile.width)):
        bg.paste(ImageOps.mirror(tile) if k % 2 else tile, (x, 0))
    return bg.filter(ImageFilter.GaussianBlur(6))


def sprite(scale, mirror=False, brightness=1.0, crop=HEAD):
    """Head and shoulders, scaled, with a feathered oval mask, and the face box inside it."""
    c = astronaut().crop(crop)
    if mirror:
        c = ImageOps.mirror(c)
    if brightness != 1.0:
        c = ImageEnhance.Brightness(c).enhance(brightness)
    w, h = round(c.width * scale), round(c.height * scale)
    c = c.resize((w, h), Image.LANCZOS)
    mask = Image.new("L", (w, h), 0)
    pad = round(12 * scale)
    ImageDraw.Draw(mask).ellipse((pad, pad, w - pad, h + h // 3), fill=255)
    fade = np.clip((h - 1 - np.arange(h)) / (0.15 * h), 0, 1)[:, None]  # fade out at the bottom
    mask = Image.fromarray((np.asarray(mask) * fade).astype(np.uint8))
    mask = mask.filter(ImageFilter.GaussianBlur(8 * scale))
    fx, fy = FACE[0] - crop[0], FACE[1] - crop[1]
    if mirror:
        fx = (crop[2] - crop[0]) - (fx + FACE[2])
    return c, mask, (fx * scale, fy * scale, FACE[2] * scale, FACE[3] * scale)


def compose(w, h, people):
    """people: (face centre x, y, scale, mirror, brightness). Returns the canvas and face boxes."""
    canvas, boxes = background(w, h), []
    for cx, cy, scale, mirror, brightness in people:
        img, mask, (fx, fy, fw, fh) = sprite(scale, mirror, brightness)
        ox, oy = round(cx - (fx + fw / 2)), round(cy - (fy + fh / 2))
        canvas.paste(img, (ox, oy), mask)
        boxes.append([round(ox + fx), round(oy + fy), round(fw), round(fh)])
    return canvas, boxes


GROUP_PEOPLE = [  # back row, then front row; faces 118-139 px on a 1536-px-wide canvas
    (420, 290, 1.28, False, 1.0), (768, 300, 1.24, True, 0.9), (1116, 285, 1.35, False, 1.1),
    (250, 640, 1.42, True, 1.05), (594, 650, 1.35, False, 0.85), (942, 635, 1.46, True, 1.0),
    (1290, 645, 1.38, False, 0.95),
]
MULTI_PEOPLE = [  # 2x2 on 800x600; faces 185-210 px, about a quarter of the width
    (205, 160, 2.1, False, 1.0), (600, 150, 1.95, True, 0.9),
    (195, 440, 2.0, True, 1.1), (610, 450, 2.2, False, 0.95),
]


def save_jpeg(img, path, **kw):
    img.save(path, "JPEG", quality=90, **kw)


def synthesize():
    """Writes every synthesized image; returns {name: path} and the group photo's face boxes."""
    os.makedirs(IMAGES, exist_ok=True)
    a = astronaut()
    files = {}

    def path(name):
        files[name] = os.path.join(IMAGES, name)
        return files[name]

    # Rotations of a 4:3 crop, so the width/height swap of +-90 degrees matters.
    base43 = np.asarray(a.crop((16, 40, 496, 400)).resize((320, 240), Image.LANCZOS))
    Image.fromarray(np.rot90(base43, k=-1).copy()).save(path("rotated_cw90.png"))
    Image.fromarray(np.rot90(base43, k=2).copy()).save(path("rotated_180.png"))
    Image.fromarray(np.rot90(base43, k=1).copy()).save(path("rotated_ccw90.png"))

    # Sizes.
    a.resize((96, 96), Image.LANCZOS).save(path("small_96x96.png"))
    a.crop((0, 64, 512, 448)).resize((160, 120), Image.LANCZOS).save(path("small_160x120.png"))
    save_jpeg(a.resize((1600, 1600), Image.BICUBIC), path("large_1600x1600.jpg"))

    # Off-centre faces on wide and tall canvases (face box about 230 px).
    wide, _ = compose(1280, 400, [(1060, 190, 2.4, False, 1.0)])
    save_jpeg(wide, path("wide_1280x400.jpg"))
    tall, _ = compose(400, 1280, [(190, 1040, 2.4, True, 1.0)])
    save_jpeg(tall, path("tall_400x1280.jpg"))

    # Format variants of one 256x256 image.
    base = a.resize((256, 256), Image.LANCZOS)
    rgb8 = np.asarray(base)
    gray = np.asarray(base.convert("L"))
    yy, xx = np.mgrid[0:256, 0:256]
    alpha = np.clip((xx + yy) - 128, 0, 255).astype(np.uint8)  # 0 in the top-left corner, 255 bottom-right
    base.save(path("format_rgb.png"))
    Image.fromarray(gray).save(path("format_gray.png"))
    Image.fromarray(np.dstack([gray, alpha]), "LA").save(path("format_gray_alpha.png"))
    Image.fromarray(np.dstack([rgb8, alpha]), "RGBA").save(path("format_rgba.png"))
    # 16-bit: the same resize done in float and kept at 16 bits, so the low bytes carry data.
    src = np.asarray(a, np.float32)
    chans = [np.asarray(Image.fromarray(src[:, :, k], "F").resize((256, 256), Image.LANCZOS)) for k in range(3)]
    rgb16 = np.clip(np.rint(np.dstack(chans) * 257.0), 0, 65535).astype(np.uint16)
    write_png(path("format_rgb16.png"), rgb16, color_type=2, bit_depth=16)
    pal = base.quantize(colors=256, method=Image.Quantize.MEDIANCUT)
    pal.save(path("format_palette.png"))
    write_png(path("format_interlaced.png"), rgb8, color_type=2, interlace=True)
    save_jpeg(base, path("format_baseline.jpg"))
    save_jpeg(base, path("format_progressive.jpg"), progressive=True)
    save_jpeg(Image.fromarray(gray), path("format_gray.jpg"))

    # No face: the flag and the suit; a smooth gradient.
    a.crop((0, 280, 232, 512)).resize((192, 192), Image.LANCZOS).save(path("noface_flag_suit.png"))
    gy, gx = np.mgrid[0:240, 0:320].astype(np.float64)
    grad = np.dstack([gx / 319 * 255, gy / 239 * 255, 255 - (gx + gy) / 558 * 200])
    Image.fromarray(np.rint(grad).astype(np.uint8)).save(path("noface_gradient.png"))

    # Several medium faces, and the group photo of small ones.
    multi, _ = compose(800, 600, MULTI_PEOPLE)
    save_jpeg(multi, path("multiface_800x600.jpg"))
    group, group_faces = compose(1536, 1024, GROUP_PEOPLE)
    save_jpeg(group, path("group_1536x1024.jpg"))

    # A short sequence for VIDEO mode: the face drifts right and down and grows a little.
    for i in range(6):
        cx, cy, half_w = 214 + 6 * i, 150 + 3 * i, 200 - 6 * i
        half_h = half_w * 3 / 4
        box = tuple(round(v) for v in (cx - half_w, cy - half_h, cx + half_w, cy + half_h))
        save_jpeg(a.crop(box).resize((320, 240), Image.LANCZOS), path(f"video_{i}.jpg"))
    return files, group_faces


# ------------------------------------------------------------------------------------------------
# Full-range model, decoded in numpy (only to check the group photo).

def _letterbox(rgb, size, antialias):
    """Square ROI of side max(W, H) centred on the image, zero border, to size x size floats."""
    h, w = rgb.shape[:2]
    side = max(w, h)
    x0, y0 = (w - side) / 2.0, (h - side) / 2.0
    if antialias:  # pad, then Pillow's area-aware bilinear
        square = np.zeros((side, side, 3), np.uint8)
        square[int(-y0):int(-y0) + h, int(-x0):int(-x0) + w] = rgb
        out = np.asarray(Image.fromarray(square).resize((size, size), Image.BILINEAR), np.float32)
        return out, (x0, y0, side)
    # MediaPipe's mapping: corner-aligned, src = roi corner + u * side / size, bilinear, zeros outside.
    src = np.zeros((h + 2, w + 2, 3), np.float32)
    src[1:-1, 1:-1] = rgb
    xs, ys = x0 + np.arange(size) * side / size, y0 + np.arange(size) * side / size
    xf, yf = np.floor(xs), np.floor(ys)
    ax, ay = (xs - xf)[None, :, None], (ys - yf)[:, None, None]
    xi, yi = np.clip(xf.astype(int) + 1, 0, w + 1), np.clip(yf.astype(int) + 1, 0, h + 1)
    xj, yj = np.clip(xi + 1, 0, w + 1), np.clip(yi + 1, 0, h + 1)
    out = (src[yi][:, xi] * (1 - ax) * (1 - ay) + src[yi][:, xj] * ax * (1 - ay)
           + src[yj][:, xi] * (1 - ax) * ay + src[yj][:, xj] * ax * ay)
    return np.rint(out), (x0, y0, side)


def _iou(a, b):
    """IoU of (xmin, ymin, xmax, ymax) boxes."""
    iw, ih = min(a[2], b[2]) - max(a[0], b[0]), min(a[3], b[3]) - max(a[1], b[1])
    if iw < 0 or ih < 0:
        return 0.0
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - iw * ih
    return iw * ih / union if union > 0 else 0.0


def full_range_detect(rgb, antialias=False, threshold=0.5, suppression=0.3):
    """[(score, [x, y, w, h] px)] from face_detection_full_range.tflite, weighted NMS."""
    from ai_edge_litert.interpreter import Interpreter
    it = Interpreter(model_content=model_bytes("face_detection_full_range"), num_threads=1)
    it.allocate_tensors()
    tensor, (x0, y0, side) = _letterbox(rgb, 192, antialias)
    it.set_tensor(it.get_input_details()[0]["index"], (tensor / 127.5 - 1.0)[None].astype(np.float32))
    it.invoke()
    outs = {d["name"]: it.get_tensor(d["index"]) for d in it.get_output_details()}
    raw = next(v for k, v in outs.items() if "regressor" in k)[0].astype(np.float64)
    logits = next(v for k, v in outs.items() if "classifier" in k)[0, :, 0].astype(np.float64)
    scores = 1.0 / (1.0 + np.exp(-np.clip(logits, -100, 100)))
    grid = (np.arange(48) + 0.5) / 48
    ay, ax = np.meshgrid(grid, grid, indexing="ij")
    cx, cy = raw[:, 0] / 192 + ax.ravel(), raw[:, 1] / 192 + ay.ravel()
    bw, bh = raw[:, 2] / 192, raw[:, 3] / 192
    boxes = np.stack([cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2], 1)
    remaining = sorted((i for i in range(len(scores)) if scores[i] >= threshold), key=lambda i: -scores[i])
    found = []
    while remaining:
        top = remaining[0]
        cand = [i for i in remaining if _iou(boxes[i], boxes[top]) > suppression]
        rest = [i for i in remaining if i not in cand]
        weights = scores[cand]
        b = (weights[:, None] * boxes[cand]).sum(0) / weights.sum()
        px = [x0 + b[0] * side, y0 + b[1] * side, x0 + b[2] * side, y0 + b[3] * side]
        found.append((float(scores[top]), [px[0], px[1], px[2] - px[0], px[3] - px[1]]))
        if len(rest) == len(remaining):
            break
        remaining = rest
    return found


def check_group_photo(rgb, faces, short_range):
    """Short range: none (at most one); full range: each ground-truth face, nothing else."""
    report = {"shortRange": len(short_range)}
    for antialias in (False, True):
        found = full_range_detect(rgb, antialias)
        label = "fullRangeAntialiased" if antialias else "fullRange"
        report[label] = len(found)
        for f in faces:
            gt = (f[0], f[1], f[0] + f[2], f[1] + f[3])
            best = max((_iou(gt, (b[0], b[1], b[0] + b[2], b[1] + b[3])) for _, b in found), default=0.0)
            if best < 0.5:
                sys.exit(f"group photo: full range ({label}) misses the face at {f} (best IoU {best:.2f})")
        if len(found) != len(faces):
            sys.exit(f"group photo: full range ({label}) finds {len(found)} faces, expected {len(faces)}")
        report[label + "Scores"] = [round(s, 3) for s, _ in found]
    if len(short_range) > 1:
        sys.exit(f"group photo: short range finds {len(short_range)} faces, expected at most 1")
    return report


# ------------------------------------------------------------------------------------------------
# MediaPipe runs.

def to_json(value, indent=""):
    """Indented JSON, with objects and arrays that hold only scalars (or arrays of scalars) on
    one line. Floats are written by json (shortest repr, full precision)."""
    def flat(v):
        return not isinstance(v, (dict, list)) or (
            isinstance(v, list) and all(not isinstance(x, (dict, list)) or
                                        (isinstance(x, list) and all(not isinstance(y, (dict, list)) for y in x))
                                        for x in v)) or (
            isinstance(v, dict) and all(not isinstance(x, (dict, list)) for x in v.values()))
    if flat(value):
        return json.dumps(value, separators=(", ", ": "))
    inner = indent + "  "
    if isinstance(value, dict):
        body = ",\n".join(f"{inner}{json.dumps(k)}: {to_json(v, inner)}" for k, v in value.items())
        return "{\n" + body + "\n" + indent + "}"
    return "[\n" + ",\n".join(inner + to_json(v, inner) for v in value) + "\n" + indent + "]"


def main():
    import mediapipe as mp
    from mediapipe.tasks.python import BaseOptions, vision

    files, group_faces = synthesize()
    short_model = model_bytes("face_detector")

    def detector(mode="IMAGE", confidence=0.5, suppression=0.3):
        options = vision.FaceDetectorOptions(
            base_options=BaseOptions(model_asset_buffer=short_model),
            running_mode=getattr(vision.RunningMode, mode),
            min_detection_confidence=confidence, min_suppression_threshold=suppression)
        return vision.FaceDetector.create_from_options(options)

    def detections(result):
        return [{
            "boundingBox": {"originX": int(d.bounding_box.origin_x), "originY": int(d.bounding_box.origin_y),
                            "width": int(d.bounding_box.width), "height": int(d.bounding_box.height)},
            "score": float(d.categories[0].score),
            "keypoints": [[float(k.x), float(k.y)] for k in d.keypoints],
        } for d in result.detections]

    decoded = {}

    def load(path):
        if path not in decoded:
            decoded[path] = decode_rgb(path)
        return decoded[path]

    def case(name, path, rgb, rotation, confidence, suppression, mode, result, timestamp=None):
        c = {"name": name, "image": os.path.relpath(path, FIXTURES).replace(os.sep, "/"),
             "width": int(rgb.shape[1]), "height": int(rgb.shape[0]),
             "rgbSha256": hashlib.sha256(rgb.tobytes()).hexdigest(),
             "rotationDegrees": rotation, "minDetectionConfidence": confidence,
             "minSuppressionThreshold": suppression, "runningMode": mode}
        if timestamp is not None:
            c["timestampMs"] = timestamp
        c["detections"] = detections(result)
        return c

    # (case name, image file, rotation, min_detection_confidence, min_suppression_threshold)
    plan = [("astronaut", SOURCE, 0, 0.5, 0.3)]
    for stem, rotation in [("rotated_cw90", -90), ("rotated_180", -180), ("rotated_ccw90", -270)]:
        plan += [(stem, files[stem + ".png"], rotation, 0.5, 0.3),
                 (stem + "_unrotated", files[stem + ".png"], 0, 0.5, 0.3)]
    for name in ["small_96x96.png", "small_160x120.png", "large_1600x1600.jpg", "wide_1280x400.jpg",
                 "tall_400x1280.jpg", "format_rgb.png", "format_gray.png", "format_gray_alpha.png",
                 "format_rgba.png", "format_rgb16.png", "format_palette.png", "format_interlaced.png",
                 "format_baseline.jpg", "format_progressive.jpg", "format_gray.jpg",
                 "noface_flag_suit.png", "noface_gradient.png", "multiface_800x600.jpg",
                 "group_1536x1024.jpg"]:
        stem = os.path.splitext(name)[0]
        plan.append((stem + ("_jpeg" if name == "format_gray.jpg" else ""), files[name], 0, 0.5, 0.3))
    multi, group = files["multiface_800x600.jpg"], files["group_1536x1024.jpg"]
    # Non-default thresholds: on the multi-face canvas they change the weighted-NMS averages; on
    # the flag/suit crop and the upside-down image 0.2 lets weak false or rotated faces through.
    plan += [("multiface_800x600_conf0.2", multi, 0, 0.2, 0.3),
             ("multiface_800x600_nms0.6", multi, 0, 0.5, 0.6),
             ("multiface_800x600_conf0.2_nms0.6", multi, 0, 0.2, 0.6),
             ("noface_flag_suit_conf0.2", files["noface_flag_suit.png"], 0, 0.2, 0.3),
             ("rotated_180_unrotated_conf0.2", files["rotated_180.png"], 0, 0.2, 0.3),
             ("group_1536x1024_conf0.2", group, 0, 0.2, 0.3)]

    cases, detectors = [], {}
    try:
        for name, path, rotation, confidence, suppression in plan:
            rgb = load(path)
            if (confidence, suppression) not in detectors:
                detectors[(confidence, suppression)] = detector("IMAGE", confidence, suppression)
            options = vision.ImageProcessingOptions(rotation_degrees=rotation) if rotation else None
            result = detectors[(confidence, suppression)].detect(
                mp.Image(image_format=mp.ImageFormat.SRGB, data=rgb), image_processing_options=options)
            cases.append(case(name, path, rgb, rotation, confidence, suppression, "IMAGE", result))
        with detector("VIDEO") as video:
            for i in range(6):
                path = files[f"video_{i}.jpg"]
                rgb = load(path)
                timestamp = round(i * 1000 / 30)
                result = video.detect_for_video(mp.Image(image_format=mp.ImageFormat.SRGB, data=rgb), timestamp)
                cases.append(case(f"video_{i}", path, rgb, 0, 0.5, 0.3, "VIDEO", result, timestamp))
    finally:
        for d in detectors.values():
            d.close()

    group_path = files["group_1536x1024.jpg"]
    group_case = next(c for c in cases if c["name"] == "group_1536x1024")
    check = check_group_photo(load(group_path), group_faces, group_case["detections"])

    doc = {
        "generator": GENERATOR,
        "mediapipe": mp.__version__,
        "pillow": PIL.__version__,
        "libjpegTurbo": features.version("libjpeg_turbo"),
        "zlib": features.version("zlib"),
        "model": "face_detector.tflite from Weights/face_landmarker.task (short range, 128x128)",
        "decoding": "PNG: alpha dropped, gray replicated, palette expanded, 16-bit via libpng "
                    "png_set_scale_16; JPEG: libjpeg-turbo defaults via Pillow. rgbSha256 is over "
                    "the decoded row-major 8-bit RGB bytes.",
        "cases": cases,
        "groupPhoto": {
            "image": os.path.relpath(group_path, FIXTURES).replace(os.sep, "/"),
            "faces": group_faces,
            "note": "faces are ground-truth [x, y, w, h] px; the full-range model "
                    "(face_detection_full_range.tflite, default thresholds 0.5 / 0.3) should find "
                    "each with IoU >= 0.5, the short-range FaceDetector finds none",
            "fullRangeCheck": check,
        },
    }
    with open(os.path.join(OUT, "mediapipe.json"), "w") as f:
        f.write(to_json(doc) + "\n")

    for c in cases:
        print(f"{c['name']:36} {c['width']:>4}x{c['height']:<4} rot {c['rotationDegrees']:>4} "
              f"{c['runningMode']:5} -> {len(c['detections'])} "
              + " ".join(f"{d['score']:.3f}" for d in c["detections"]))
    print("group photo:", check)


if __name__ == "__main__":
    main()
