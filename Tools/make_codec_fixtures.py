#!/usr/bin/env python3
"""Write the PNG and JPEG decoding fixtures of VisageImageIO into Tests/Fixtures/codecs/.

Every picture is cut from the face in Tests/Fixtures/images/astronaut.png, shrunk to 48x40
(some files use a smaller crop with odd sides). For each file that must decode, the pixels
VisageImageIO must produce are written next to it as raw 8-bit RGB (`<name>.rgb`, rows top to
bottom), following the rules of the Swift decoder:

  PNG   alpha and tRNS dropped, not composited; gray replicated; palette looked up; 1/2/4-bit
        gray scaled to 0...255 (v * 255 / (2^bits - 1)); 16-bit samples rounded to 8 bits as
        libpng's png_set_scale_16 does (round(v / 257)); gAMA and iCCP ignored.
        The PNGs are written by this script (not Pillow), so every layout, bit depth, filter
        type, tRNS and Adam7 interlacing is covered, and the expected pixels come from the
        known source samples, not from a decoder. Decoding must be exact.
  JPEG  written by Pillow. Expected pixels are Pillow's decode (libjpeg-turbo, accurate
        integer IDCT, fancy upsampling), which VisageImageIO must match exactly (the Swift test
        allows no difference). CMYK: Pillow writes Adobe-inverted CMYK, which the decoder
        turns into R = C*K/255 (rounded) and so on; expected values apply that formula to the
        raw samples Pillow decodes. Without the Adobe marker the samples are plain ink amounts:
        R = (255-C)*(255-K)/255.

Files that must fail (truncated, corrupt, claiming a huge size) are listed with the error kind
the Swift test expects. manifest.json describes every file.

The output is deterministic: rerunning rewrites identical bytes (for the same zlib and Pillow).
Run:  /path/to/venv/bin/python Tools/make_codec_fixtures.py   (needs numpy and Pillow)
"""
import hashlib
import io
import json
import os
import shutil
import struct
import warnings
import zlib

import numpy as np
from PIL import Image

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Tests", "Fixtures", "codecs")
IMAGE = os.path.join(ROOT, "Tests", "Fixtures", "images", "astronaut.png")

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
GRAY, RGB, PALETTE, GRAY_ALPHA, RGBA = 0, 2, 3, 4, 6
CHANNELS = {GRAY: 1, RGB: 3, PALETTE: 1, GRAY_ALPHA: 2, RGBA: 4}
# Adam7 passes: first column, first row, column step, row step.
ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]


# MARK: Source pictures

def face():
    """48x40 RGB: the face of astronaut.png (a 162x135 crop, box-filtered)."""
    image = Image.open(IMAGE).convert("RGB").crop((150, 40, 312, 175))
    return np.asarray(image.resize((48, 40), Image.Resampling.BOX), dtype=np.uint8)


def luma(rgb):
    """Gray from RGB with integer BT.601 weights."""
    r, g, b = (rgb[..., i].astype(np.int64) for i in range(3))
    return ((299 * r + 587 * g + 114 * b + 500) // 1000).astype(np.uint8)


def pattern(h, w, c, multipliers=(73, 151, 29)):
    """A fixed 0...255 texture, used for alpha and for the low bytes of 16-bit samples."""
    y, x, k = np.meshgrid(np.arange(h), np.arange(w), np.arange(c), indexing="ij")
    return (x * multipliers[0] + y * multipliers[1] + k * multipliers[2]) % 256


def alpha_for(h, w):
    """An alpha plane with every value pattern, including fully transparent pixels."""
    alpha = pattern(h, w, 1, (5, 7, 0))[..., 0].astype(np.uint8)
    alpha[::7, ::5] = 0
    return alpha


def widen(samples8, multipliers=(73, 151, 29)):
    """16-bit samples whose high byte is the 8-bit picture and low byte a texture, so that
    rounding (png_set_scale_16) and truncation (png_set_strip_16) give different results."""
    h, w, c = samples8.shape
    return samples8.astype(np.int64) * 256 + pattern(h, w, c, multipliers)


# MARK: Expected 8-bit values

def scale16(v):
    """libpng's png_do_scale_16_to_8 on an array of 16-bit samples."""
    v = np.asarray(v, dtype=np.int64)
    hi, lo = v >> 8, v & 255
    return (hi + (((lo - hi + 128) * 65535) >> 24)).astype(np.uint8)


_all = np.arange(65536)
assert np.array_equal(scale16(_all), (_all * 255 + 32767) // 65535), "scale16 is round(v * 255 / 65535)"


def to_8bit(samples, bit_depth):
    if bit_depth == 16:
        return scale16(samples)
    return (np.asarray(samples, dtype=np.int64) * 255 // ((1 << bit_depth) - 1)).astype(np.uint8)


def expected_png(samples, bit_depth, color_type, palette=None):
    """The 8-bit RGB a PNG of these samples decodes to."""
    if color_type == PALETTE:
        return np.asarray(palette, dtype=np.uint8)[samples[..., 0]]
    values = to_8bit(samples, bit_depth)
    if color_type in (GRAY, GRAY_ALPHA):
        return np.repeat(values[..., :1], 3, axis=2)
    return values[..., :3]


# MARK: PNG writing

def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def pack_row(row, bit_depth):
    """One row of (w, c) samples as PNG bytes."""
    if bit_depth == 16:
        return row.astype(">u2").tobytes()
    if bit_depth == 8:
        return row.astype(np.uint8).tobytes()
    flat = [int(v) for v in row.reshape(-1)]
    per_byte = 8 // bit_depth
    flat += [0] * (-len(flat) % per_byte)
    out = bytearray()
    for i in range(0, len(flat), per_byte):
        byte = 0
        for v in flat[i:i + per_byte]:
            byte = (byte << bit_depth) | v
        out.append(byte)
    return bytes(out)


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def filtered(rows, bpp):
    """Rows with a filter byte each; row y uses filter y % 5 so all five filters are read."""
    out = bytearray()
    previous = bytes(len(rows[0])) if rows else b""
    for y, row in enumerate(rows):
        kind = y % 5
        out.append(kind)
        for i, v in enumerate(row):
            left = row[i - bpp] if i >= bpp else 0
            up = previous[i]
            up_left = previous[i - bpp] if i >= bpp else 0
            predictor = [0, left, up, (left + up) // 2, paeth(left, up, up_left)][kind]
            out.append((v - predictor) & 255)
        previous = row
    return bytes(out)


def png_bytes(samples, bit_depth, color_type, palette=None, trns=None, interlace=False,
              before_idat=(), idat_size=None):
    """A PNG of (h, w, c) integer samples, written chunk by chunk."""
    h, w, c = samples.shape
    assert c == CHANNELS[color_type]
    bpp = max(1, c * bit_depth // 8)
    if interlace:
        raw = b""
        for x0, y0, dx, dy in ADAM7:
            sub = samples[y0::dy, x0::dx]
            if sub.shape[0] and sub.shape[1]:
                raw += filtered([pack_row(r, bit_depth) for r in sub], bpp)
    else:
        raw = filtered([pack_row(r, bit_depth) for r in samples], bpp)
    data = zlib.compress(raw, 9)
    header = struct.pack(">IIBBBBB", w, h, bit_depth, color_type, 0, 0, int(interlace))
    out = PNG_SIGNATURE + chunk(b"IHDR", header)
    for kind, payload in before_idat:
        out += chunk(kind, payload)
    if palette is not None:
        out += chunk(b"PLTE", bytes(np.asarray(palette, dtype=np.uint8).reshape(-1)))
    if trns is not None:
        out += chunk(b"tRNS", trns)
    step = idat_size or len(data)
    for i in range(0, len(data), step):
        out += chunk(b"IDAT", data[i:i + step])
    out += chunk(b"tEXt", b"Comment\x00Visage codec fixture")
    return out + chunk(b"IEND", b"")


# MARK: Fixture list

decode_entries = []
error_entries = []


def write(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


def add_decodable(name, data, expected, about, tolerance=0):
    expected = np.ascontiguousarray(expected, dtype=np.uint8)
    h, w, _ = expected.shape
    write(name, data)
    write(name.rsplit(".", 1)[0] + ".rgb", expected.tobytes())
    decode_entries.append({"file": name, "expected": name.rsplit(".", 1)[0] + ".rgb", "width": w,
                           "height": h, "tolerance": tolerance, "about": about})


def add_failing(name, data, error, about, **extra):
    write(name, data)
    error_entries.append(dict({"file": name, "error": error, "about": about}, **extra))


def add_png(name, samples, bit_depth, color_type, about, palette=None, **options):
    data = png_bytes(samples, bit_depth, color_type, palette=palette, **options)
    expected = expected_png(samples, bit_depth, color_type, palette)
    check_with_pillow(data, samples, bit_depth, color_type, expected)
    add_decodable(name, data, expected, about)
    return data


def check_with_pillow(data, samples, bit_depth, color_type, expected):
    """Guards the hand-written encoder: Pillow must read back the samples we meant."""
    image = Image.open(io.BytesIO(data))
    image.load()
    if bit_depth < 16:
        warnings.filterwarnings("ignore", "Palette images with Transparency")
        assert np.array_equal(np.asarray(image.convert("RGB")), expected), "Pillow disagrees"
    elif color_type == GRAY:
        assert np.array_equal(np.asarray(image).astype(np.int64), samples[..., 0]), "Pillow disagrees"
    # Pillow reads other 16-bit layouts by dropping the low bytes, so they are not checked.


def garbage(label, count):
    """Fixed pseudo-random bytes (SHA-256 in counter mode), independent of library versions."""
    out = b""
    for i in range((count + 31) // 32):
        out += hashlib.sha256(f"{label}:{i}".encode()).digest()
    return out[:count]


def jpeg_bytes(image, **options):
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", **options)
    return buffer.getvalue()


def pillow_rgb(data):
    image = Image.open(io.BytesIO(data))
    image.load()
    return np.asarray(image.convert("RGB"))


def segments(data):
    """(marker, start, end) of each JPEG segment before the first SOS, SOS included."""
    out, i = [], 2
    while True:
        assert data[i] == 0xFF
        marker = data[i + 1]
        length = struct.unpack(">H", data[i + 2:i + 4])[0]
        out.append((marker, i, i + 2 + length))
        if marker == 0xDA:
            return out
        i += 2 + length


def cmyk_from(rgb):
    """Plain CMYK ink amounts with full black generation: K = 255 - max(R, G, B)."""
    rgb = rgb.astype(np.int64)
    top = rgb.max(axis=2)
    k = 255 - top
    safe = np.maximum(top, 1)
    cmy = ((top[..., None] - rgb) * 255 + safe[..., None] // 2) // safe[..., None]
    return np.concatenate([cmy, k[..., None]], axis=2).astype(np.uint8)


def main():
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)
    rgb = face()                               # 40 x 48 x 3
    gray = luma(rgb)[..., None]                # 40 x 48 x 1
    alpha = alpha_for(40, 48)[..., None]
    odd = (slice(0, 39), slice(0, 47))         # 47x39
    odder = (slice(1, 38), slice(2, 47))       # 45x37

    # PNG: every color type and bit depth.
    png_rgb8 = add_png("png_rgb8.png", rgb, 8, RGB, "8-bit RGB, filters 0-4 by row, gAMA, pHYs and tEXt",
                       before_idat=[(b"gAMA", struct.pack(">I", 45455)),
                                    (b"pHYs", struct.pack(">IIB", 2835, 2835, 1))])
    add_png("png_rgba8.png", np.concatenate([rgb, alpha], 2), 8, RGBA,
            "8-bit RGBA; alpha (with fully transparent pixels) is dropped, not composited")
    add_png("png_gray8.png", gray, 8, GRAY, "8-bit gray, replicated")
    add_png("png_graya8.png", np.concatenate([gray, alpha], 2), 8, GRAY_ALPHA, "8-bit gray + alpha")
    for bits in (1, 2, 4):
        add_png(f"png_gray{bits}.png", (gray[odder] >> (8 - bits)), bits, GRAY,
                f"{bits}-bit gray, 45x37 (rows end mid-byte), scaled by 255/{(1 << bits) - 1}")
    cube = [(r * 51, g * 51, b * 51) for r in range(6) for g in range(6) for b in range(6)]
    indices = ((rgb.astype(np.int64) + 25) // 51)
    indices = (indices[..., 0] * 36 + indices[..., 1] * 6 + indices[..., 2])[..., None]
    add_png("png_palette8.png", indices, 8, PALETTE, "8-bit palette, 216-colour cube", palette=cube)
    add_png("png_palette8_trns.png", indices, 8, PALETTE,
            "8-bit palette with a tRNS shorter than the palette; transparency ignored", palette=cube,
            trns=bytes((i * 37) % 256 for i in range(200)))
    ramp = [(i * 17, 255 - i * 17, (i * 97) % 256) for i in range(16)]
    add_png("png_palette4_trns.png", gray[odd] >> 4, 4, PALETTE, "4-bit palette, 47x39, tRNS",
            palette=ramp, trns=bytes((i * 85) % 256 for i in range(16)))
    add_png("png_gray8_trns.png", gray, 8, GRAY, "8-bit gray with a tRNS colour key; key ignored",
            trns=struct.pack(">H", int(gray[0, 0, 0])))
    add_png("png_rgb8_trns.png", rgb, 8, RGB, "8-bit RGB with a tRNS colour key; key ignored",
            trns=struct.pack(">HHH", *(int(v) for v in rgb[0, 0])))
    add_png("png_rgb16.png", widen(rgb), 16, RGB, "16-bit RGB, rounded to 8 bits (not truncated)")
    add_png("png_rgba16.png", np.concatenate([widen(rgb), widen(alpha, (3, 5, 0))], 2), 16, RGBA,
            "16-bit RGBA")
    add_png("png_gray16.png", widen(gray), 16, GRAY, "16-bit gray")
    add_png("png_graya16.png", np.concatenate([widen(gray), widen(alpha, (3, 5, 0))], 2), 16, GRAY_ALPHA,
            "16-bit gray + alpha")
    add_png("png_rgb16_trns.png", widen(rgb[odd]), 16, RGB, "16-bit RGB, 47x39, tRNS colour key",
            trns=struct.pack(">HHH", *(int(v) for v in widen(rgb[odd])[0, 0])))
    with open(IMAGE, "rb") as f:
        profile = Image.open(f).info["icc_profile"]
    add_png("png_rgb8_iccp.png", rgb[odd], 8, RGB,
            "8-bit RGB with the astronaut's iCCP (libpng warns about it); no colour management",
            before_idat=[(b"iCCP", b"sRGB\x00\x00" + zlib.compress(profile, 9))])

    # PNG: Adam7.
    add_png("png_rgb8_interlaced.png", rgb[odd], 8, RGB, "Adam7, 8-bit RGB, 47x39, IDAT in 200-byte chunks",
            interlace=True, idat_size=200)
    add_png("png_gray2_interlaced.png", gray[odder] >> 6, 2, GRAY, "Adam7, 2-bit gray, 45x37", interlace=True)
    add_png("png_rgba16_interlaced.png", np.concatenate([widen(rgb), widen(alpha, (3, 5, 0))], 2), 16, RGBA,
            "Adam7, 16-bit RGBA", interlace=True)
    add_png("png_palette8_interlaced.png", indices[odd], 8, PALETTE, "Adam7, 8-bit palette, 47x39",
            palette=cube, interlace=True)
    add_png("png_rgb8_3x2_interlaced.png", rgb[10:12, 20:23], 8, RGB,
            "Adam7 on 3x2: most passes are empty", interlace=True)
    add_png("png_rgb8_1x1.png", rgb[20:21, 24:25], 8, RGB, "a single pixel")

    # JPEG, written and decoded by Pillow (libjpeg-turbo).
    face_image = Image.fromarray(rgb, "RGB")
    jpegs = [
        ("jpeg_baseline.jpg", face_image, dict(quality=90), "baseline, 4:2:0"),
        ("jpeg_baseline_444_odd.jpg", Image.fromarray(rgb[odd], "RGB"), dict(quality=85, subsampling=0),
         "baseline, 4:4:4, 47x39"),
        ("jpeg_baseline_422_odd.jpg", Image.fromarray(np.ascontiguousarray(rgb[odder]), "RGB"),
         dict(quality=80, subsampling=1), "baseline, 4:2:2, 45x37"),
        ("jpeg_progressive.jpg", face_image, dict(quality=90, progressive=True), "progressive, 4:2:0"),
        ("jpeg_progressive_odd.jpg", Image.fromarray(rgb[odd], "RGB"), dict(quality=75, progressive=True),
         "progressive, 4:2:0, 47x39"),
        ("jpeg_gray.jpg", Image.fromarray(gray[..., 0], "L"), dict(quality=90), "gray, replicated"),
        ("jpeg_restart.jpg", face_image, dict(quality=90, restart_marker_blocks=4), "restart markers"),
        ("jpeg_rgb.jpg", face_image, dict(quality=90, keep_rgb=True, subsampling=0),
         "RGB components (Adobe transform 0), no YCbCr"),
    ]
    encoded = {}
    for name, image, options, about in jpegs:
        data = jpeg_bytes(image, **options)
        encoded[name] = data
        add_decodable(name, data, pillow_rgb(data), about)
    baseline = encoded["jpeg_baseline.jpg"]
    assert baseline.endswith(b"\xff\xd9")
    # Junk between the scan and EOI: libjpeg warns "extraneous bytes before marker", harmless.
    data = baseline[:-2] + b"\x00\x11\x22" + baseline[-2:]
    add_decodable("jpeg_extraneous_bytes.jpg", data, pillow_rgb(data),
                  "3 junk bytes before EOI (a harmless libjpeg warning)")
    data = baseline + b"trailing bytes after EOI"
    add_decodable("jpeg_trailing_data.jpg", data, pillow_rgb(data), "bytes after EOI are ignored")

    # CMYK: Pillow writes Adobe-inverted samples and reads them back as ink amounts.
    ink = cmyk_from(rgb)
    cmyk_data = jpeg_bytes(Image.fromarray(ink, "CMYK"), quality=90)
    stored = 255 - np.asarray(Image.open(io.BytesIO(cmyk_data)), dtype=np.int64)  # samples as stored
    inverted = (stored[..., :3] * stored[..., 3:] + 127) // 255
    add_decodable("jpeg_cmyk.jpg", cmyk_data, inverted,
                  "CMYK with an Adobe marker (inverted samples): R = C*K/255")
    adobe = [s for s in segments(cmyk_data) if s[0] == 0xEE]
    assert len(adobe) == 1
    plain = cmyk_data[:adobe[0][1]] + cmyk_data[adobe[0][2]:]
    assert np.array_equal(255 - np.asarray(Image.open(io.BytesIO(plain)), dtype=np.int64), stored)
    plain_ink = ((255 - stored[..., :3]) * (255 - stored[..., 3:]) + 127) // 255
    add_decodable("jpeg_cmyk_no_adobe.jpg", plain, plain_ink,
                  "the same CMYK without the Adobe marker: plain ink, R = (255-C)*(255-K)/255")

    # Files that must fail.
    add_failing("png_truncated.png", png_rgb8[:len(png_rgb8) * 6 // 10], "truncated", "png_rgb8 cut inside IDAT")
    idat = png_rgb8.index(b"IDAT")
    length = struct.unpack(">I", png_rgb8[idat - 4:idat])[0]
    crc_at = idat + 4 + length
    bad_crc = png_rgb8[:crc_at] + bytes([png_rgb8[crc_at] ^ 0x5A]) + png_rgb8[crc_at + 1:]
    add_failing("png_bad_crc.png", bad_crc, "corrupt", "png_rgb8 with a wrong IDAT CRC")
    add_failing("png_garbage.png", PNG_SIGNATURE + garbage("png", 300), "corrupt",
                "the PNG signature followed by random bytes")
    huge = PNG_SIGNATURE + chunk(b"IHDR", struct.pack(">IIBBBBB", 100000, 100000, 8, RGB, 0, 0, 0))
    huge += chunk(b"IDAT", zlib.compress(b"\x00" * 1000, 9)) + chunk(b"IEND", b"")
    add_failing("png_huge.png", huge, "tooLarge", "a valid header claiming 100000x100000 RGB",
                width=100000, height=100000)
    zero = PNG_SIGNATURE + chunk(b"IHDR", struct.pack(">IIBBBBB", 0, 40, 8, RGB, 0, 0, 0)) + chunk(b"IEND", b"")
    add_failing("png_zero_width.png", zero, "corrupt", "IHDR with width 0")
    add_failing("png_bad_depth.png", PNG_SIGNATURE + chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 4, 3, RGB, 0, 0, 0))
                + chunk(b"IEND", b""), "corrupt", "IHDR with bit depth 3")

    sos = segments(baseline)[-1]
    scan_middle = (sos[2] + len(baseline)) // 2
    add_failing("jpeg_truncated.jpg", baseline[:scan_middle], "truncated",
                "jpeg_baseline cut in the middle of its scan")
    progressive = encoded["jpeg_progressive.jpg"]
    add_failing("jpeg_progressive_truncated.jpg", progressive[:len(progressive) * 6 // 10], "truncated",
                "jpeg_progressive cut after 60% of its bytes")
    add_failing("jpeg_cut_with_eoi.jpg", baseline[:scan_middle] + b"\xff\xd9", "corrupt",
                "jpeg_baseline cut in its scan and closed with EOI (premature end of data segment)")
    sof = [s for s in segments(baseline) if s[0] == 0xC0][0]
    patched = bytearray(baseline)
    patched[sof[1] + 5:sof[1] + 9] = struct.pack(">HH", 65000, 65000)
    add_failing("jpeg_huge.jpg", bytes(patched), "tooLarge", "jpeg_baseline whose SOF claims 65000x65000",
                width=65000, height=65000)
    add_failing("jpeg_garbage.jpg", b"\xff\xd8\xff" + garbage("jpeg", 300), "corrupt",
                "the JPEG start marker followed by random bytes")

    manifest = {
        "about": "Written by Tools/make_codec_fixtures.py; see its docstring for how expected pixels are made.",
        "decode": decode_entries,
        "fail": error_entries,
    }
    with open(os.path.join(OUT, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")
    total = sum(os.path.getsize(os.path.join(OUT, n)) for n in os.listdir(OUT))
    print(f"wrote {len(decode_entries)} decodable and {len(error_entries)} failing files, {total} bytes, to {OUT}")


if __name__ == "__main__":
    main()
