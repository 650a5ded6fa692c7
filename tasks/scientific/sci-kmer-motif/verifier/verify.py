"""Grade sci-kmer-motif.

The most frequent canonical 12-mer and its count were computed when the sample was generated
(expected.json): GACCTGGTAATC x40. Reporting the planted motif in its other orientation
(GATTACCAGGTC), counting one orientation only (about 20) or a window across two records (41)
are the mistakes this tests. ``top_kmer.txt`` must read ``<kmer> <count>`` and the answer
``kmer=<12-mer>`` and ``count=<n>``. The FASTA file must be left as it was.
"""

import hashlib
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import (
    Fail,
    Number,
    Text,
    answer,
    check_files,
    expect,
    fields,
    main,
    pristine_path,
    read_text,
)

FASTA = "sample.fa"
SPEC = {"kmer": Text(), "count": Number(units=("times", "occurrences", "x"))}


def check() -> str:
    want = json.loads((Path(__file__).parent / "expected.json").read_text())
    check_files(unchanged={FASTA: hashlib.sha256(pristine_path(FASTA).read_bytes()).hexdigest()})
    parts = read_text("top_kmer.txt").split()
    if len(parts) != 2 or parts[0].upper() != want["kmer"] or not re.fullmatch(r"\d+", parts[1]):
        raise Fail(f"top_kmer.txt reads {' '.join(parts)[:60]!r}, expected '{want['kmer']} {want['count']}'")
    if int(parts[1]) != want["count"]:
        raise Fail(f"top_kmer.txt count {parts[1]}, expected {want['count']}")
    got = fields(answer(), SPEC)
    if not re.fullmatch(r"[acgt]{12}", str(got["kmer"])):
        raise Fail(f"kmer={got['kmer']!r} is not one 12-mer")
    return expect(got, {"kmer": want["kmer"], "count": want["count"]}, SPEC)


main(check)
