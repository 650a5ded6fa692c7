from photokit.exif import get_exif_date


def target_folder(meta, default="unsorted"):
    """Folder name YYYY/MM for a photo (get_exif_date decides), or the default."""
    when = get_exif_date(meta)
    return default if when is None else f"{when:%Y/%m}"
