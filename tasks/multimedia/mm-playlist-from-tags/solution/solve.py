import struct
from pathlib import Path


def id3_tags(data):
    """Text frames of an ID3v2.3 tag: {frame id: text}."""
    if data[:3] != b"ID3":
        return {}
    size = (data[6] << 21) | (data[7] << 14) | (data[8] << 7) | data[9]
    pos, end, tags = 10, 10 + size, {}
    while pos + 10 <= end and data[pos:pos + 4].strip(b"\x00"):
        fid = data[pos:pos + 4].decode()
        n = struct.unpack(">I", data[pos + 4:pos + 8])[0]
        body = data[pos + 10:pos + 10 + n]
        if fid.startswith("T"):
            tags[fid] = body[1:].decode("latin-1").rstrip("\x00")
        pos += 10 + n
    return tags


songs = []
for p in sorted(Path("music").glob("*.mp3")):
    tags = id3_tags(p.read_bytes())
    if tags.get("TPE1") == "The Quiet Harbour":
        songs.append((int(tags["TRCK"].split("/")[0]), p.name))
songs.sort()
Path("road_trip.m3u").write_text("#EXTM3U\n" + "".join(f"music/{name}\n" for _, name in songs))
print(f"songs={len(songs)}")
