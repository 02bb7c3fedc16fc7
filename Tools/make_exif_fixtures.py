#!/usr/bin/env python3
"""Write the Exif orientation fixtures into Tests/Fixtures/exif/.

The upright picture is a 3:4 portrait cut from Tests/Fixtures/images/astronaut.png (the face
and shoulders, x 64...448 of the 512x512 image), shrunk to 192x256 for the JPEGs and to
36x48 for the PNGs. For each Exif orientation t in 1...8 the stored pixels are the upright
picture put through the inverse of what Pillow's `ImageOps.exif_transpose` does for t, so
that a viewer honouring the tag shows the same upright picture for every file:

  jpeg_<t>.jpg   orientation t, Exif written by Pillow (`Image.Exif()`, `exif=` on save);
                 jpeg_8_big_endian.jpg holds a hand-made big-endian ("MM") block.
  png_<t>.png    the same with an `eXIf` chunk written by Pillow; png_upright.png is the
                 upright picture itself without Exif; png_6_after_idat.png has its eXIf
                 chunk after the image data.
  bad_*.jpg, bad_*.png   malformed Exif blocks, each a tag-6 block broken one way, on the
                 stored pixels of orientation 6 (a sideways picture): the orientation must be
                 ignored (treated as absent), so the upright view is the stored pixels.

Ground truth is Pillow: for every valid file the script asserts that `exif_transpose` of what
Pillow decodes is the upright picture (exactly for PNG; for JPEG the compression differs by
layout, so the expected pixels are those of Pillow's own decode, transposed). VisageImageIO's
JPEG decoder is libjpeg-turbo with Pillow's settings and matches Pillow's decode exactly (see
Tools/make_codec_fixtures.py), so the Swift test compares exactly too.

manifest.json lists every file with: `exif` (the orientation Visage must read, or null),
`orientation` (its UIImage.Orientation name, "up" when null), the stored and upright sizes,
`storedHash` and `uprightHash` (FNV-1a 64 of the 8-bit RGB rows, top to bottom, of Pillow's
decode and of the upright view), `pillow` (what Pillow reads from the tag: an error when it
refuses the file, null when it reads nothing) and `pillowTurns` (whether its exif_transpose
changes the picture; Pillow is more lenient than Visage with some malformed blocks).

The output is deterministic for the same Pillow and libjpeg-turbo.
Run:  .venv/bin/python Tools/make_exif_fixtures.py   (needs numpy and Pillow)
"""
import io
import json
import os
import shutil
import struct
import warnings
import zlib

import numpy as np
from PIL import Image, ImageOps

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Tests", "Fixtures", "exif")
ORIENTATION_TAG = 0x0112
NAMES = {1: "up", 2: "upMirrored", 3: "down", 4: "downMirrored", 5: "leftMirrored", 6: "right",
         7: "rightMirrored", 8: "left"}
# What exif_transpose does for each tag (Pillow's own table), and its inverse.
TRANSPOSE = {2: Image.Transpose.FLIP_LEFT_RIGHT, 3: Image.Transpose.ROTATE_180,
             4: Image.Transpose.FLIP_TOP_BOTTOM, 5: Image.Transpose.TRANSPOSE,
             6: Image.Transpose.ROTATE_270, 7: Image.Transpose.TRANSVERSE,
             8: Image.Transpose.ROTATE_90}
INVERSE = {**TRANSPOSE, 6: Image.Transpose.ROTATE_90, 8: Image.Transpose.ROTATE_270}


def fnv1a64(image):
    """FNV-1a, 64 bits, of an image's 8-bit RGB rows: small to store, simple to redo in Swift."""
    h = 0xCBF29CE484222325
    for byte in np.asarray(image.convert("RGB"), dtype=np.uint8).tobytes():
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def stored(upright, tag):
    return upright if tag == 1 else upright.transpose(INVERSE[tag])


def pillow_reading(data):
    """The orientation Pillow reads from encoded bytes, or an error message."""
    try:
        return Image.open(io.BytesIO(data)).getexif().get(ORIENTATION_TAG)
    except Exception as error:  # Pillow raising on a malformed block is information too
        return f"error: {type(error).__name__}"


def pillow_turns(data):
    """Whether Pillow's exif_transpose changes the picture (None if Pillow refuses the file)."""
    try:
        image = Image.open(io.BytesIO(data))
        return np.asarray(ImageOps.exif_transpose(image).convert("RGB")).tobytes() != np.asarray(image.convert("RGB")).tobytes()
    except Exception:
        return None


def jpeg(image, **options):
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=85, **options)
    return buffer.getvalue()


def png(image, **options):
    buffer = io.BytesIO()
    image.save(buffer, "PNG", **options)
    return buffer.getvalue()


def pillow_exif(tag):
    exif = Image.Exif()
    exif[ORIENTATION_TAG] = tag
    exif[0x0131] = "Tools/make_exif_fixtures.py"  # Software, so IFD0 has more than one entry
    return exif


def with_app1(jpeg_bytes, tiff):
    """A JPEG with an Exif APP1 segment holding `tiff` put right after SOI."""
    payload = b"Exif\x00\x00" + tiff
    return jpeg_bytes[:2] + b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload + jpeg_bytes[2:]


def png_chunk(kind, data, crc=None):
    crc = zlib.crc32(kind + data) if crc is None else crc
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc & 0xFFFFFFFF)


def with_exif_chunk(png_bytes, tiff, crc=None, after_idat=False):
    """A PNG with an eXIf chunk holding `tiff`, after IHDR (or just before IEND)."""
    chunk = png_chunk(b"eXIf", tiff, crc)
    if after_idat:
        return png_bytes[:-12] + chunk + png_bytes[-12:]
    ihdr_end = 8 + 12 + 13
    return png_bytes[:ihdr_end] + chunk + png_bytes[ihdr_end:]


def short(order, value):
    return struct.pack(order + "H", value) + b"\x00\x00"


def long(order, value):
    return struct.pack(order + "I", value)


def tiff(entries, order="<", ifd0=8, next_ifd=0, count=None, tail=b""):
    """A TIFF block: header, IFD0 at `ifd0` (zero-padded up to it), `tail` after IFD0.

    Each entry is (tag, type, count, 4-byte value field).
    """
    header = (b"II" if order == "<" else b"MM") + struct.pack(order + "HI", 42, ifd0)
    table = struct.pack(order + "H", len(entries) if count is None else count)
    table += b"".join(struct.pack(order + "HHI", t, k, n) + v for t, k, n, v in entries)
    table += struct.pack(order + "I", next_ifd)
    return header + b"\x00" * max(0, ifd0 - 8) + table + tail


def malformed_blocks():
    """(name, TIFF bytes, orientation Visage must read, what is wrong) for the bad files."""
    o = "<"
    good = (ORIENTATION_TAG, 3, 1, short(o, 6))
    software = (0x0131, 2, 4, b"abc\x00")
    full = tiff([good, software, (0x0132, 2, 4, b"xyz\x00")])
    # IFD0 at 8 holds two entries (ImageWidth; ExifIFD pointing back at IFD0 itself) and links
    # to an IFD at 8 + 2 + 24 + 4 = 38 holding the orientation, which links back to IFD0.
    loop_ifd1 = struct.pack(o + "H", 1) + struct.pack(o + "HHI", *good[:3]) + good[3] + long(o, 8)
    loop = tiff([(0x0100, 4, 1, long(o, 256)), (0x8769, 4, 1, long(o, 8))], next_ifd=38, tail=loop_ifd1)
    return [
        ("bad_truncated_ifd", full[:8 + 2 + 12 + 6], None,
         "IFD0 says 3 entries; the block ends inside the second"),
        ("bad_offset_past_end", tiff([good], ifd0=0xFFFFFF00)[:8] + tiff([good])[8:], None,
         "the IFD0 offset points far past the end of the block"),
        ("bad_huge_entry_count", tiff([good], count=0xFFFF), None,
         "IFD0 claims 65535 entries; one is present"),
        ("bad_huge_value_count", tiff([(ORIENTATION_TAG, 3, 0xFFFFFFFF, short(o, 6))]), None,
         "the orientation entry claims 2^32-1 values"),
        ("bad_ifd_loop", loop, None,
         "IFD0 has no orientation; its Exif pointer leads back to IFD0, its next-IFD link to an "
         "IFD with orientation 6 that links back to IFD0 (only IFD0 counts, and no link is followed)"),
        ("bad_wrong_type_long", tiff([(ORIENTATION_TAG, 4, 1, long(o, 6))]), None,
         "the orientation is a LONG, not a SHORT"),
        ("bad_wrong_type_ascii", tiff([(ORIENTATION_TAG, 2, 2, b"6\x00\x00\x00")]), None,
         "the orientation is ASCII text"),
        ("bad_two_values", tiff([(ORIENTATION_TAG, 3, 2, short(o, 6)[:2] + struct.pack(o + "H", 6))]), None,
         "the orientation entry holds two SHORTs"),
        ("bad_value_9", tiff([(ORIENTATION_TAG, 3, 1, short(o, 9))]), None, "orientation 9 does not exist"),
        ("bad_value_0", tiff([(ORIENTATION_TAG, 3, 1, short(o, 0))]), None, "orientation 0 does not exist"),
        ("bad_byte_order", b"IM" + tiff([good])[2:], None, "the byte-order mark is neither II nor MM"),
        ("bad_magic", tiff([good])[:2] + struct.pack(o + "H", 43) + tiff([good])[4:], None, "43 where TIFF has 42"),
        ("bad_ifd0_in_header", tiff([good])[:4] + long(o, 2) + tiff([good])[8:], None,
         "the IFD0 offset points into the 8-byte header"),
        ("bad_short_block", tiff([good])[:6], None, "the block ends inside the TIFF header"),
        ("ifd0_links_to_itself", tiff([good], next_ifd=8), 6,
         "IFD0 is sound but its next-IFD link points back at itself: the orientation holds, since "
         "no link is followed"),
    ]


def main():
    warnings.simplefilter("ignore", UserWarning)  # Pillow warns about every malformed block
    source = Image.open(os.path.join(ROOT, "Tests", "Fixtures", "images", "astronaut.png")).convert("RGB")
    portrait = source.crop((64, 0, 448, 512))
    upright_jpeg = portrait.resize((192, 256), Image.Resampling.LANCZOS)
    upright_png = portrait.resize((36, 48), Image.Resampling.LANCZOS)
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    files = []

    def add(name, data, exif, about, pixels_of=None):
        """`pixels_of`: the same image without the bad chunk, for a file Pillow refuses."""
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)
        decoded = Image.open(io.BytesIO(pixels_of or data)).convert("RGB")
        # The upright view: Pillow's exif_transpose when the tag is valid; otherwise the
        # stored pixels, since a malformed tag is ignored.
        if exif is None:
            upright = decoded
        else:
            assert pillow_reading(data) == exif, f"{name}: Pillow reads {pillow_reading(data)}, not {exif}"
            upright = ImageOps.exif_transpose(Image.open(io.BytesIO(data))).convert("RGB")
        files.append({
            "file": name, "exif": exif, "orientation": NAMES.get(exif, "up"),
            "storedWidth": decoded.width, "storedHeight": decoded.height,
            "uprightWidth": upright.width, "uprightHeight": upright.height,
            "storedHash": fnv1a64(decoded), "uprightHash": fnv1a64(upright),
            "pillow": pillow_reading(data), "pillowTurns": pillow_turns(data), "about": about,
        })
        return upright

    for tag in range(1, 9):
        add(f"jpeg_{tag}.jpg", jpeg(stored(upright_jpeg, tag), exif=pillow_exif(tag)), tag,
            f"orientation {tag} ({NAMES[tag]}), Exif written by Pillow")
        up = add(f"png_{tag}.png", png(stored(upright_png, tag), exif=pillow_exif(tag)), tag,
                 f"orientation {tag} ({NAMES[tag]}), eXIf written by Pillow")
        assert np.array_equal(np.asarray(up), np.asarray(upright_png)), f"png {tag}: exif_transpose is not the upright picture"
    add("jpeg_8_big_endian.jpg",
        with_app1(jpeg(stored(upright_jpeg, 8)), tiff([(ORIENTATION_TAG, 3, 1, short(">", 8))], order=">")), 8,
        "orientation 8 in a big-endian (MM) block")
    up = add("png_6_after_idat.png",
             with_exif_chunk(png(stored(upright_png, 6)), tiff([(ORIENTATION_TAG, 3, 1, short("<", 6))]), after_idat=True),
             6, "orientation 6 in an eXIf chunk after IDAT (Pillow reads it too)")
    assert np.array_equal(np.asarray(up), np.asarray(upright_png))
    add("png_upright.png", png(upright_png), None, "the upright picture of the png_* files, no Exif")

    # Malformed blocks on small JPEGs and PNGs holding the sideways pixels of orientation 6.
    sideways_jpeg = jpeg(stored(upright_png, 6))
    sideways_png = png(stored(upright_png, 6))
    blocks = malformed_blocks()
    for name, block, exif, about in blocks:
        add(name + ".jpg", with_app1(sideways_jpeg, block), exif, about)
    for name, block, exif, about in blocks:
        if name in ("bad_offset_past_end", "bad_wrong_type_long", "bad_ifd_loop", "bad_byte_order"):
            add(name + ".png", with_exif_chunk(sideways_png, block), exif, about)
    add("bad_crc.png", with_exif_chunk(sideways_png, tiff([(ORIENTATION_TAG, 3, 1, short("<", 6))]), crc=0x12345678),
        None, "a sound orientation-6 eXIf chunk with a wrong CRC (libpng drops such chunks; Pillow refuses the file)",
        pixels_of=sideways_png)

    manifest = {"about": __doc__.strip().splitlines()[0], "files": files}
    with open(os.path.join(OUT, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    total = sum(os.path.getsize(os.path.join(OUT, n)) for n in os.listdir(OUT))
    print(f"wrote {len(files)} files, {total} bytes, to {os.path.relpath(OUT, ROOT)}")


if __name__ == "__main__":
    main()
