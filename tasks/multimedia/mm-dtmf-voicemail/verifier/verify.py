"""Grade mm-dtmf-voicemail.

``door_code.txt`` must hold the DTMF digits of the voicemail (recorded in expected.json when the
audio was generated) and the answer must be ``code=<digits>``, the same digits in order: a
dropped or doubled key is a different code. The recording must be left as it was.
"""

import hashlib
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import Fail, Text, answer, check_files, fields, main, pristine_path, read_text

AUDIO = "voicemail.wav"


def digits(text: str) -> str:
    """The key sequence with grouping spaces or dashes removed ('7319 5028' = '73195028')."""
    if not re.fullmatch(r"[0-9*#]+(?:[ -][0-9*#]+)*", text.strip()):
        raise Fail(f"{text.strip()[:40]!r} is not one sequence of DTMF keys")
    return re.sub(r"[ -]", "", text.strip())


def check() -> str:
    code = json.loads((Path(__file__).parent / "expected.json").read_text())["code"]
    check_files(unchanged={AUDIO: hashlib.sha256(pristine_path(AUDIO).read_bytes()).hexdigest()})
    in_file = digits(read_text("door_code.txt"))
    if in_file != code:
        raise Fail(f"door_code.txt holds {in_file}, expected {code}")
    got = digits(str(fields(answer(), {"code": Text()})["code"]))
    if got != code:
        raise Fail(f"answer code={got}, expected {code}")
    return f"door code {code} decoded"


main(check)
