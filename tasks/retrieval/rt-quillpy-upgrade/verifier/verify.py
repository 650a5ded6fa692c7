"""Verifier for rt-quillpy-upgrade: calls removed by quillpy 2.4.0 replaced, deprecated ones kept.

Removed by 2.4.0 (corpus release notes): render_markup (2.2.0 -> render_html), load_theme
(2.3.0 -> theme.load) and parse_front_matter (2.4.0 -> read_meta); slugify_title is only
deprecated in 2.4.0 and must stay. build.py is compared by syntax tree (comments, formatting
and the module docstring may differ) with the harness's pristine draft after exactly those
replacements, so a replacement mentioned only in a comment or with changed arguments fails.
"""

import ast
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import Fail, Field, answer, fields, main, pristine_path, read_text

REPLACED = {"render_markup": "render_html", "load_theme": "theme.load", "parse_front_matter": "read_meta"}


HEDGE = re.compile(r"\b(or|maybe|perhaps|possibly|probably|either|unsure)\b|\?", re.IGNORECASE)


class NameList(Field):
    """A list of function names ('render_markup(), quillpy.load_theme and parse_front_matter')
    -> sorted bare names; a hedge ('maybe', 'or', '?') fails."""

    def parse(self, raw: str) -> tuple[str, ...]:
        if HEDGE.search(raw):  # checked before notes in parentheses are dropped
            raise Fail(f"hedged answer {raw.strip()!r}")
        value = re.sub(r"\([^()]*\)", "", str(super().parse(raw)).replace("()", ""))  # '(use render_html)'
        value = re.sub(r"\s*(?:->|→)\s*[\w.]+", "", value)  # 'render_markup -> render_html'
        names = [
            re.sub(r"^quillpy\.|\(\)$", "", n.strip(" .`'\"")) for n in re.split(r",|;|\band\b|&", value)
        ]
        return tuple(sorted(n for n in names if n))


def tree(source: str, label: str) -> str:
    """The module's syntax tree without its docstring, as a comparable string."""
    try:
        module = ast.parse(source)
    except SyntaxError as exc:
        raise Fail(f"{label} does not parse: {exc.msg} (line {exc.lineno})") from None
    body = module.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return ast.dump(ast.Module(body=body, type_ignores=[]))


def check() -> str:
    requirements = [line.strip() for line in read_text("site/requirements.txt").splitlines() if line.strip()]
    if requirements != ["quillpy==2.4.0"]:
        raise Fail(f"site/requirements.txt is {requirements[:3]}, expected ['quillpy==2.4.0']")
    draft = pristine_path("site/build.py").read_text(encoding="utf-8")
    for old, new in REPLACED.items():
        draft = draft.replace(f"quillpy.{old}(", f"quillpy.{new}(")
    if tree(read_text("site/build.py"), "site/build.py") != tree(draft, "the expected build.py"):
        raise Fail(
            "site/build.py is not the original with exactly the removed calls replaced (same arguments)"
        )
    got = fields(answer(), {"removed": NameList()})["removed"]
    if got != tuple(sorted(REPLACED)):
        raise Fail(f"removed={', '.join(got)}, expected exactly {', '.join(REPLACED)}")
    return "upgrade to quillpy 2.4.0 done"


main(check)
