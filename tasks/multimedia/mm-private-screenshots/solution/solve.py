import struct
from pathlib import Path


def text_chunks(data):
    out, pos = {}, 8
    while pos + 8 <= len(data):
        n = struct.unpack(">I", data[pos:pos + 4])[0]
        kind = data[pos + 4:pos + 8]
        if kind == b"tEXt":
            key, _, value = data[pos + 8:pos + 8 + n].partition(b"\x00")
            out[key.decode("latin-1")] = value.decode("latin-1")
        pos += 12 + n
    return out


Path("private").mkdir(exist_ok=True)
moved = 0
for p in sorted(Path("screenshots").glob("*.png")):
    if text_chunks(p.read_bytes()).get("Sensitivity") == "private":
        p.rename(Path("private") / p.name)
        moved += 1
print(f"moved={moved}")
