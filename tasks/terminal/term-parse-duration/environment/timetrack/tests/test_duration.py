import unittest

from timetrack import parse_duration


class DurationTest(unittest.TestCase):
    def test_units(self):
        self.assertEqual(parse_duration("1h30m"), 5400)
        self.assertEqual(parse_duration("45s"), 45)

    def test_clock(self):
        self.assertEqual(parse_duration("1:30"), 5400)

    def test_iso(self):
        self.assertEqual(parse_duration("PT1H30M"), 5400)

    def test_invalid(self):
        with self.assertRaises(ValueError):
            parse_duration("soon")


if __name__ == "__main__":
    unittest.main()
