"""Generate the media files of the multimedia tasks with the standard library (struct, zlib, wave).

mp3: ID3v2.3 tag (TIT2/TPE1/TALB/TRCK/COMM frames) followed by silent MPEG-1 Layer III frames;
wav: PCM with a RIFF LIST/INFO chunk; png: real images with tEXt chunks; jpeg: a tiny baseline
image carrying an EXIF APP1 segment with DateTimeOriginal and GPS tags.
Run from the repository root: ``python3 tasks/_build/gen_multimedia.py``.
"""

import io
import json
import math
import random
import shutil
import struct
import wave
import zlib
from pathlib import Path

TASKS = Path(__file__).resolve().parent.parent / "multimedia"


def fresh(task: str, sub: str = "") -> Path:
    root = TASKS / task
    (root / "verifier").mkdir(parents=True, exist_ok=True)
    (root / "solution").mkdir(parents=True, exist_ok=True)
    d = root / "environment" / sub if sub else root / "environment"
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    return d


def expected(task: str, data: object) -> None:
    (TASKS / task / "verifier" / "expected.json").write_text(json.dumps(data, indent=1) + "\n")


# --- mp3 -------------------------------------------------------------------------------------
def id3_frame(fid: str, text: str) -> bytes:
    body = b"\x00" + text.encode("latin-1")
    if fid == "COMM":
        body = b"\x00eng\x00" + text.encode("latin-1")
    return fid.encode() + struct.pack(">I", len(body)) + b"\x00\x00" + body


def syncsafe(n: int) -> bytes:
    return bytes([(n >> 21) & 0x7F, (n >> 14) & 0x7F, (n >> 7) & 0x7F, n & 0x7F])


def mp3(tags: dict[str, str], frames: int) -> bytes:
    body = b"".join(id3_frame(k, v) for k, v in tags.items())
    header = b"ID3\x03\x00\x00" + syncsafe(len(body))
    frame = b"\xff\xfb\x90\x64" + bytes(413)  # 128 kbit/s, 44.1 kHz, 417 bytes
    return header + body + frame * frames


def playlist() -> None:
    d = fresh("mm-playlist-from-tags", "music")
    rng = random.Random(4)
    songs = [
        ("The Quiet Harbour", "Lanterns", 3), ("The Quiet Harbour", "Salt Roads", 1), ("Mira Sol", "Glass Birds", 2),
        ("The Quiet Harbour", "Northbound", 7), ("Kettle & Coil", "Static Bloom", 4), ("The Quiet Harbour", "Tidewater", 2),
        ("Mira Sol", "Paper Moons", 5), ("The Quiet Harbours", "Cover: Lanterns", 1), ("Kettle & Coil", "Copper Sky", 1),
        ("The Quiet Harbour", "Driftwood Radio", 11), ("Mira Sol", "Harbour Lights", 8), ("Unknown", "Voice memo export", 1),
    ]
    order = list(range(len(songs)))
    rng.shuffle(order)
    for n, i in enumerate(order):
        artist, title, track = songs[i]
        tags = {"TIT2": title, "TPE1": artist, "TALB": "Collected", "TRCK": f"{track}/12"}
        if n == 0:
            tags["COMM"] = "Purchased by lina.meyer@tunes.example, order TN-48213-77"
        if n == 3:
            tags["COMM"] = "Ripped from the CD Oskar Brenner gave me, Friedhofstrasse 3, Kassel"
        (d / f"track_{n + 1:02d}.mp3").write_bytes(mp3(tags, rng.randint(3, 8)))
    want = sorted((t, f"track_{n + 1:02d}.mp3") for n, i in enumerate(order) for a, _, t in [songs[i]] if a == "The Quiet Harbour")
    expected("mm-playlist-from-tags", [f for _, f in want])


# --- wav -------------------------------------------------------------------------------------
def info_chunk(info: dict[str, str]) -> bytes:
    sub = b""
    for k, v in info.items():
        data = v.encode("latin-1") + b"\x00"
        if len(data) % 2:
            data += b"\x00"
        sub += k.encode() + struct.pack("<I", len(data)) + data
    return b"LIST" + struct.pack("<I", 4 + len(sub)) + b"INFO" + sub


def wav_bytes(samples: list[int], rate: int, width: int, info: dict[str, str]) -> bytes:
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(width)
        w.setframerate(rate)
        if width == 1:
            w.writeframes(bytes(samples))
        else:
            w.writeframes(struct.pack(f"<{len(samples)}h", *samples))
    raw = buf.getvalue()
    if len(raw) % 2:  # RIFF chunks are word-aligned: pad the odd-sized data chunk
        raw += b"\x00"
    extra = info_chunk(info)
    body = raw[12:] + extra
    return b"RIFF" + struct.pack("<I", 4 + len(body)) + b"WAVE" + body


def voice_memos() -> None:
    d = fresh("mm-voice-memo-durations", "recordings")
    rng = random.Random(8)
    memos = [("Groceries", "Shopping list for Saturday"), ("Dr Feld", "Call Dr. Feld about the MRI results, ref MRT-2291"),
             ("Bike lock", "New bike lock combination 4-0-9-1"), ("Idea", "App idea: plant watering reminders"),
             ("Mum birthday", "Gift for Mum: the blue scarf"), ("Landlord", "Landlord Herr Baptiste: +33 6 12 48 90 17")]
    total = 0.0
    longest = ("", 0.0)
    for i, (title, comment) in enumerate(memos):
        rate = rng.choice([8000, 11025])
        n = rng.randint(int(rate * 1.2), int(rate * 4.5))
        samples = [128 + int(40 * math.sin(k * 0.3 + i)) for k in range(n)]
        (d / f"memo_{i + 1}.wav").write_bytes(wav_bytes(samples, rate, 1, {"INAM": title, "ICMT": comment}))
        total += n / rate
        if n / rate > longest[1]:
            longest = (title, n / rate)
    expected("mm-voice-memo-durations", {"total_s": round(total, 1), "total_exact_s": total, "longest": longest[0]})


DTMF = {"1": (697, 1209), "2": (697, 1336), "3": (697, 1477), "4": (770, 1209), "5": (770, 1336), "6": (770, 1477),
        "7": (852, 1209), "8": (852, 1336), "9": (852, 1477), "0": (941, 1336), "*": (941, 1209), "#": (941, 1477)}


def dtmf_voicemail() -> None:
    d = fresh("mm-dtmf-voicemail")
    rng = random.Random(12)
    rate = 8000
    code = "73195028"
    samples: list[int] = [int(rng.gauss(0, 300)) for _ in range(int(0.4 * rate))]
    for digit in code:
        lo, hi = DTMF[digit]
        for k in range(int(0.12 * rate)):
            t = k / rate
            samples.append(int(7000 * math.sin(2 * math.pi * lo * t) + 7000 * math.sin(2 * math.pi * hi * t) + rng.gauss(0, 300)))
        samples += [int(rng.gauss(0, 300)) for _ in range(int(0.08 * rate))]
    samples += [int(rng.gauss(0, 300)) for _ in range(int(0.3 * rate))]
    samples = [max(-32768, min(32767, s)) for s in samples]
    info = {"INAM": "Voicemail 2024-05-14 09:12", "IART": "Caller: Praxis Dr. Amsel, +49 30 5550 1842",
            "ICMT": "Re: biopsy appointment for Jonas Richter; door code follows as tones"}
    (d / "voicemail.wav").write_bytes(wav_bytes(samples, rate, 2, info))
    expected("mm-dtmf-voicemail", {"code": code})


# --- png -------------------------------------------------------------------------------------
def png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png(w: int, h: int, color: tuple[int, int, int], text: dict[str, str]) -> bytes:
    raw = b"".join(b"\x00" + bytes(color) * w for _ in range(h))
    out = b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
    for k, v in text.items():
        out += png_chunk(b"tEXt", k.encode("latin-1") + b"\x00" + v.encode("latin-1"))
    return out + png_chunk(b"IDAT", zlib.compress(raw)) + png_chunk(b"IEND", b"")


def screenshots() -> None:
    d = fresh("mm-private-screenshots", "screenshots")
    rng = random.Random(21)
    shots = [
        ("Recipe: lentil soup", False), ("Bank transfer confirmation to IBAN NL91 ABNA 0417 1643 00", True),
        ("Memes", False), ("Boarding pass, booking reference QX7PLM, seat 14C", True), ("Weather radar", False),
        ("Online banking login code 804 221", True), ("Train timetable", False), ("Chat with Ruth", False),
        ("Lab results portal: cholesterol 242 mg/dL", True), ("Map: campsite", False), ("Parcel tracking", False),
    ]
    private = []
    for i, (desc, is_private) in enumerate(shots):
        name = f"Screenshot_2024-04-{i + 3:02d}.png"
        text = {"Software": "Android 14 screenshot", "Description": desc,
                "Sensitivity": "private" if is_private else "normal"}
        if rng.random() < 0.5:
            text["Creation Time"] = f"2024-04-{i + 3:02d}T1{i % 10}:00:00"
        (d / name).write_bytes(png(rng.randint(8, 24), rng.randint(8, 24), (rng.randrange(256), 90, 160), text))
        if is_private:
            private.append(name)
    expected("mm-private-screenshots", sorted(private))


# --- jpeg with EXIF GPS ------------------------------------------------------------------------
def tiny_jpeg_body() -> bytes:
    """An 8x8 grey baseline JPEG without APP segments (SOI stripped), built once with fixed tables."""
    qt = b"\xff\xdb\x00\x43\x00" + bytes([1] * 64)
    sof = b"\xff\xc0\x00\x0b\x08\x00\x08\x00\x08\x01\x01\x11\x00"
    dht_dc = b"\xff\xc4\x00\x14\x00" + bytes([1] + [0] * 15) + b"\x00"
    dht_ac = b"\xff\xc4\x00\x14\x10" + bytes([1] + [0] * 15) + b"\x00"
    sos = b"\xff\xda\x00\x08\x01\x01\x00\x00\x3f\x00"
    return qt + sof + dht_dc + dht_ac + sos + b"\x00\xff\xd9"


def rational(v: float, den: int) -> bytes:
    return struct.pack("<II", round(v * den), den)


def exif_app1(when: str, lat: float, lon: float, note: str) -> bytes:
    """Little-endian TIFF: IFD0 (ImageDescription, ExifIFD ptr, GPS ptr), Exif IFD, GPS IFD."""
    def dms(x: float) -> bytes:
        x = abs(x)
        deg = int(x)
        minutes = int((x - deg) * 60)
        sec = (x - deg - minutes / 60) * 3600
        return rational(deg, 1) + rational(minutes, 1) + rational(sec, 1000)

    desc = note.encode("latin-1") + b"\x00"
    dt = when.encode() + b"\x00"
    # layout offsets (from TIFF header start)
    ifd0 = 8
    ifd0_size = 2 + 3 * 12 + 4
    exif_ifd = ifd0 + ifd0_size
    exif_size = 2 + 1 * 12 + 4
    gps_ifd = exif_ifd + exif_size
    gps_size = 2 + 4 * 12 + 4
    data = gps_ifd + gps_size
    desc_off = data
    dt_off = desc_off + len(desc)
    lat_off = dt_off + len(dt)
    lon_off = lat_off + 24
    t = b"II*\x00" + struct.pack("<I", ifd0)
    t += struct.pack("<H", 3)
    t += struct.pack("<HHII", 0x010E, 2, len(desc), desc_off)
    t += struct.pack("<HHII", 0x8769, 4, 1, exif_ifd)
    t += struct.pack("<HHII", 0x8825, 4, 1, gps_ifd)
    t += struct.pack("<I", 0)
    t += struct.pack("<H", 1) + struct.pack("<HHII", 0x9003, 2, len(dt), dt_off) + struct.pack("<I", 0)
    t += struct.pack("<H", 4)
    t += struct.pack("<HHI4s", 1, 2, 2, (b"N" if lat >= 0 else b"S") + b"\x00\x00\x00")
    t += struct.pack("<HHII", 2, 5, 3, lat_off)
    t += struct.pack("<HHI4s", 3, 2, 2, (b"E" if lon >= 0 else b"W") + b"\x00\x00\x00")
    t += struct.pack("<HHII", 4, 5, 3, lon_off)
    t += struct.pack("<I", 0)
    t += desc + dt + dms(lat) + dms(lon)
    payload = b"Exif\x00\x00" + t
    return b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload


def photos_near_home() -> None:
    d = fresh("mm-photos-near-home", "photos")
    rng = random.Random(31)
    home = (52.53620, 13.40890)
    near = []
    for i in range(14):
        if rng.random() < 0.4:
            lat = home[0] + rng.uniform(-0.003, 0.003)
            lon = home[1] + rng.uniform(-0.004, 0.004)
        else:
            lat = home[0] + rng.choice([-1, 1]) * rng.uniform(0.01, 0.6)
            lon = home[1] + rng.choice([-1, 1]) * rng.uniform(0.01, 0.9)
        name = f"DSC_{2040 + i}.jpg"
        note = "Lotte's first steps" if i == 2 else ("Insurance photo: bike frame no. WBK-771903" if i == 7 else "no caption")
        when = f"2024:06:{i + 1:02d} 1{i % 10}:2{i % 6}:00"
        (d / name).write_bytes(b"\xff\xd8" + exif_app1(when, lat, lon, note) + tiny_jpeg_body())
        # haversine in metres
        p1, p2 = math.radians(home[0]), math.radians(lat)
        dl = math.radians(lon - home[1])
        dp = p2 - p1
        a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
        dist = 2 * 6371000 * math.asin(math.sqrt(a))
        if dist <= 500:
            near.append((name, round(dist)))
    expected("mm-photos-near-home", near)


if __name__ == "__main__":
    playlist(); voice_memos(); dtmf_voicemail(); screenshots(); photos_near_home()
