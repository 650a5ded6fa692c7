"""Generate tasks/_corpus/: the offline web that web_search / web_fetch serve to retrieval tasks.

Every fact in it is invented (fictional products, towns, rules, rates), so a retrieval task's
answer cannot be known without reading the corpus. Deterministic: re-running rewrites the same
documents. Each document is markdown: line 1 ``# Title``, line 2 ``url: https://corpus.local/...``.
Run from the repository root: ``python3 tasks/_build/gen_corpus.py`` (prints the key facts).
"""

import random
import shutil
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "_corpus"
rng = random.Random(2026)
docs: list[tuple[str, str, str]] = []  # (slug, title, body)


def doc(slug: str, title: str, body: str) -> None:
    docs.append((slug, title, body.strip() + "\n"))


# --- routers -------------------------------------------------------------------------------
ROUTERS = ["Kestrel R5", "Kestrel R7", "Kestrel R9", "Osprey Mini", "Osprey Max", "Falcon Home 2", "Heron AX", "Wren Mesh"]
router_facts = {}
for name in ROUTERS:
    for fw in ["4.1", "4.2"]:
        port = rng.choice([8080, 8443, 8181, 9443, 8888, 10443, 7443, 8009]) + (0 if fw == "4.1" else rng.choice([0, 1, 2]))
        hold = rng.randint(5, 30)
        router_facts[(name, fw)] = (port, hold)
    slug = "routers/" + name.lower().replace(" ", "-")
    rows = "\n".join(
        f"| {fw} | {router_facts[(name, fw)][0]} | {router_facts[(name, fw)][1]} s |" for fw in ["4.1", "4.2"]
    )
    doc(slug, f"{name} router: factory reset and admin interface",
        f"""The {name} is a home router by Avian Networks. After a factory reset the web admin
interface is served over HTTPS on a firmware-specific port, and the default login is printed on
the label under the device.

| Firmware | Admin port after reset | Reset button hold time |
|---|---|---|
{rows}

Older firmware (3.x) used port 443. Changing the port later is possible under System > Access.""")

# --- transit fares ---------------------------------------------------------------------------
CITIES = ["Valdmoor", "Brisk Harbour", "Neumarkt am See", "Tallowford", "Oskarvik", "Lisenburg"]
fares = {}
for c in CITIES:
    single = rng.randint(19, 38) / 10
    day = round(single * rng.uniform(2.4, 3.2), 1)
    h72 = round(day * rng.uniform(2.1, 2.7), 1)
    fares[c] = (single, day, h72)
    doc("transit/" + c.lower().replace(" ", "-"), f"{c} public transport fares",
        f"""Fares valid from 1 January 2024 on all trams, buses and ferries of {c}.

- Single ticket (90 minutes): {single:.2f} EUR
- Day pass (until 4 am next day): {day:.2f} EUR
- 72-hour visitor pass: {h72:.2f} EUR
- Children under 6 travel free.

Tickets are sold at machines and in the {c} Transit app.""")

# --- plants ----------------------------------------------------------------------------------
PLANTS = ["Silver Ribbon Fern", "Dwarf Copper Palm", "Moonleaf Ivy", "Crimson Star Begonia", "Desert Lantern Cactus",
          "Blue Mist Sage", "Velvet Arrow Plant", "Golden Thread Pothos", "Marsh Bell Orchid", "Tiger Ripple Peperomia"]
water = {}
for p in PLANTS:
    water[p] = rng.randint(2, 21)
    doc("plants/" + p.lower().replace(" ", "-"), f"Care guide: {p}",
        f"""The {p} is a popular balcony and windowsill plant.

Watering: every {water[p]} days in summer; reduce by half in winter.
Light: {rng.choice(['bright indirect', 'full sun', 'partial shade', 'low light'])}.
Soil: {rng.choice(['peat-free potting mix', 'cactus mix', 'orchid bark', 'loamy compost'])}.""")

# --- appliance error codes -------------------------------------------------------------------
PARTS = ["drain pump filter", "inlet valve", "heating element", "door latch sensor", "circulation pump",
         "water softener unit", "temperature probe", "spray arm bearing", "control board fuse", "aqua-stop hose"]
codes = {}
for model in ["Aurex DW-45", "Aurex DW-60"]:
    lines = []
    for part in PARTS:
        code = f"E-{rng.randint(1000, 9999)}"
        codes[(model, code)] = part
        lines.append(f"| {code} | {part} |")
    doc("support/" + model.lower().replace(" ", "-") + "-error-codes", f"{model} dishwasher error codes",
        f"""Error codes shown on the display of the {model}. The right column names the component
a technician should check or replace first.

| Code | Component |
|---|---|
""" + "\n".join(lines))

# --- warranty policies -----------------------------------------------------------------------
BRANDS = ["Lumora", "Brightwell", "Kettleson", "Vantor", "Sonnel", "Pixaro"]
warranty = {}
for b in BRANDS:
    warranty[b] = rng.choice([12, 18, 24, 30, 36])
    doc("warranty/" + b.lower(), f"{b} limited warranty",
        f"""{b} guarantees its consumer products against manufacturing defects for {warranty[b]} months
from the date of purchase shown on the receipt. Claims must be filed before the warranty period
ends; the last valid claim day is the day before the same calendar day {warranty[b]} months later.
Accidental damage is not covered.""")

# --- library changelog -----------------------------------------------------------------------
funcs = ["render_markup", "load_theme", "parse_front_matter", "slugify_title", "build_index", "collect_assets"]
repl = {"render_markup": "render_html", "load_theme": "theme.load", "parse_front_matter": "read_meta",
        "slugify_title": "make_slug", "build_index": "Index.build", "collect_assets": "gather_static"}
versions = ["2.0.0", "2.1.0", "2.2.0", "2.3.0", "2.4.0", "2.5.0"]
removed = {}
for i, v in enumerate(versions):
    notes = [f"- Performance improvements in the template cache (#{rng.randint(100, 999)})."]
    if i >= 1:
        f = funcs[i - 1]
        notes.append(f"- `{f}()` is deprecated; use `{repl[f]}()` instead. It will be removed in a later release.")
    if i >= 2:
        f = funcs[i - 2]
        removed[f] = v
        notes.append(f"- Removed `{f}()` (deprecated since {versions[i - 1]}); call `{repl[f]}()`.")
    doc(f"quillpy/changelog-{v}", f"quillpy {v} release notes", "\n".join(notes))

# --- home office rules -----------------------------------------------------------------------
tax = {}
for country in ["Verdania", "Ostmark", "Lorvik"]:
    for year in [2023, 2024]:
        rate = rng.choice([4, 5, 6, 7, 8])
        cap = rng.choice([600, 900, 1000, 1260, 1500])
        tax[(country, year)] = (rate, cap)
        doc(f"tax/{country.lower()}-home-office-{year}", f"{country}: home office flat rate {year}",
            f"""For tax year {year}, employees resident in {country} may deduct a flat rate of {rate} EUR for
each day worked entirely from home, up to a maximum of {cap} EUR per year. Days with any work at
the employer's premises do not count. No receipts are needed.""")

# --- exchange rates --------------------------------------------------------------------------
rates = {}
for month in ["2024-01", "2024-02", "2024-03", "2024-04"]:
    rows = []
    for cur in ["USD", "GBP", "CHF", "SEK", "NOK", "PLN"]:
        base = {"USD": 1.08, "GBP": 0.86, "CHF": 0.95, "SEK": 11.3, "NOK": 11.5, "PLN": 4.33}[cur]
        r = round(base * rng.uniform(0.9, 1.1), 4)
        rates[(month, cur)] = r
        rows.append(f"| {cur} | {r} |")
    doc(f"fx/reference-rates-{month}", f"Corpus Central Bank monthly reference rates {month}",
        f"""Monthly reference rates for {month}: units of foreign currency per 1 EUR. Convert an
amount to EUR by dividing it by the rate of the month in which the expense occurred.

| Currency | per 1 EUR |
|---|---|
""" + "\n".join(rows))

# --- islands multi-hop -----------------------------------------------------------------------
ISLANDS = ["Ostrava Minor", "Kelpie Rock", "San Aurelio", "Norrholm", "Isla Venta"]
TOWNS = ["Brunhaven", "Milvik", "Castel Orso", "Tarnby", "Puerto Salma", "Eskdal", "Villa Rosal", "Holmsund"]
COMPOSERS = ["Edda Marhaug", "Tobias Lindqvist", "Aurelia Fonsecca", "Piet Vranckx", "Ines Caldeira"]
towns_pop = {t: rng.randint(2000, 90000) for t in TOWNS}
islands = {}
for isl, comp in zip(ISLANDS, COMPOSERS):
    anthem = f"Song of {isl}"
    town = rng.choice(TOWNS)
    islands[isl] = (anthem, comp, town)
    doc("islands/" + isl.lower().replace(" ", "-"), f"{isl} (island)",
        f"""{isl} is a small self-governing island. Its official anthem is "{anthem}", adopted in
{rng.randint(1890, 1990)}. The island's main industries are fishing and tourism.""")
    doc("music/" + anthem.lower().replace(" ", "-"), f"{anthem} (anthem)",
        f""""{anthem}" is the anthem of {isl}. The music was composed by {comp}; the lyrics are
traditional.""")
    doc("people/" + comp.lower().replace(" ", "-"), f"{comp} (composer)",
        f"""{comp} was a composer and organist, born in the town of {town}. Works include
several hymns and the anthem "{anthem}".""")
for t, pop in towns_pop.items():
    doc("towns/" + t.lower().replace(" ", "-"), f"{t} (town)",
        f"""{t} is a town with a population of {pop} (census 2021). It is known for its harbour festival.""")

# --- recalls ---------------------------------------------------------------------------------
recalls = []
for prod in ["Kettleson KX-2 kettle", "Lumora TL-40 table lamp", "Vantor HB-9 hair dryer", "Sonnel PB-20 power bank",
             "Pixaro CAM-3 baby monitor", "Brightwell HF-1 heater fan"]:
    lo = rng.randint(10000, 60000)
    hi = lo + rng.randint(500, 3000)
    recalls.append((prod, lo, hi))
    doc("recalls/" + prod.split()[1].lower(), f"Safety recall: {prod}",
        f"""Units of the {prod} with serial numbers from SN{lo} to SN{hi} (inclusive) may overheat.
Stop using affected units and contact the manufacturer for a free replacement. Units outside
this range are not affected.""")

# --- background pages (distractors) ------------------------------------------------------------
for i in range(8):
    doc(f"blog/post-{i}", f"Household tips #{i + 1}",
        f"""A short note about {rng.choice(['saving energy', 'storing receipts', 'backing up photos', 'router security', 'balcony plants', 'travel budgets'])}.
Readers often ask about warranty, tram fares, error codes and exchange rates; see the guides.""")


def main() -> None:
    if OUT.exists():
        shutil.rmtree(OUT)
    for slug, title, body in docs:
        p = OUT / (slug + ".md")
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(f"# {title}\nurl: https://corpus.local/{slug}\n\n{body}")
    print(len(docs), "documents")
    print("router Kestrel R7 4.2:", router_facts[("Kestrel R7", "4.2")])
    print("fares Valdmoor:", fares["Valdmoor"])
    print("water:", water)
    print("codes DW-60:", {k[1]: v for k, v in codes.items() if k[0] == "Aurex DW-60"})
    print("warranty:", warranty)
    print("removed:", removed)
    print("tax:", tax)
    print("rates:", rates)
    print("islands:", islands, towns_pop)
    print("recalls:", recalls)


if __name__ == "__main__":
    main()
