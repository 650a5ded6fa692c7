"""Read the capture date from a (simplified) metadata dictionary."""
from datetime import datetime


def get_exif_date(meta):
    """The DateTimeOriginal of a photo as a datetime, or None."""
    raw = meta.get("DateTimeOriginal")
    if not raw:
        return None
    return datetime.strptime(raw, "%Y:%m:%d %H:%M:%S")
