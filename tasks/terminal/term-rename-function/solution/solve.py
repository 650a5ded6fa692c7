from pathlib import Path

changed = 0
for p in sorted(Path("photokit").rglob("*.py")):
    text = p.read_text()
    new = text.replace("get_exif_date", "read_capture_date")
    if p.as_posix() == "photokit/photokit/exif.py":
        new = new.rstrip("\n") + "\n\n\nget_exif_date = read_capture_date\n"
    if new != text:
        p.write_text(new)
        changed += 1
print(f"files_changed={changed}")
