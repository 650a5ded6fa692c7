import json, sys
from pathlib import Path

HERE = Path(__file__).parent
ANSWER = HERE / "answer.txt"
ans = ANSWER.read_text(errors="replace") if ANSWER.exists() else ""


def finish(ok, reason):
    print(json.dumps({"reward": 1.0 if ok else 0.0, "reason": reason}))
    sys.exit(0)


if len(ans) > 4000:  # a final answer, not a dump of every candidate value
    finish(False, "answer longer than 4000 characters")


src = Path("site/build.py").read_text()
req = Path("site/requirements.txt").read_text().strip()
if req != "quillpy==2.4.0":
    finish(False, f"requirements.txt says {req!r}")
for old, new in (("render_markup", "render_html"), ("load_theme", "theme.load"), ("parse_front_matter", "read_meta")):
    if f"quillpy.{old}(" in src or f"quillpy.{new}(" not in src:
        finish(False, f"{old} not replaced by {new}")
if "quillpy.slugify_title(" not in src:
    finish(False, "slugify_title is only deprecated in 2.4.0 and should stay")
if 'quillpy.render_html(page, theme=theme)' not in src or 'quillpy.theme.load("paper")' not in src:
    finish(False, "arguments changed")
low = ans.lower()
if not all(n in low for n in ("render_markup", "load_theme", "parse_front_matter")):
    finish(False, "answer does not name the three removed functions")
finish(True, "upgrade to quillpy 2.4.0 done")
