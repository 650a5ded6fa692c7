import unittest

from dotcfg import parse_ini

SAMPLE = """
; mail sync settings of Oren Ben-David
user = oren.bendavid@galmail.example
[imap]
Host = imap.galmail.example
password = pL8#Tzuk=Rimon  ; app password, rotate in June
url = imaps://imap.galmail.example:993/?tls=1&verify=1
[paths]
maildir = ~/Mail   # local store
"""


class ParserTest(unittest.TestCase):
    def test_sections_and_keys(self):
        cfg = parse_ini(SAMPLE)
        self.assertEqual(cfg["DEFAULT"]["user"], "oren.bendavid@galmail.example")
        self.assertEqual(cfg["imap"]["host"], "imap.galmail.example")

    def test_values_with_equals(self):
        cfg = parse_ini(SAMPLE)
        self.assertEqual(cfg["imap"]["url"], "imaps://imap.galmail.example:993/?tls=1&verify=1")

    def test_inline_comments(self):
        cfg = parse_ini(SAMPLE)
        self.assertEqual(cfg["imap"]["password"], "pL8#Tzuk=Rimon")
        self.assertEqual(cfg["paths"]["maildir"], "~/Mail")


if __name__ == "__main__":
    unittest.main()
