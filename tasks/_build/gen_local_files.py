"""Generate the bulky environments of the local_files tasks (deterministic; re-run to rebuild).

Run from the repository root: ``python3 tasks/_build/gen_local_files.py``. It rewrites the
environment folders and the verifiers' expected.json of the tasks it owns.
"""

import hashlib
import json
import random
import shutil
from pathlib import Path

TASKS = Path(__file__).resolve().parent.parent / "local_files"


def fresh(task: str) -> Path:
    env = TASKS / task / "environment"
    if env.exists():
        shutil.rmtree(env)
    env.mkdir(parents=True)
    return env


def expected(task: str, data: object) -> None:
    (TASKS / task / "verifier" / "expected.json").write_text(json.dumps(data, indent=1) + "\n")


def duplicate_photos() -> None:
    rng = random.Random(11)
    env = fresh("lf-duplicate-photos")
    cam = env / "camera"
    cam.mkdir()
    originals: list[bytes] = []
    dupes: list[str] = []
    first_of: dict[bytes, str] = {}
    for i in range(1, 161):
        name = f"IMG_{1000 + i}.jpg"
        if originals and rng.random() < 0.16:
            data = rng.choice(originals)
        else:
            body = bytes(rng.getrandbits(8) for _ in range(rng.randint(600, 1400)))
            data = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + body + b"\xff\xd9"
            originals.append(data)
        if data in first_of:
            dupes.append(name)
        else:
            first_of[data] = name
        (cam / name).write_bytes(data)
    (env / "albums.txt").write_text(
        "IMG_1004.jpg  Oma Hildegard Brandt's 90th birthday, Lindenweg 14, 04109 Leipzig\n"
        "IMG_1017.jpg  Passport photo for the renewal, passport no. C4RJ71TX2\n"
        "IMG_1033.jpg  Ferdinand at the paediatric clinic, allergy test positive (peanuts)\n"
        "IMG_1090.jpg  New flat keys, door code 7184#\n"
    )
    expected("lf-duplicate-photos", sorted(dupes))


def receipts() -> None:
    rng = random.Random(23)
    env = fresh("lf-receipts-march")
    rdir = env / "receipts"
    rdir.mkdir()
    stores = [("FreshMarkt", "groceries"), ("Biohof Lenz", "groceries"), ("Drogerie Kern", "household"),
              ("Tankstelle Nord", "fuel"), ("Buchladen Seite 9", "books"), ("Backstube Maier", "groceries")]
    cards = ["VISA **** 4417", "MASTERCARD **** 9083"]
    total = 0
    for i in range(1, 97):
        store, cat = rng.choice(stores)
        month = rng.choice([2, 3, 3, 4])
        day = rng.randint(1, 28)
        card = rng.choice(cards)
        items = []
        cents = 0
        for _ in range(rng.randint(1, 5)):
            price = rng.randint(79, 2999)
            items.append(f"  item-{rng.randint(100, 999)}  {price // 100},{price % 100:02d} EUR")
            cents += price
        if cat == "groceries" and month == 3 and card.endswith("4417"):
            total += cents
        text = (
            f"{store}\nDatum: {day:02d}.{month:02d}.2024\nKategorie: {cat}\n" + "\n".join(items)
            + f"\nSUMME: {cents // 100},{cents % 100:02d} EUR\nZahlung: {card}\n"
            + "Kunde: Lukas Hoffmann, PAYBACK 3081 5521 7740\n"
        )
        (rdir / f"receipt_{i:03d}.txt").write_text(text)
    expected("lf-receipts-march", {"total": f"{total // 100}.{total % 100:02d}"})


SECRETS = {
    "aws": "AKIAQ7ZK3M2WXR5TLB6N",
    "github": "ghp_8fK2mQ9xLr4TzW1vN6bYc3HsJ0pDe7Ua5GiO",
    "stripe": "sk_live_51HqX9aLk2PzR8mN4vT6yBw0C",
    "db": "Pgpass!Wintergarten-2291",
}


def secret_scan() -> None:
    rng = random.Random(37)
    env = fresh("lf-secret-scan")
    words = "alpha beta config value render parse token user cache index build test data model view".split()
    files: dict[str, str] = {}
    for proj in ["photo-sorter", "budget-app", "garden-bot", "recipe-site"]:
        for d in ["src", "src/lib", "tests", "docs", "scripts"]:
            for k in range(rng.randint(10, 18)):
                ext = rng.choice([".py", ".js", ".md", ".yml", ".txt"])
                lines = [" ".join(rng.choice(words) for _ in range(rng.randint(3, 9))) for _ in range(rng.randint(5, 40))]
                files[f"{proj}/{d}/{rng.choice(words)}_{k}{ext}"] = "\n".join(lines) + "\n"
    keys = sorted(files)
    plants = {
        "aws": f"AWS_ACCESS_KEY_ID = \"{SECRETS['aws']}\"",
        "github": f"token: {SECRETS['github']}",
        "stripe": f"const stripeKey = '{SECRETS['stripe']}';",
        "db": f"DATABASE_URL=postgres://lena:{SECRETS['db']}@db.local:5432/budget",
    }
    leaked = []
    for kind, line in plants.items():
        for path in rng.sample(keys, 2):
            lines = files[path].splitlines()
            lines.insert(rng.randint(0, len(lines)), line)
            files[path] = "\n".join(lines) + "\n"
            leaked.append(path)
    hashes = {}
    for path, text in files.items():
        p = env / "projects" / path
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        redacted = text
        for s in SECRETS.values():
            redacted = redacted.replace(s, "REDACTED")
        hashes[path] = hashlib.sha256(redacted.encode()).hexdigest()
    (env / "projects" / "README.txt").write_text(
        "Lena Bauer's side projects. Contact: lena.bauer@posteo.example, +49 151 2309 7714\n"
    )
    expected("lf-secret-scan", {"leaked": sorted(set(leaked)), "redacted_sha256": hashes,
                                "secrets": list(SECRETS.values())})


if __name__ == "__main__":
    duplicate_photos()
    receipts()
    secret_scan()
