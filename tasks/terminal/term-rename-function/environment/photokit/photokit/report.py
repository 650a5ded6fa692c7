from photokit import exif


def oldest(metas):
    dates = [d for d in (exif.get_exif_date(m) for m in metas) if d]
    return min(dates) if dates else None
