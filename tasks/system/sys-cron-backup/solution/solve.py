from pathlib import Path

p = Path("crontab.txt")
text = p.read_text().replace(
    "30 14 * * 0 /home/anna/bin/backup.sh", "30 2 * * * /home/anna/scripts/backup.sh"
)
p.write_text(text)
print("The entry ran only on Sundays at 14:30 and pointed to /home/anna/bin/backup.sh, a path "
      "that does not exist; the script is /home/anna/scripts/backup.sh. Now: 30 2 * * *.")
