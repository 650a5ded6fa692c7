"""Generate the bulky text/binary inputs of the remaining tasks (deterministic; re-run to rebuild).

Run from the repository root: ``python3 tasks/_build/gen_more.py [FUNCTION ...]`` (default: all).
Each function rewrites one task's generated inputs and, where the verifier needs them, its
``verifier/expected.json``.
"""

import json
import random
import shutil
import sqlite3
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def task_dir(rel: str) -> Path:
    d = ROOT / rel
    for sub in ("environment", "verifier", "solution"):
        (d / sub).mkdir(parents=True, exist_ok=True)
    return d


def fresh(rel: str, sub: str) -> Path:
    d = task_dir(rel) / "environment" / sub
    if d.exists():
        if d.is_dir():
            shutil.rmtree(d)
        else:
            d.unlink()
    return d


def expected(rel: str, data: object) -> None:
    (task_dir(rel) / "verifier" / "expected.json").write_text(json.dumps(data, indent=1) + "\n")


FUNCTIONS = []


def generator(fn):
    FUNCTIONS.append(fn)
    return fn


@generator
def downloads_tree() -> None:
    rng = random.Random(101)
    d = fresh("local_files/lf-largest-downloads", "downloads")
    names = ["invoice", "setup", "photo", "scan", "ticket", "manual", "statement", "podcast", "backup", "notes"]
    exts = [".pdf", ".zip", ".jpg", ".txt", ".dmg", ".mp3", ".csv"]
    sizes = {}
    for i in range(220):
        sub = rng.choice(["", "2023", "2024/q1", "2024/q2", "apps", "apps/old", "misc/tmp"])
        name = f"{rng.choice(names)}_{i:03d}{rng.choice(exts)}"
        rel = f"{sub}/{name}" if sub else name
        size = rng.randint(10, 3000)
        sizes[rel] = size
    big = {"apps/old/photo_editor_trial_1.9.dmg": 24576, "2023/backup_phone_2023-11.zip": 21000,
           "misc/tmp/podcast_ep112.mp3": 19876, "2024/q2/statement_scan_hi-res.pdf": 18999}
    sizes.update(big)
    for rel, size in sizes.items():
        p = d / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(bytes(rng.getrandbits(8) for _ in range(size)))
    (d / "2024" / "q1" / "README-tax.txt").write_text(
        "Tax return 2023 for Viktor Lindahl, tax id 19840312-5571, filed via Skatteverket login\n"
        "bank login: viktor.lindahl / Hemlig-Loke-77\n")
    sizes["2024/q1/README-tax.txt"] = (d / "2024" / "q1" / "README-tax.txt").stat().st_size
    top = sorted(sizes.items(), key=lambda kv: -kv[1])[:3]
    expected("local_files/lf-largest-downloads", top)


@generator
def practice_mbox() -> None:
    rng = random.Random(202)
    d = task_dir("local_files/lf-mbox-practice")
    senders = [("Praxis Dr. Rostami", "termine@rostami-praxis.example"), ("Bookshop Seitenwind", "news@seitenwind.example"),
               ("Bank Nordost", "service@bank-nordost.example"), ("Clara Weiss", "clara.weiss@mailhaus.example"),
               ("Praxis Dr. Rostami", "labor@rostami-praxis.example")]
    msgs = []
    for i in range(140):
        name, addr = rng.choice(senders)
        year = rng.choice([2023, 2024, 2024])
        month, day = rng.randint(1, 12), rng.randint(1, 28)
        hh, mm = rng.randint(7, 20), rng.randint(0, 59)
        if "rostami" in addr:
            subj = rng.choice(["Terminerinnerung", "Ihre Laborwerte", "Rezept liegt bereit", "Praxis geschlossen"])
            body = rng.choice(["Ihr Termin ist bestaetigt.", "Laborwerte: HbA1c 6.1 %, bitte Kontrolle in 3 Monaten.",
                               "Ihr Rezept fuer Metformin 500 mg liegt zur Abholung bereit.", "Die Praxis ist geschlossen."])
        else:
            subj = rng.choice(["Newsletter", "Kontoauszug verfuegbar", "Kaffee naechste Woche?", "Angebot der Woche"])
            body = "Hallo Frau Yildirim, ..."
        msgs.append(((year, month, day, hh, mm), name, addr, f"{subj} #{i}", body))
    days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    import datetime as dt
    out = []
    for (y, mo, da, hh, mm), name, addr, subj, body in msgs:  # mbox order = arrival order, not sorted
        wd = days[dt.date(y, mo, da).weekday()]
        out.append(f"From {addr} {wd} {months[mo - 1]} {da:2d} {hh:02d}:{mm:02d}:00 {y}\n"
                   f"From: {name} <{addr}>\nTo: Derya Yildirim <derya.yildirim@postbox.example>\n"
                   f"Subject: {subj}\nDate: {wd}, {da:02d} {months[mo - 1]} {y} {hh:02d}:{mm:02d}:00 +0100\n\n"
                   f"{body}\nVersichertennummer: K442 918 305\n\n")
    (d / "environment" / "mail.mbox").write_text("".join(out))
    mine = sorted((m[0], m[3]) for m in msgs if m[2].endswith("@rostami-praxis.example") and m[0][0] == 2024)
    expected("local_files/lf-mbox-practice", [s for _, s in mine])


def _norm_phone(p: str) -> str:
    digits = "".join(ch for ch in p if ch.isdigit() or ch == "+")
    if digits.startswith("00"):
        digits = "+" + digits[2:]
    elif digits.startswith("0"):
        digits = "+49" + digits[1:]
    return digits


@generator
def contacts() -> None:
    rng = random.Random(303)
    d = task_dir("local_files/lf-contacts-merge")
    first = ["Anna", "Ben", "Carla", "Deniz", "Emil", "Fatima", "Georg", "Hanna", "Ilja", "Jule", "Kemal", "Lea",
             "Mika", "Nora", "Oskar", "Paula", "Rami", "Sina", "Till", "Vera"]
    last = ["Albrecht", "Becker", "Cakir", "Dietz", "Engel", "Fischer", "Graf", "Hahn", "Ivanova", "Jansen"]
    people = []
    for i, f in enumerate(first):
        num = f"{rng.randint(151, 179)}{rng.randint(1000000, 9999999)}"
        people.append((f"{f} {last[i % len(last)]}", num, f"{f.lower()}.{last[i % len(last)].lower()}@example.net"))

    def fmt(num: str, style: int) -> str:
        return [f"+49 {num[:3]} {num[3:]}", f"0{num[:3]} {num[3:6]} {num[6:]}", f"0049{num}", f"+49-{num[:3]}-{num[3:]}"][style]

    phone, sim = [], []
    for i, (name, num, mail) in enumerate(people):
        in_phone, in_sim = (True, True) if i % 3 == 0 else ((True, False) if i % 3 == 1 else (False, True))
        if in_phone:
            phone.append(f"BEGIN:VCARD\nVERSION:3.0\nFN:{name}\nTEL;TYPE=CELL:{fmt(num, rng.randint(0, 3))}\nEMAIL:{mail}\nEND:VCARD\n")
        if in_sim:
            short = name.split()[0] if rng.random() < 0.5 else name.upper()
            sim.append(f"BEGIN:VCARD\nVERSION:2.1\nFN:{short}\nTEL:{fmt(num, rng.randint(0, 3))}\nEND:VCARD\n")
    phone.append("BEGIN:VCARD\nVERSION:3.0\nFN:Me (Jonas Albers)\nTEL;TYPE=CELL:+49 160 5558213\n"
                 "NOTE:PUK 88213047, SIM PIN 4471\nEND:VCARD\n")
    (d / "environment" / "phone_contacts.vcf").write_text("".join(phone))
    (d / "environment" / "sim_contacts.vcf").write_text("".join(sim))
    expected("local_files/lf-contacts-merge", sorted({_norm_phone(fmt(p[1], 0)) for p in people} | {"+491605558213"}))


@generator
def backup_snapshots() -> None:
    rng = random.Random(404)
    d = task_dir("local_files/lf-backup-diff") / "environment"
    for sub in ("snapshot_2024-05-01", "current"):
        if (d / sub).exists():
            shutil.rmtree(d / sub)
    words = "garden invoice kids recipe tax school car holiday insurance health".split()
    files = {}
    for i in range(180):
        rel = f"{rng.choice(['Documents', 'Documents/tax', 'Pictures', 'Music', 'Projects/site'])}/{rng.choice(words)}_{i:03d}.txt"
        files[rel] = "".join(f"{rng.choice(words)} {rng.randint(0, 9999)}\n" for _ in range(rng.randint(2, 12)))
    files["Documents/health/insurance_card.txt"] = "Member: Ruth Okafor\nPolicy: TK-55810-2293-7\nBlood group: 0 neg\n"
    files["Documents/tax/steuer_id.txt"] = "Steuer-ID Ruth Okafor: 47 036 892 815\n"
    current = dict(files)
    changes = []
    keys = sorted(files)
    for rel in rng.sample(keys, 9):
        del current[rel]
        changes.append(("D", rel))
    remaining = sorted(current)
    for rel in rng.sample(remaining, 8):
        text = current[rel]
        # same length, different content: a size comparison does not see it
        pos = rng.randrange(len(text) - 1)
        ch = "x" if text[pos] != "x" else "y"
        if text[pos] == "\n":
            ch = "\n"
            text = text + "z"
        else:
            text = text[:pos] + ch + text[pos + 1:]
        current[rel] = text
        changes.append(("M", rel))
    for i in range(7):
        rel = f"{rng.choice(['Documents', 'Pictures', 'Projects/site/new'])}/added_{i}.txt"
        current[rel] = f"new file {i}\n"
        changes.append(("A", rel))
    for sub, content in (("snapshot_2024-05-01", files), ("current", current)):
        for rel, text in content.items():
            p = d / sub / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
    expected("local_files/lf-backup-diff", sorted(changes, key=lambda c: (c[1], c[0])))


@generator
def photo_archive() -> None:
    rng = random.Random(505)
    d = fresh("local_files/lf-photo-archive", "camera_roll")
    d.mkdir(parents=True)
    plan = {}
    for i in range(90):
        y, m, day = rng.choice([2022, 2023, 2024]), rng.randint(1, 12), rng.randint(1, 28)
        hh, mi, ss = rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59)
        style = rng.randint(0, 4)
        if style == 0:
            name = f"IMG_{y}{m:02d}{day:02d}_{hh:02d}{mi:02d}{ss:02d}.jpg"
        elif style == 1:
            name = f"PXL_{y}{m:02d}{day:02d}_{hh:02d}{mi:02d}{ss:02d}{rng.randint(100, 999)}.jpg"
        elif style == 2:
            name = f"Screenshot {y}-{m:02d}-{day:02d} at {hh:02d}.{mi:02d}.{ss:02d}.png"
        elif style == 3:
            name = f"IMG-{y}{m:02d}{day:02d}-WA{rng.randint(0, 9999):04d}.jpg"
        else:
            name = f"DSC{rng.randint(10000, 99999)}.JPG"
            (d / (name + ".json")).write_text(json.dumps(
                {"title": name, "photoTakenTime": {"formatted": f"{y}-{m:02d}-{day:02d}T{hh:02d}:{mi:02d}:{ss:02d}Z"}}))
            plan[name + ".json"] = f"{y}/{m:02d}"
        if (d / name).exists():
            continue
        (d / name).write_bytes(b"\xff\xd8\xff" + bytes(rng.getrandbits(8) for _ in range(rng.randint(40, 120))))
        plan[name] = f"{y}/{m:02d}"
    (d / "DSC55555.JPG.json").write_text(json.dumps({"title": "DSC55555.JPG", "description": "",
        "people": [{"name": "Mila Kovac"}], "photoTakenTime": {"formatted": "2023-08-14T10:00:00Z"},
        "geoData": {"address": "Ulica Lipa 7, 10000 Zagreb"}}))
    (d / "DSC55555.JPG").write_bytes(b"\xff\xd8\xff" + bytes(60))
    plan["DSC55555.JPG"] = plan["DSC55555.JPG.json"] = "2023/08"
    expected("local_files/lf-photo-archive", plan)


@generator
def mail_threads() -> None:
    rng = random.Random(606)
    d = fresh("local_files/lf-longest-thread", "mail")
    d.mkdir(parents=True)
    people = ["Ines Moreau <ines.moreau@kiez-mail.example>", "Paul Kern <paul.kern@kiez-mail.example>",
              "Sabine Wolter <s.wolter@webpost.example>", "Dario Conti <dario.conti@webpost.example>"]
    threads = {
        "garage": ["Garage sale on Saturday", "Re: Garage sale on Saturday", "Re: Garage sale on Saturday",
                   "Re: Garage sale (new date!)", "AW: Garage sale (new date!)", "Re: AW: Garage sale (new date!)",
                   "Re: tables for the sale"],
        "hello1": ["Hello", "Re: Hello", "Re: Hello", "Re: Hello", "Re: Hello"],
        "hello2": ["Hello", "Re: Hello", "Re: Hello"],
        "keys": ["Spare keys", "Re: Spare keys", "Re: Spare keys", "Re: Spare keys"],
        "wifi": ["WiFi password for the courtyard", "Re: WiFi password for the courtyard"],
        "solo1": ["Parcel for you"], "solo2": ["Choir rehearsal moved"], "solo3": ["Bike repair"],
    }
    bodies = {"keys": "The spare key is in the blue box, code 2-7-7-1.",
              "wifi": "Network Hinterhof-5, password: Kastanie!Blatt93",
              "garage": "We could use Sabine's garage at Eichenweg 12."}
    events = []
    for tid, subjects in threads.items():
        start = rng.randint(0, 20 * 24 * 60)
        ids: list[str] = []
        for k, subj in enumerate(subjects):
            start += rng.randint(20, 600)
            mid = f"<{tid}.{k}.{rng.randint(1000, 9999)}@kiez-mail.example>"
            parent = ids[rng.randint(0, len(ids) - 1)] if ids else None
            refs = ids[:]  # full chain
            events.append((start, tid, subj, mid, parent, refs))
            ids.append(mid)
    events.sort()
    import datetime as dt
    base = dt.datetime(2024, 4, 1, 8, 0)
    order = list(range(len(events)))
    rng.shuffle(order)
    names = {}
    for n, idx in enumerate(order):
        names[idx] = f"msg_{n + 1:03d}.eml"
    for idx, (minute, tid, subj, mid, parent, refs) in enumerate(events):
        when = base + dt.timedelta(minutes=minute)
        hdr = [f"From: {rng.choice(people)}", "To: kiez-list@kiez-mail.example", f"Subject: {subj}",
               f"Date: {when.strftime('%a, %d %b %Y %H:%M:%S')} +0200", f"Message-ID: {mid}"]
        if parent:
            if rng.random() < 0.7:
                hdr.append(f"In-Reply-To: {parent}")
            hdr.append("References: " + " ".join(refs[: refs.index(parent) + 1]))
        body = bodies.get(tid, "See you there.") + "\n"
        (d / names[idx]).write_text("\n".join(hdr) + "\n\n" + body)
    garage = [names[i] for i, e in enumerate(events) if e[1] == "garage"]
    expected("local_files/lf-longest-thread", garage)


@generator
def home_office_days() -> None:
    rng = random.Random(707)
    import datetime as dt
    rows = ["date,location,note"]
    home = 0
    day = dt.date(2024, 1, 1)
    while day.year == 2024:
        if day.weekday() < 5 and rng.random() > 0.06:
            loc = rng.choices(["home", "office", "home+office"], [0.78, 0.17, 0.05])[0]
            note = ""
            if loc == "home+office":
                note = "morning at home, afternoon client meeting at HQ"
            if day == dt.date(2024, 3, 14):
                note = "sick note: migraine (Dr. Halloran)"
                loc = "sick"
            rows.append(f"{day.isoformat()},{loc},{note}")
            home += loc == "home"
        day += dt.timedelta(days=1)
    d = task_dir("retrieval/rt-home-office-deduction")
    (d / "environment" / "workdays_2024.csv").write_text("\n".join(rows) + "\n")
    expected("retrieval/rt-home-office-deduction", {"home_days": home, "deduction": min(home * 7, 1500)})


@generator
def fx_expenses() -> None:
    import re as _re
    rates = {}
    for p in sorted((ROOT / "_corpus" / "fx").glob("*.md")):
        month = p.stem.replace("reference-rates-", "")
        for cur, r in _re.findall(r"\| ([A-Z]{3}) \| ([\d.]+) \|", p.read_text()):
            rates[(month, cur)] = float(r)
    rng = random.Random(808)
    rows = ["date,description,amount,currency"]
    total = 0.0
    for _ in range(26):
        month = rng.choice(["2024-01", "2024-02", "2024-03", "2024-04"])
        cur = rng.choice(["USD", "GBP", "CHF", "SEK", "PLN", "EUR"])
        amount = round(rng.uniform(5, 400), 2)
        desc = rng.choice(["hotel", "taxi", "conference fee", "dinner", "train", "coworking day pass"])
        rows.append(f"{month}-{rng.randint(1, 28):02d},{desc},{amount:.2f},{cur}")
        total += amount if cur == "EUR" else amount / rates[(month, cur)]
    rows.append("2024-04-30,reimbursement to account CH93 0076 2011 6238 5295 7 (Noemi Brunner),0.00,EUR")
    d = task_dir("retrieval/rt-expense-fx")
    (d / "environment" / "travel_expenses.csv").write_text("\n".join(rows) + "\n")
    expected("retrieval/rt-expense-fx", {"total_eur": round(total, 2)})


@generator
def meter_readings() -> None:
    rng = random.Random(909)
    import datetime as dt
    rows = ["timestamp,kwh"]
    t = dt.datetime(2024, 3, 1, 0, 0)
    peak = off = 0.0
    while t.month == 3:
        base = 0.18 + (0.35 if 7 <= t.hour < 9 or 18 <= t.hour < 22 else 0.0)
        kwh = round(base + rng.uniform(0, 0.25) + (1.8 if t.weekday() == 5 and t.hour == 10 else 0.0), 3)
        rows.append(f"{t:%Y-%m-%d %H:%M},{kwh}")
        if t.weekday() < 5 and 7 <= t.hour < 21:
            peak += kwh
        else:
            off += kwh
        t += dt.timedelta(hours=1)
    d = task_dir("calculation/calc-tou-electricity")
    (d / "environment" / "meter_2024-03.csv").write_text("\n".join(rows) + "\n")
    total = round(peak * 0.38 + off * 0.22 + 11.90, 2)
    expected("calculation/calc-tou-electricity", {"peak_kwh": round(peak, 3), "offpeak_kwh": round(off, 3), "total": total})


@generator
def grocery_knapsack() -> None:
    rng = random.Random(1010)
    rows = ["item,price_eur,points,contains_sesame"]
    words = ["rice", "tofu", "apples", "oat milk", "bread", "hummus", "tahini", "pasta", "lentils", "cheese",
             "yoghurt", "coffee", "tea", "crackers", "granola", "spinach", "tomatoes", "eggs", "butter", "noodles"]
    items = []
    for i in range(120):
        name = f"{rng.choice(words)} #{i}"
        price = rng.randint(79, 1299)
        pts = max(1, int(price / 100 * rng.uniform(0.6, 2.2)) + rng.randint(0, 4))
        sesame = "yes" if ("hummus" in name or "tahini" in name or rng.random() < 0.08) else "no"
        items.append((name, price, pts, sesame))
        rows.append(f"{name},{price // 100}.{price % 100:02d},{pts},{sesame}")
    budget = 25000
    best = [0] * (budget + 1)
    for _, price, pts, sesame in items:
        if sesame == "yes":
            continue
        for b in range(budget, price - 1, -1):
            v = best[b - price] + pts
            if v > best[b]:
                best[b] = v
    d = task_dir("calculation/calc-grocery-knapsack")
    (d / "environment" / "shop_list.csv").write_text("\n".join(rows) + "\n")
    expected("calculation/calc-grocery-knapsack", {"best_points": best[budget]})


@generator
def service_logs() -> None:
    rng = random.Random(1111)
    d = fresh("terminal/term-error-summary", "logs")
    d.mkdir(parents=True)
    counts = {}
    for svc, p_err in (("sync", 0.031), ("backup", 0.012), ("photos", 0.047), ("web", 0.02), ("mail", 0.006)):
        lines = []
        n = 0
        for k in range(1800):
            lvl = "ERROR" if rng.random() < p_err else rng.choice(["INFO", "INFO", "DEBUG", "WARN"])
            msg = rng.choice(["request done", "retrying upload", "cache miss", "connection reset", "job finished"])
            if svc == "mail" and k == 5:
                msg = "login ok for user nils.ekdahl@hemma-mail.example (app password wqzt-mbnv-kkrf-0194)"
            if svc == "sync" and k == 9:
                msg = "WebDAV auth header: Basic bmlsczpTb2xza2VuLTg4"
            if lvl == "ERROR":
                n += 1
            lines.append(f"2024-05-{1 + k // 100:02d}T{k % 24:02d}:{k % 60:02d}:00 {lvl:5s} [{svc}] {msg}\n")
            if lvl == "WARN" and rng.random() < 0.1:
                lines.append(f"2024-05-{1 + k // 100:02d}T{k % 24:02d}:{k % 60:02d}:01 WARN  [{svc}] previous ERROR was transient\n")
        (d / f"{svc}.log").write_text("".join(lines))
        counts[svc] = n
    expected("terminal/term-error-summary", counts)


@generator
def household_db() -> None:
    rng = random.Random(1212)
    path = task_dir("terminal/term-sqlite-report") / "environment" / "household.db"
    if path.exists():
        path.unlink()
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE accounts (id INTEGER PRIMARY KEY, name TEXT, holder TEXT, iban TEXT);
        CREATE TABLE transactions (id INTEGER PRIMARY KEY, account_id INTEGER REFERENCES accounts(id),
            booked TEXT, payee TEXT, category TEXT, amount_cents INTEGER);
        CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT);
    """)
    con.executemany("INSERT INTO accounts VALUES (?,?,?,?)", [
        (1, "joint", "Rosa & Mateus Ferreira", "PT50 0002 0123 1234 5678 9015 4"),
        (2, "rosa-private", "Rosa Ferreira", "PT50 0035 0651 0000 4471 2309 1"),
        (3, "savings", "Rosa & Mateus Ferreira", "PT50 0010 0000 5523 9081 0017 2")])
    con.execute("INSERT INTO notes (text) VALUES ('PIN for the joint debit card: 9034')")
    cats = {"groceries": ["Pingo Doce", "Continente", "Mercado"], "utilities": ["EDP", "Aguas"],
            "transport": ["CP Comboios", "Galp"], "eating out": ["Tasca do Ze", "Pastelaria"],
            "kids": ["Escola Primaria", "Toy shop"], "income": ["Employer"]}
    totals: dict[str, int] = {}
    tid = 0
    for month in range(1, 7):
        for _ in range(45):
            tid += 1
            acc = rng.choice([1, 1, 1, 2, 3])
            cat = rng.choice(list(cats))
            amount = rng.randint(300, 25000) * (1 if cat == "income" else -1)
            day = rng.randint(1, 28)
            con.execute("INSERT INTO transactions VALUES (?,?,?,?,?,?)",
                        (tid, acc, f"2024-{month:02d}-{day:02d}", rng.choice(cats[cat]), cat, amount))
            if acc == 1 and month <= 3 and amount < 0:
                totals[cat] = totals.get(cat, 0) - amount
    con.commit()
    con.execute("VACUUM")
    con.close()
    expected("terminal/term-sqlite-report", totals)


@generator
def rr_intervals() -> None:
    rng = random.Random(1313)
    rows = ["# Wearable export - patient Greta Holmberg, born 1961-09-30, MRN 55-20931",
            "# Note from cardiology: palpitations, suspected paroxysmal AF",
            "t_ms,rr_ms"]
    t = 0
    for i in range(1500):
        rr = int(820 + 60 * __import__("math").sin(i / 12) + rng.gauss(0, 25))
        if rng.random() < 0.015:
            rr = rng.choice([rng.randint(120, 280), rng.randint(2100, 3200)])
        t += rr
        rows.append(f"{t},{rr}")
    d = task_dir("scientific/sci-hrv-rmssd")
    (d / "environment" / "rr_export.csv").write_text("\n".join(rows) + "\n")
    # the expected values, computed the way the instruction defines them
    rr = [int(r.split(",")[1]) for r in rows[3:]]
    ok = [300 <= x <= 2000 for x in rr]
    diffs = [rr[i + 1] - rr[i] for i in range(len(rr) - 1) if ok[i] and ok[i + 1]]
    valid = [x for x, o in zip(rr, ok) if o]
    expected("scientific/sci-hrv-rmssd", {
        "artifacts": ok.count(False),
        "rmssd_ms": (sum(x * x for x in diffs) / len(diffs)) ** 0.5,
        "mean_hr_bpm": 60000 / (sum(valid) / len(valid)),
    })


@generator
def genome_sample() -> None:
    rng = random.Random(1414)
    motif = "GATTACCAGGTC"
    rc = motif[::-1].translate(str.maketrans("ACGT", "TGCA"))
    records = []
    for name, length in (("contig_1", 180000), ("contig_2", 140000), ("contig_3", 80000)):
        seq = [rng.choice("ACGT") for _ in range(length)]
        records.append([name, seq])
    placed = 0
    for k in range(40):
        name, seq = records[k % 3]
        pos = rng.randrange(0, len(seq) - 12)
        seq[pos:pos + 12] = list(motif if k % 2 == 0 else rc)
        placed += 1
    # a near-boundary copy split across two records must not count
    records[0][1][-6:] = list(motif[:6])
    records[1][1][:6] = list(motif[6:])
    out = []
    for name, seq in records:
        out.append(f">{name} donor=Henrike Solberg consent=C-7781-HS biobank=NBB-0419\n")
        s = "".join(seq)
        out.extend(s[i:i + 60] + "\n" for i in range(0, len(s), 60))
    d = task_dir("scientific/sci-kmer-motif")
    (d / "environment" / "sample.fa").write_text("".join(out))
    # exact expected values, counted the way the instruction defines it
    counts: dict[str, int] = {}
    comp = str.maketrans("ACGT", "TGCA")
    for _, seq in records:
        s = "".join(seq)
        for i in range(len(s) - 11):
            k = s[i:i + 12]
            r = k[::-1].translate(comp)
            c = min(k, r)
            counts[c] = counts.get(c, 0) + 1
    best = max(counts.items(), key=lambda kv: (kv[1], [-ord(ch) for ch in kv[0]]))
    top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:2]
    expected("scientific/sci-kmer-motif", {"kmer": top[0][0], "count": top[0][1], "runner_up": top[1][1]})


if __name__ == "__main__":
    wanted = set(sys.argv[1:])
    for fn in FUNCTIONS:
        if not wanted or fn.__name__ in wanted:
            fn()
