import hashlib
import json
from pathlib import Path

vault = json.loads(Path("vault.json").read_text())
salt = vault["salt"]
for n in range(1_000_000):
    pin = f"{n:06d}"
    if hashlib.sha256((salt + pin).encode()).hexdigest() == vault["pin_check"]:
        break
data = bytes.fromhex(vault["ciphertext_hex"])
plain = bytes(
    b ^ hashlib.sha256(f"{pin}:{i // 32}".encode()).digest()[i % 32] for i, b in enumerate(data)
)
Path("note.txt").write_text(plain.decode())
print(f"pin={pin}")
