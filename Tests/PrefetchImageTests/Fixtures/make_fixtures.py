#!/usr/bin/env python3
"""Regenerates the small test images in this directory (Pillow, plus a hand-written PNG
encoder for what Pillow cannot write: 16-bit RGBA and Adam7 interlacing).
Run from anywhere: python3 make_fixtures.py. The output is deterministic."""
import math, os, random, struct, zlib
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
W, H = 64, 48


def scene(w=W, h=H, seed=1):
    """A smooth picture with edges and a little noise: compresses like a small photo."""
    rnd = random.Random(seed)
    px = []
    for y in range(h):
        for x in range(w):
            r = int(128 + 100 * math.sin(x / 9.0) * math.cos(y / 13.0))
            g = int(255 * x / (w - 1))
            b = int(255 * y / (h - 1))
            if (x - w * 0.6) ** 2 + (y - h * 0.4) ** 2 < (h * 0.25) ** 2:
                r, g, b = 240, 200, 40
            n = rnd.randint(-6, 6)
            px.append(tuple(max(0, min(255, v + n)) for v in (r, g, b)))
    return px


def alpha(x, y, w=W, h=H):
    """Opaque on the left, transparent on the right, a fully transparent hole."""
    if (x - w * 0.3) ** 2 + (y - h * 0.5) ** 2 < (h * 0.15) ** 2:
        return 0
    return int(255 * (1 - x / (w - 1)))


def rgb_image():
    im = Image.new("RGB", (W, H))
    im.putdata(scene())
    return im


def chunk(kind, data):
    c = kind + data
    return struct.pack(">I", len(data)) + c + struct.pack(">I", zlib.crc32(c) & 0xFFFFFFFF)


def write_png(path, w, h, color_type, depth, rows, interlace=False):
    """rows[y] is a bytes object of one unfiltered row. Filter 0 everywhere."""
    bpp = {0: 1, 2: 3, 4: 2, 6: 4}[color_type] * depth // 8
    raw = bytearray()
    if not interlace:
        for r in rows:
            raw += b"\x00" + r
    else:
        passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
        for x0, y0, dx, dy in passes:
            xs = range(x0, w, dx)
            if not xs:
                continue
            for y in range(y0, h, dy):
                raw += b"\x00" + b"".join(rows[y][x * bpp:(x + 1) * bpp] for x in xs)
    ihdr = struct.pack(">IIBBBBB", w, h, depth, color_type, 0, 0, 1 if interlace else 0)
    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(bytes(raw), 9)) + chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(data)


def main():
    out = lambda name: os.path.join(HERE, name)
    rgb = rgb_image()
    rgb.save(out("baseline.jpg"), quality=85)
    rgb.save(out("progressive.jpg"), quality=85, progressive=True)
    rgb.convert("L").save(out("grey.jpg"), quality=85)
    rgb.convert("CMYK").save(out("cmyk.jpg"), quality=85)  # Adobe APP14, inverted CMYK
    rgb.save(out("restart.jpg"), quality=85, restart_marker_blocks=4)
    # An APP1 whose payload holds FF D9 and FF D8 (as an EXIF thumbnail would): a marker
    # walk must skip it by its length.
    rgb.save(out("app1.jpg"), quality=85, exif=b"Exif\x00\x00" + b"\xff\xd8\xff\xe0junk\xff\xd9" * 4)

    rgb.save(out("rgb.png"))
    rgba = rgb.convert("RGBA")
    rgba.putalpha(Image.frombytes("L", (W, H), bytes(alpha(x, y) for y in range(H) for x in range(W))))
    rgba.save(out("rgba.png"))
    pal = rgb.quantize(colors=16)
    pal.save(out("palette.png"), transparency=0)  # palette with a tRNS chunk
    grey16 = Image.frombytes("I;16", (W, H), b"".join(
        struct.pack("<H", (x * 1000 + y * 300) % 65536) for y in range(H) for x in range(W)))
    grey16.save(out("grey16.png"))

    px = scene(seed=2)
    rows16 = []
    for y in range(H):
        row = bytearray()
        for x in range(W):
            r, g, b = px[y * W + x]
            row += struct.pack(">HHHH", r * 257, g * 257, b * 257, alpha(x, y) * 257)
        rows16.append(bytes(row))
    write_png(out("rgba16.png"), W, H, 6, 16, rows16)
    rows8 = [bytes(v for p in px[y * W:(y + 1) * W] for v in p) for y in range(H)]
    write_png(out("interlaced.png"), W, H, 2, 8, rows8, interlace=True)

    rgb.save(out("small.gif"))
    rgb.save(out("small.webp"), quality=80)


if __name__ == "__main__":
    main()
