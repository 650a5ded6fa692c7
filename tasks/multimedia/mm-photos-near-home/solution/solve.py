import math
import re
import struct
from pathlib import Path


def gps(data):
    """(lat, lon) from the EXIF APP1 segment of a JPEG (both byte orders handled)."""
    pos = 2
    while data[pos] == 0xFF and data[pos + 1] != 0xE1:
        pos += 2 + struct.unpack(">H", data[pos + 2:pos + 4])[0]
    tiff = pos + 10
    bo = "<" if data[tiff:tiff + 2] == b"II" else ">"

    def entries(off):
        n = struct.unpack(bo + "H", data[tiff + off:tiff + off + 2])[0]
        for k in range(n):
            e = tiff + off + 2 + 12 * k
            yield struct.unpack(bo + "HHII", data[e:e + 12]) + (e + 8,)

    def rationals(off, count):
        vals = struct.unpack(bo + "I" * 2 * count, data[tiff + off:tiff + off + 8 * count])
        return [vals[2 * i] / vals[2 * i + 1] for i in range(count)]

    ifd0 = struct.unpack(bo + "I", data[tiff + 4:tiff + 8])[0]
    gps_off = next(v for tag, _, _, v, _ in entries(ifd0) if tag == 0x8825)
    g = {}
    for tag, typ, count, value, raw in entries(gps_off):
        g[tag] = data[raw:raw + 1].decode() if typ == 2 else rationals(value, count)
    lat = sum(x / 60**i for i, x in enumerate(g[2])) * (1 if g[1] == "N" else -1)
    lon = sum(x / 60**i for i, x in enumerate(g[4])) * (1 if g[3] == "E" else -1)
    return lat, lon


home = [float(x) for x in re.findall(r"(\d+\.\d+) [NE]", Path("home.txt").read_text())]
near = []
for p in sorted(Path("photos").glob("*.jpg")):
    lat, lon = gps(p.read_bytes())
    p1, p2 = math.radians(home[0]), math.radians(lat)
    a = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(math.radians(lon - home[1]) / 2) ** 2
    if 2 * 6371000 * math.asin(math.sqrt(a)) <= 500:
        near.append(p.name)
Path("near_home.txt").write_text("".join(n + "\n" for n in near))
print(f"photos={len(near)}")
