#!/usr/bin/env python3
"""Generates the benchmark corpus, deterministically, into a cache directory.

    gen_corpus.py small DIR COUNT     COUNT valid JPEG/PNG images of about 20 KB
    gen_corpus.py large DIR COUNT MB  COUNT files of MB MiB of pseudo-random bytes

Every file depends only on CORPUS_VERSION, its index and (for images) the Pillow build:
the same version of Pillow writes the same bytes. DIR is filled through a temporary
sibling directory renamed into place, and gets a MANIFEST (name, size) written last, so
an interrupted run never leaves a half corpus that looks complete. An existing complete
DIR is left alone.
"""
import io
import os
import random
import shutil
import sys

CORPUS_VERSION = 1


def small_image(index: int) -> tuple[str, bytes]:
    """A gradient blended with noise: real, decodable images that do not compress to nothing."""
    from PIL import Image

    r = random.Random(f"prefetchd-bench-v{CORPUS_VERSION}-small-{index}")
    jpeg = r.random() < 0.7
    # Sides chosen so the files average about 20 KB (JPEG q85 vs. PNG of the same content).
    if jpeg:
        w, h = r.randint(165, 205), r.randint(165, 205)
    else:
        w, h = r.randint(74, 92), r.randint(74, 92)
    gradient = Image.linear_gradient("L").resize((w, h))
    colour = Image.merge("RGB", (gradient, gradient.transpose(Image.Transpose.ROTATE_90).resize((w, h)),
                                 gradient.transpose(Image.Transpose.ROTATE_180)))
    noise = Image.frombytes("RGB", (w, h), r.randbytes(w * h * 3))
    img = Image.blend(colour, noise, 0.5)
    buf = io.BytesIO()
    if jpeg:
        img.save(buf, "JPEG", quality=85)
        return f"img{index:06d}.jpg", buf.getvalue()
    img.save(buf, "PNG")
    return f"img{index:06d}.png", buf.getvalue()


def large_file(index: int, mb: int) -> tuple[str, bytes]:
    r = random.Random(f"prefetchd-bench-v{CORPUS_VERSION}-large-{index}")
    return f"blob{index:04d}.bin", r.randbytes(mb * 1024 * 1024)


def main() -> int:
    kind, dest, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    mb = int(sys.argv[4]) if kind == "large" else 0
    if os.path.exists(os.path.join(dest, "MANIFEST")):
        return 0
    tmp = f"{dest}.partial-{os.getpid()}"
    os.makedirs(tmp)
    try:
        manifest = []
        for i in range(count):
            name, data = small_image(i) if kind == "small" else large_file(i, mb)
            with open(os.path.join(tmp, name), "wb") as f:
                f.write(data)
            manifest.append(f"{name}\t{len(data)}\n")
        with open(os.path.join(tmp, "MANIFEST"), "w") as f:
            f.writelines(manifest)
        if os.path.exists(dest):  # an incomplete earlier attempt: never reused, set aside
            os.rename(dest, f"{dest}.stale-{os.getpid()}")
        os.rename(tmp, dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return 0


if __name__ == "__main__":
    sys.exit(main())
