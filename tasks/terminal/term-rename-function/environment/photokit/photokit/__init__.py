from photokit.exif import get_exif_date
from photokit.organize import target_folder

__all__ = ["get_exif_date", "target_folder"]
