"""Makes the test photos in a folder: python3 Tests/Fixtures/make_images.py OUT_DIR.

Photos as people take them (a camera JPEG with GPS, serials and Orientation=6, a HEIC, alpha, CMYK,
16-bit, animated) and broken ones (truncated, corrupt, empty, not an image, a 900 MP bomb).

Needs Pillow, exiftool and heif-enc. Every file is small; all of them take a few seconds.
"""
import os
import struct
import subprocess
import sys
import zlib

from PIL import Image, ImageCms, ImageDraw, ImageFilter

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def path(name):
    return os.path.join(out, name)


def photo(width, height, seed):
    """Photo-like content: smooth gradients, a few soft shapes and sensor-like noise (not flat colour)."""
    red = Image.linear_gradient("L").resize((width, height))
    green = Image.linear_gradient("L").rotate(90).resize((width, height))
    blue = Image.radial_gradient("L").resize((width, height))
    base = Image.merge("RGB", (red, green, blue))
    draw = ImageDraw.Draw(base)
    for i in range(12):
        x = (seed * 7919 + i * 104729) % width
        y = (seed * 15485863 + i * 32452843) % height
        r = max(width, height) // (8 + i % 5)
        colour = ((i * 60) % 256, (i * 110 + seed) % 256, (i * 170) % 256)
        draw.ellipse((x - r, y - r, x + r, y + r), fill=colour)
    base = base.filter(ImageFilter.GaussianBlur(max(width, height) / 400))
    noise = Image.effect_noise((width, height), 18).convert("RGB")
    return Image.blend(base, noise, 0.18)


def exiftool(*args):
    subprocess.run(["exiftool", "-q", "-overwrite_original", *args], check=True)


PRIVATE_TAGS = [
    "-Make=Canon",
    "-Model=Canon EOS R5",
    "-SerialNumber=SN-0042-SECRET",
    "-LensSerialNumber=LENS-0042-SECRET",
    "-OwnerName=Jane Doe",
    "-Artist=Jane Doe",
    "-DateTimeOriginal=2024:05:01 12:34:56",
    "-GPSLatitude=48.858370",
    "-GPSLatitudeRef=N",
    "-GPSLongitude=2.294481",
    "-GPSLongitudeRef=E",
    "-GPSAltitude=35",
    "-XMP-dc:Creator=Jane Doe",
    "-XMP-dc:Description=home address",
    "-XMP-exif:GPSLatitude=48.858370 N",
    "-XMP-exif:GPSLongitude=2.294481 E",
    "-IPTC:Keywords=secret",
    "-IPTC:City=Paris",
    "-Comment=private comment",
]


def srgb_icc():
    return ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()


def swapped_primaries_icc():
    """An RGB ICC v2 profile whose red and blue primaries are swapped: stored (255,0,0) means blue."""
    def s15(v):
        return struct.pack(">i", int(round(v * 65536)))

    def xyz(x, y, z):
        return b"XYZ " + b"\0" * 4 + s15(x) + s15(y) + s15(z)

    def desc(text):
        ascii_text = text.encode() + b"\0"
        return (b"desc" + b"\0" * 4 + struct.pack(">I", len(ascii_text)) + ascii_text
                + b"\0" * 8 + b"\0" * 3 + b"\0" * 67)

    curve = b"curv" + b"\0" * 4 + struct.pack(">I", 1) + struct.pack(">H", 0x0233) + b"\0\0"
    tags = [
        (b"desc", desc("Swapped red and blue")),
        (b"wtpt", xyz(0.9642, 1.0, 0.8249)),
        (b"rXYZ", xyz(0.1431, 0.0606, 0.7141)),
        (b"gXYZ", xyz(0.3851, 0.7169, 0.0971)),
        (b"bXYZ", xyz(0.4361, 0.2225, 0.0139)),
        (b"rTRC", curve),
        (b"gTRC", curve),
        (b"bTRC", curve),
        (b"cprt", b"text" + b"\0" * 4 + b"none\0"),
    ]
    table = b""
    data = b""
    offset = 128 + 4 + 12 * len(tags)
    for signature, body in tags:
        while len(body) % 4:
            body += b"\0"
        table += signature + struct.pack(">II", offset + len(data), len(body))
        data += body
    size = offset + len(data)
    header = (struct.pack(">I", size) + b"\0" * 4 + bytes([2, 0x10, 0, 0]) + b"mntr" + b"RGB " + b"XYZ "
              + b"\0" * 12 + b"acsp" + b"\0" * 4 + b"\0" * 4 + b"\0" * 8 + b"\0" * 8 + b"\0" * 4
              + s15(0.9642) + s15(1.0) + s15(0.8249) + b"\0" * 4 + b"\0" * 16 + b"\0" * 28)
    assert len(header) == 128
    return header + struct.pack(">I", len(tags)) + table + data


def png_chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def write_png(name, width, height, bit_depth, colour_type, rows, text=None):
    """A PNG written by hand, for what Pillow cannot make (48-bit RGB) or should not allocate (the bomb)."""
    compressor = zlib.compressobj(9)
    idat = b""
    for row in rows:
        idat += compressor.compress(b"\0" + row)
    idat += compressor.flush()
    with open(path(name), "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, bit_depth, colour_type, 0, 0, 0)))
        if text:
            f.write(png_chunk(b"tEXt", b"Comment\0" + text))
        f.write(png_chunk(b"IDAT", idat))
        f.write(png_chunk(b"IEND", b""))


def camera_jpeg():
    # Stored landscape 1200x800 with a red top-left quadrant; Orientation=6 means "rotate 90° clockwise to
    # display", so an upright rendition is portrait with the red quadrant at its top right.
    image = photo(1200, 800, 1)
    ImageDraw.Draw(image).rectangle((0, 0, 599, 399), fill=(230, 20, 20))
    image.save(path("camera.jpg"), quality=90, icc_profile=srgb_icc())
    exiftool("-Orientation#=6", *PRIVATE_TAGS, path("camera.jpg"))


def heic():
    image = photo(1200, 800, 2)
    ImageDraw.Draw(image).rectangle((0, 0, 599, 399), fill=(230, 20, 20))
    image.save(path("heic-source.jpg"), quality=92)
    exiftool(*PRIVATE_TAGS, path("heic-source.jpg"))
    subprocess.run(["heif-enc", "-q", "80", "-o", path("photo.heic"), path("heic-source.jpg")],
                   check=True, stdout=subprocess.DEVNULL)
    os.remove(path("heic-source.jpg"))
    # AVIF (AV1 in HEIF): red, 300x200.
    Image.new("RGB", (300, 200), (220, 30, 30)).save(path("avif-source.png"))
    subprocess.run(["heif-enc", "-A", "-q", "60", "-o", path("red.avif"), path("avif-source.png")],
                   check=True, stdout=subprocess.DEVNULL)
    os.remove(path("avif-source.png"))


def alpha_png():
    # Left half fully transparent black (must become white in JPEG, stay transparent in WebP), right half red.
    image = Image.new("RGBA", (600, 400), (0, 0, 0, 0))
    ImageDraw.Draw(image).rectangle((300, 0, 599, 399), fill=(220, 30, 30, 255))
    image.save(path("alpha.png"))
    exiftool(*PRIVATE_TAGS, path("alpha.png"))


def webp_inputs():
    image = photo(600, 400, 5)
    image.save(path("photo.webp"), quality=90, icc_profile=srgb_icc())
    exiftool(*PRIVATE_TAGS, path("photo.webp"))
    frames = [Image.new("RGB", (240, 160), colour) for colour in ((220, 30, 30), (30, 220, 30), (30, 30, 220))]
    frames[0].save(path("animated.webp"), save_all=True, append_images=frames[1:], duration=100, loop=0,
                   lossless=True)


def large_jpeg():
    # 4000x2000 tagged Orientation=6: upright it is 2000x4000, so the ≤ 2048 display copy is 1024x2048
    # or a libjpeg 1/2-scale 1000x2000; the thumbnails are exactly 200x400 and 400x800.
    red = Image.linear_gradient("L").resize((4000, 2000))
    green = Image.linear_gradient("L").rotate(90).resize((4000, 2000))
    Image.merge("RGB", (red, green, Image.new("L", (4000, 2000), 128))).save(path("large.jpg"), quality=85)
    exiftool("-Orientation#=6", path("large.jpg"))


def cmyk_jpeg():
    image = Image.new("CMYK", (600, 400), (0, 255, 255, 0))  # pure red ink mix
    image.save(path("cmyk.jpg"), quality=95)
    exiftool(*PRIVATE_TAGS, path("cmyk.jpg"))


def deep_png():
    # 48-bit RGB: every pixel (65535, 32768, 0), i.e. orange; 8-bit output must read about (255, 128, 0).
    row = struct.pack(">HHH", 65535, 32768, 0) * 600
    write_png("deep.png", 600, 400, 16, 2, (row for _ in range(400)), text=b"private comment")


def animated_gif():
    frames = [Image.new("RGB", (240, 160), colour) for colour in ((220, 30, 30), (30, 220, 30), (30, 30, 220))]
    frames[0].save(path("animated.gif"), save_all=True, append_images=frames[1:], duration=100, loop=0)


def swapped_icc_jpeg():
    Image.new("RGB", (600, 400), (255, 0, 0)).save(path("swapped-icc.jpg"), quality=95,
                                                   icc_profile=swapped_primaries_icc())


def broken_files():
    with open(path("camera.jpg"), "rb") as f:
        whole = f.read()
    with open(path("truncated.jpg"), "wb") as f:
        f.write(whole[: len(whole) // 2])
    with open(path("corrupt.jpg"), "wb") as f:
        # A JPEG signature and end marker around bytes that are no JPEG segment: damaged, not cut short.
        f.write(b"\xff\xd8\xff\xe0" + bytes((i * 37) % 251 for i in range(4000)) + b"\xff\xd9")
    open(path("empty.jpg"), "wb").close()
    with open(path("not-an-image.txt"), "wb") as f:
        f.write(b"hello, this is not an image\n" * 10)
    with open(path("drawing.svg"), "wb") as f:
        f.write(b'<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100">'
                b'<rect width="100" height="100" fill="red"/></svg>')
    Image.new("RGB", (1, 100), (0, 0, 255)).save(path("sliver.png"))
    # The bomb: a valid 30000x30000 (900 MP) 1-bit PNG of one colour; it compresses to about 110 KB.
    write_png("bomb.png", 30000, 30000, 1, 0, (bytes(3750) for _ in range(30000)))


def progressive_jpegs():
    # 4:4:4, with an ICC profile and Orientation=6, odd sizes (the last blocks are partial at every scale).
    # Pillow writes libjpeg's scan script: the DC scans carry all three components at once.
    photo(1203, 805, 12).save(path("progressive.jpg"), quality=90, subsampling=0, progressive=True,
                              icc_profile=srgb_icc())
    exiftool("-Orientation#=6", path("progressive.jpg"))
    with open(path("progressive.jpg"), "rb") as f:
        original = f.read()
    # The same coefficients, each scan carrying one component (as in Debian's Volna wallpaper).
    with_scans("progressive.jpg", "progressive-separate.jpg",
               "0: 0-0, 0, 0;\n1: 0-0, 0, 0;\n2: 0-0, 0, 0;\n0: 1-8, 0, 1;\n0: 9-63, 0, 1;\n"
               "1: 1-63, 0, 1;\n2: 1-63, 0, 1;\n0: 1-63, 1, 0;\n1: 1-63, 1, 0;\n2: 1-63, 1, 0;\n")
    # libjpeg's scan script again, with a restart marker after every row of blocks, and every 3 blocks (not
    # at the end of a row).
    jpegtran("progressive.jpg", "progressive-restarts.jpg", "-progressive", "-restart", "1")
    jpegtran("progressive.jpg", "progressive-restarts-3.jpg", "-progressive", "-restart", "3B")
    # The same coefficients in a baseline file: decoded on one thread.
    jpegtran("progressive.jpg", "progressive-as-baseline.jpg")
    # A byte of the first DC scan's data turned into a marker that is none: the scan cannot be cut.
    whole = bytearray(original)
    sos = whole.index(b"\xff\xda")
    data = sos + 2 + int.from_bytes(whole[sos + 2:sos + 4], "big")
    whole[data + 100:data + 102] = b"\xff\x42"
    with open(path("progressive-bad-dc.jpg"), "wb") as f:
        f.write(whole)
    # The first DC Huffman table with three 1-bit codes (no more than one fits): its values stay, counts move.
    whole = bytearray(original)
    at = whole.index(b"\xff\xc4") + 4
    while whole[at] >> 4 != 0:  # an AC table first: the next one
        at += 17 + sum(whole[at + 1:at + 17])
    counts = list(whole[at + 1:at + 17])
    moved = 3 - counts[0]
    for length in range(15, 0, -1):
        taken = min(moved, counts[length])
        counts[length] -= taken
        moved -= taken
    counts[0] = 3
    whole[at + 1:at + 17] = bytes(counts)
    with open(path("progressive-bad-huffman.jpg"), "wb") as f:
        f.write(whole)
    # A marker no decoder knows (0xF0) before the second scan, past the first: libjpeg refuses the file.
    second = original.index(b"\xff\xda", original.index(b"\xff\xda") + 2)
    with open(path("progressive-unknown-marker.jpg"), "wb") as f:
        f.write(original[:second] + b"\xff\xf0\x00\x04\x00\x00" + original[second:])
    # Complete files, each ending at a scan's end, whose coefficients are not all known: libjpeg smooths
    # such blocks as it makes their pixels, looking at every component at once.
    with_scans("progressive.jpg", "progressive-dc-only.jpg", "0,1,2: 0-0, 0, 0;")
    with_scans("progressive.jpg", "progressive-unrefined.jpg",
               "0,1,2: 0-0, 0, 1;\n0: 1-5, 0, 2;\n2: 1-63, 0, 1;\n1: 1-63, 0, 1;\n0: 6-63, 0, 2;\n"
               "0: 1-63, 2, 1;\n0,1,2: 0-0, 1, 0;\n")
    photo(1203, 805, 13).save(path("progressive-420.jpg"), quality=90, subsampling=2, progressive=True)
    with open(path("progressive-separate.jpg"), "rb") as f:
        whole = f.read()
    with open(path("progressive-cut.jpg"), "wb") as f:
        f.write(whole[: len(whole) * 3 // 5])
    # The three components sampled alike but 1x2: their blocks are the same at every scale; interleaved, a
    # DC scan's unit holds two blocks of each.
    ppm = path("sampled.ppm")
    photo(403, 205, 14).save(ppm)
    sampled = path("sampled-1x2.jpg")
    subprocess.run(["cjpeg", "-quality", "90", "-sample", "1x2,1x2,1x2", "-outfile", sampled, ppm], check=True)
    os.remove(ppm)
    with_scans("sampled-1x2.jpg", "progressive-1x2-separate.jpg",
               "0: 0-0, 0, 0;\n1: 0-0, 0, 0;\n2: 0-0, 0, 0;\n0: 1-63, 0, 0;\n1: 1-63, 0, 0;\n2: 1-63, 0, 0;\n")
    with_scans("sampled-1x2.jpg", "progressive-1x2-interleaved.jpg",
               "0,1: 0-0, 0, 0;\n2: 0-0, 0, 0;\n0: 1-63, 0, 0;\n1: 1-63, 0, 0;\n2: 1-63, 0, 0;\n")
    os.remove(sampled)


def jpegtran(source, target, *options):
    """`source`'s coefficients, metadata and all, rewritten by jpegtran with `options`."""
    subprocess.run(["jpegtran", "-copy", "all", *options, "-outfile", path(target), path(source)], check=True)


def with_scans(source, target, script):
    """`source`'s coefficients in a progressive file with the scan script given (jpegtran's syntax)."""
    scans = path(target + ".scans")
    with open(scans, "w") as f:
        f.write(script)
    jpegtran(source, target, "-scans", scans)
    os.remove(scans)


def landscape_small():
    photo(300, 200, 3).save(path("small.jpg"), quality=90)
    photo(600, 400, 6).save(path("medium.jpg"), quality=90)


def capture_times():
    # Taken in 2019 at 10:00 in UTC+2 (08:00 UTC), with its offset; and a HEIC taken in 2021 at
    # 23:30 in UTC-5 (04:30 UTC the next day).
    photo(300, 200, 7).save(path("taken-2019.jpg"), quality=90)
    exiftool("-DateTimeOriginal=2019:05:01 10:00:00", "-OffsetTimeOriginal=+02:00", path("taken-2019.jpg"))
    photo(300, 200, 8).save(path("heic-2021-source.jpg"), quality=92)
    exiftool("-DateTimeOriginal=2021:12:31 23:30:00", "-OffsetTimeOriginal=-05:00", path("heic-2021-source.jpg"))
    subprocess.run(["heif-enc", "-q", "80", "-o", path("taken-2021.heic"), path("heic-2021-source.jpg")],
                   check=True, stdout=subprocess.DEVNULL)
    os.remove(path("heic-2021-source.jpg"))


camera_jpeg()
heic()
alpha_png()
cmyk_jpeg()
deep_png()
animated_gif()
swapped_icc_jpeg()
webp_inputs()
large_jpeg()
broken_files()
landscape_small()
progressive_jpegs()
capture_times()
