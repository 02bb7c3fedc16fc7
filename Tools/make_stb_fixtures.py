#!/usr/bin/env python3
"""Record what MediaPipe 1.2.2's `mp.Image.create_from_file` makes of image files, for
Visage's MediaPipe-Python decoder (stb_image, VisageImageIO/STBImage.swift).

Inputs: every PNG and JPEG of Tests/Fixtures/codecs (bit depths, palettes, gray, alpha,
interlacing, CMYK, progressive, truncated, damaged) and Tests/Fixtures/exif (every Exif
orientation, damaged Exif), and the files this script writes into Tests/Fixtures/stb: BMP
(24-bit, 32-bit, 8-bit palette, 4-bit, top-down), GIF (still, transparent, animated), JPEGs
cut short at several points, an empty file, text, and the first bytes of a WebP.

For each file, in a forked child (MediaPipe kills the process on some damaged files), the
outcome is written to Tests/Fixtures/stb/manifest.json: `format` (MediaPipe's ImageFormat
name), `shape` and `fnv1a64`, the 64-bit FNV-1a hash of the pixels' bytes (rows top to bottom,
channels interleaved) as 16 hex digits; or `error`, the exception's type, or `crash`, the
signal that ended the child. Visage's tests hash their own pixels the same way.

The output is deterministic for the same Pillow and MediaPipe.
Run:  /path/to/venv/bin/python Tools/make_stb_fixtures.py   (needs mediapipe==1.2.2, Pillow)
"""
import io
import json
import os
import signal
import sys

import numpy as np
from PIL import Image

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "Tests", "Fixtures")
OUT = os.path.join(FIXTURES, "stb")


def fnv1a64(data):
    """The 64-bit FNV-1a hash of `data`, as 16 hex digits."""
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


def face(width=48, height=40):
    """The face crop the codec fixtures use, as RGB."""
    img = Image.open(os.path.join(FIXTURES, "images", "astronaut.png")).convert("RGB")
    return img.crop((160, 40, 360, 207)).resize((width, height), Image.LANCZOS)


def write_inputs():
    """The files of Tests/Fixtures/stb: formats and damage the codec fixtures lack."""
    os.makedirs(OUT, exist_ok=True)
    rgb = face()
    odd = face(37, 23)
    files = {}

    def save(name, img, **kwargs):
        buf = io.BytesIO()
        img.save(buf, **kwargs)
        files[name] = buf.getvalue()

    save("bmp_rgb24.bmp", rgb, format="BMP")
    save("bmp_rgb24_odd.bmp", odd, format="BMP")
    rgba = rgb.copy()
    rgba.putalpha(Image.linear_gradient("L").resize(rgb.size))
    save("bmp_rgba32.bmp", rgba, format="BMP")
    save("bmp_palette8.bmp", rgb.quantize(200), format="BMP")
    save("bmp_gray8.bmp", rgb.convert("L"), format="BMP")
    save("bmp_1bit.bmp", rgb.convert("1"), format="BMP")
    # A top-down BMP (negative height), as some cameras and Windows tools write.
    data = bytearray(files["bmp_rgb24_odd.bmp"])
    offset = int.from_bytes(data[10:14], "little")
    height = int.from_bytes(data[22:26], "little", signed=True)
    stride = (37 * 3 + 3) & ~3
    rows = [data[offset + r * stride : offset + (r + 1) * stride] for r in range(height)]
    data[22:26] = (-height).to_bytes(4, "little", signed=True)
    data[offset:] = b"".join(reversed(rows))
    files["bmp_top_down.bmp"] = bytes(data)

    save("gif_still.gif", rgb.quantize(64), format="GIF")
    transparent = rgb.quantize(64)
    transparent.info["transparency"] = 0
    save("gif_transparent.gif", transparent, format="GIF", transparency=0)
    frames = [rgb.quantize(64), rgb.transpose(Image.FLIP_LEFT_RIGHT).quantize(64)]
    buf = io.BytesIO()
    frames[0].save(buf, format="GIF", save_all=True, append_images=frames[1:], duration=100, loop=0)
    files["gif_animated.gif"] = buf.getvalue()

    save("jpeg_q95_444.jpg", rgb, format="JPEG", quality=95, subsampling=0)
    save("jpeg_q75_420.jpg", odd, format="JPEG", quality=75, subsampling=2)
    save("jpeg_gray_progressive.jpg", rgb.convert("L"), format="JPEG", quality=90, progressive=True)
    whole = files["jpeg_q95_444.jpg"]
    for fraction in (50, 80, 95):
        files["jpeg_cut_%d.jpg" % fraction] = whole[: len(whole) * fraction // 100]
    files["empty.jpg"] = b""
    files["text.png"] = b"not an image at all\n"
    files["webp_header.webp"] = b"RIFF\x24\x00\x00\x00WEBPVP8 "
    for name, data in files.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)
    return sorted(files)


def inputs():
    names = ["stb/" + n for n in write_inputs()]
    for folder in ("codecs", "exif"):
        for n in sorted(os.listdir(os.path.join(FIXTURES, folder))):
            if n.endswith((".png", ".jpg")):
                names.append(folder + "/" + n)
    return names


def measure(path):
    """MediaPipe's outcome for one file, in this (forked) process."""
    import mediapipe as mp

    try:
        image = mp.Image.create_from_file(path)
        view = np.ascontiguousarray(image.numpy_view())
        return {
            "format": mp.ImageFormat(image.image_format).name,
            "shape": list(view.shape),
            "fnv1a64": fnv1a64(view.tobytes()),
        }
    except Exception as e:  # noqa: BLE001 - the type is what is recorded
        return {"error": type(e).__name__, "message": str(e).replace(path, "PATH")}


def main():
    import mediapipe  # noqa: F401 - imported once, before the forks

    results = []
    for name in inputs():
        path = os.path.join(FIXTURES, name)
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read_end)
            with os.fdopen(write_end, "w") as out:
                json.dump(measure(path), out)
            os._exit(0)
        os.close(write_end)
        with os.fdopen(read_end) as pipe:
            text = pipe.read()
        _, status = os.waitpid(pid, 0)
        if os.WIFSIGNALED(status):
            outcome = {"crash": signal.Signals(os.WTERMSIG(status)).name}
        else:
            outcome = json.loads(text)
        results.append({"file": name, **outcome})
        print(name, outcome.get("format") or outcome.get("error") or outcome.get("crash"), file=sys.stderr)
    manifest = {
        "about": "Written by Tools/make_stb_fixtures.py: mediapipe==1.2.2's mp.Image.create_from_file "
        "on each file (paths under Tests/Fixtures); fnv1a64 hashes numpy_view()'s bytes.",
        "files": results,
    }
    with open(os.path.join(OUT, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
