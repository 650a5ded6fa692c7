"""calc-vault-pin: PIN 583920 and the decrypted note, byte for byte (its SHA-256 is below)."""

import hashlib
import re

from agbench_grading import Fail, Field, NoValue, answer, check_files, fields, main, read_text

INPUTS = {"vault.json": "5f2b665e22944253640c0252b58f8b0833732d429ad36ec7dbc9ed32510ede06"}
NOTE_SHA256 = "e64c44d872c0410170ca78abdc026dd19549c398342b741a3aed436bcca7f429"


class Pin(Field):
    """Exactly six digits (leading zeros kept), nothing else."""

    def parse(self, raw: str) -> object:
        s = re.sub(r"[*`\"'.]", "", raw).strip()
        if not s:
            raise NoValue("no PIN given")
        if not re.fullmatch(r"\d{6}", s):
            raise Fail(f"not one 6-digit PIN: {raw.strip()!r}")
        return s


def check() -> str:
    note = read_text("note.txt")
    if hashlib.sha256(note.rstrip("\n").encode()).hexdigest() != NOTE_SHA256:
        raise Fail("note.txt is not the decrypted note")
    pin = fields(answer(), {"pin": Pin()})["pin"]
    if pin != "583920":
        raise Fail(f"PIN {pin} is wrong")
    check_files(unchanged=INPUTS)
    return "PIN recovered and note decrypted"


main(check)
