import math
import struct
import wave
from pathlib import Path

KEYS = {(697, 1209): "1", (697, 1336): "2", (697, 1477): "3", (770, 1209): "4", (770, 1336): "5",
        (770, 1477): "6", (852, 1209): "7", (852, 1336): "8", (852, 1477): "9", (941, 1336): "0",
        (941, 1209): "*", (941, 1477): "#"}
ROWS, COLS = (697, 770, 852, 941), (1209, 1336, 1477)


def goertzel(block, freq, rate):
    coeff = 2 * math.cos(2 * math.pi * freq / rate)
    s1 = s2 = 0.0
    for x in block:
        s1, s2 = x + coeff * s1 - s2, s1
    return s1 * s1 + s2 * s2 - coeff * s1 * s2


with wave.open("voicemail.wav") as w:
    rate = w.getframerate()
    raw = w.readframes(w.getnframes())
samples = struct.unpack(f"<{len(raw) // 2}h", raw)
win = int(rate * 0.02)
digits, prev = [], None
for start in range(0, len(samples) - win, win):
    block = samples[start:start + win]
    energy = sum(x * x for x in block) / win
    key = None
    if energy > 1e6:
        r = max(ROWS, key=lambda f: goertzel(block, f, rate))
        c = max(COLS, key=lambda f: goertzel(block, f, rate))
        key = KEYS[(r, c)]
    if key and key != prev:
        digits.append(key)
    prev = key
code = "".join(digits)
Path("door_code.txt").write_text(code + "\n")
print(f"code={code}")
