# Release notes https://corpus.local/quillpy/changelog-2.2.0 .. -2.4.0: removed render_markup
# (2.2.0, use render_html), load_theme (2.3.0, use theme.load), parse_front_matter (2.4.0, use read_meta).
from pathlib import Path

p = Path("site/build.py")
src = p.read_text()
for old, new in (("render_markup", "render_html"), ("load_theme", "theme.load"), ("parse_front_matter", "read_meta")):
    src = src.replace(f"quillpy.{old}(", f"quillpy.{new}(")
p.write_text(src)
Path("site/requirements.txt").write_text("quillpy==2.4.0\n")
print("removed=render_markup, load_theme, parse_front_matter")
