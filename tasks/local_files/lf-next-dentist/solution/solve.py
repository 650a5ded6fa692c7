from datetime import datetime, timedelta, timezone
from pathlib import Path

BERLIN_SUMMER = timezone(timedelta(hours=2))  # CEST applies to the dates in May
today = datetime(2024, 5, 6, tzinfo=BERLIN_SUMMER)
best = None
for block in Path("calendar.ics").read_text().split("BEGIN:VEVENT")[1:]:
    fields = {}
    for line in block.splitlines():
        if ":" in line:
            key, value = line.split(":", 1)
            fields[key.split(";")[0]] = (key, value)
    if "dentist" not in fields.get("SUMMARY", ("", ""))[1].lower() or fields.get("STATUS", ("", ""))[1] == "CANCELLED":
        continue
    key, value = fields["DTSTART"]
    when = datetime.strptime(value.rstrip("Z"), "%Y%m%dT%H%M%S")
    when = when.replace(tzinfo=timezone.utc if value.endswith("Z") else BERLIN_SUMMER).astimezone(BERLIN_SUMMER)
    if when > today and (best is None or when < best):
        best = when
print(best.strftime("date=%Y-%m-%d\ntime=%H:%M"))
