import unittest

from photokit import get_exif_date, target_folder
from photokit.report import oldest

SAMPLE = {"DateTimeOriginal": "2023:08:14 10:02:33", "Artist": "Elif Sahin",
          "GPS": "41.0369 N, 28.9850 E (Galata Kulesi Sk. 12, Istanbul)"}


class PhotokitTest(unittest.TestCase):
    def test_date(self):
        self.assertEqual(get_exif_date(SAMPLE).year, 2023)

    def test_folder(self):
        self.assertEqual(target_folder(SAMPLE), "2023/08")
        self.assertEqual(target_folder({}), "unsorted")

    def test_oldest(self):
        self.assertEqual(oldest([SAMPLE, {"DateTimeOriginal": "2021:01:02 03:04:05"}]).year, 2021)


if __name__ == "__main__":
    unittest.main()
