"""Verifier for rt-router-admin-port: the admin port after a factory reset for Kestrel R7 fw 4.2.

The corpus page lists 7443 for firmware 4.1 and 8011 for 4.2 (the router runs 4.2.118); the
router's settings export must be left as it was.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import Fail, Number, answer, check_files, fields, main, read_text

PORT = 8011
CONF = {"router.conf": "c1dfe626e3de59478723eb948f333b9a07a6b6995a815bf0048fc9d060ccacb2"}


def check() -> str:
    check_files(unchanged=CONF)
    lines = [line.strip() for line in read_text("admin_url.txt").splitlines() if line.strip()]
    if lines != [f"https://192.168.8.1:{PORT}/"]:
        raise Fail(f"admin_url.txt has {lines[:3]}, expected the single line https://192.168.8.1:{PORT}/")
    got = fields(answer(), {"port": Number()})["port"]
    if got != PORT:
        raise Fail(f"port={got}, expected {PORT}")
    return f"port {PORT}"


main(check)
