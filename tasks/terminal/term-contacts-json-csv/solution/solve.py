import csv
import json

data = json.load(open("contacts.json"))
rows = []
for c in data["contacts"]:
    phones = c["phones"]
    mobile = [p["number"] for p in phones if p["type"] == "mobile"]
    phone = mobile[0] if mobile else (phones[0]["number"] if phones else "")
    rows.append((c["name"]["last"], [f"{c['name']['first']} {c['name']['last']}", (c["emails"] or [""])[0], phone,
                                     c["address"].get("city", "")]))
rows.sort()
with open("contacts.csv", "w", newline="") as fh:
    w = csv.writer(fh, lineterminator="\n")
    w.writerow(["name", "email", "phone", "city"])
    w.writerows(r for _, r in rows)
print(f"no_email={sum(1 for c in data['contacts'] if not c['emails'])}")
