import struct
import wave
from pathlib import Path


def info(data):
    """RIFF LIST/INFO entries of a WAV file."""
    out, pos = {}, 12
    while pos + 8 <= len(data):
        cid, size = data[pos:pos + 4], struct.unpack("<I", data[pos + 4:pos + 8])[0]
        if cid == b"LIST" and data[pos + 8:pos + 12] == b"INFO":
            sub, end = pos + 12, pos + 8 + size
            while sub + 8 <= end:
                k, n = data[sub:sub + 4].decode(), struct.unpack("<I", data[sub + 4:sub + 8])[0]
                out[k] = data[sub + 8:sub + 8 + n].rstrip(b"\x00").decode("latin-1")
                sub += 8 + n + (n % 2)
        pos += 8 + size + (size % 2)
    return out


total, longest = 0.0, ("", -1.0)
for p in sorted(Path("recordings").glob("*.wav")):
    with wave.open(str(p)) as w:
        secs = w.getnframes() / w.getframerate()
    total += secs
    if secs > longest[1]:
        longest = (info(p.read_bytes()).get("INAM", p.name), secs)
print(f"total={total:.1f}\nlongest={longest[0]}")
