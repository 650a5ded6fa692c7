from pathlib import Path

p = Path("crontab.txt")
text = p.read_text().replace(
    "30 14 * * 0 /home/anna/bin/backup.sh", "30 2 * * * /home/anna/scripts/backup.sh"
)
p.write_text(text)
print("problem=script_path\nproblem=schedule")
