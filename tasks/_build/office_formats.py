"""Writers for the office files of the office tasks: xlsx via openpyxl, docx via python-docx, odt by hand.

The build scripts run on the developer's machine (openpyxl and python-docx are dev dependencies);
the files they produce are real office documents that LibreOffice, Excel and Word open, and that
an agent in the sandbox parses with the standard library (zipfile + xml), since the sandbox has
neither library.

Two things the libraries do not do are added after saving, so the committed files stay
byte-for-byte reproducible and read like files saved by an office suite:

- every zip member gets a fixed timestamp, and the document's modification time is fixed;
- a formula cell gets its cached result (``<v>``), as Excel and LibreOffice store it: openpyxl
  writes formulas without results, and a reader that does not evaluate formulas (the stdlib
  parser an agent writes) depends on the cached value.

There is no odt library among the dev dependencies, so ``write_odt`` stays a small stdlib writer.
"""

import datetime
import io
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

import docx
import openpyxl

FIXED = (2024, 1, 1, 0, 0, 0)  # reproducible zip timestamps
FIXED_TIME = datetime.datetime(*FIXED)

Cell = str | int | float | None | tuple[str, float]
"""An xlsx cell: text, a number, empty, or ("=FORMULA", cached result)."""


@dataclass(frozen=True)
class Paragraph:
    """One docx paragraph; ``style`` is a built-in style name such as "Title" or "Heading 1"."""

    text: str
    style: str | None = None


@dataclass(frozen=True)
class Table:
    """One docx table of plain-text cells, first row included as written."""

    rows: list[list[str]]


def _fixed_zip(data: bytes, rewrite: dict[str, str] | None = None) -> bytes:
    """The same zip with fixed member timestamps and, for the named members, replaced text."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w") as dst:
        for item in src.infolist():
            body = src.read(item)
            if rewrite and item.filename in rewrite:
                body = rewrite[item.filename].encode()
            info = zipfile.ZipInfo(item.filename, FIXED)
            info.compress_type = zipfile.ZIP_STORED if item.filename == "mimetype" else zipfile.ZIP_DEFLATED
            dst.writestr(info, body)
    return out.getvalue()


def _fixed_core_times(xml: str) -> str:
    stamp = FIXED_TIME.strftime("%Y-%m-%dT%H:%M:%SZ")
    return re.sub(r"(<dcterms:(?:created|modified)\b[^>]*>)[^<]*(</dcterms:)", rf"\g<1>{stamp}\g<2>", xml)


def write_xlsx(path: Path, sheets: dict[str, list[list[Cell]]]) -> None:
    """Write a workbook: sheet name -> rows; a cell is text, a number, None, or ("=FORMULA", cached)."""
    wb = openpyxl.Workbook()
    wb.remove(wb.active)
    cached: dict[tuple[int, str], float] = {}
    for index, (name, rows) in enumerate(sheets.items(), 1):
        ws = wb.create_sheet(name)
        for r, row in enumerate(rows, 1):
            for c, value in enumerate(row, 1):
                if value is None or value == "":
                    continue  # an empty string is an empty cell (openpyxl would write a bare inlineStr)
                cell = ws.cell(row=r, column=c)
                if isinstance(value, tuple):
                    formula, result = value
                    cell.value = "=" + formula.lstrip("=")
                    cached[(index, cell.coordinate)] = result
                else:
                    cell.value = value
    wb.properties.created = FIXED_TIME
    buf = io.BytesIO()
    wb.save(buf)
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as zf:
        rewrite = {"docProps/core.xml": _fixed_core_times(zf.read("docProps/core.xml").decode())}
        for index in range(1, len(sheets) + 1):
            member = f"xl/worksheets/sheet{index}.xml"
            xml = zf.read(member).decode()
            for (sheet, ref), result in cached.items():
                if sheet == index:
                    xml, n = re.subn(
                        rf'(<c r="{ref}"[^>]*><f>[^<]*</f>)<v\s*/?>(?:</v>)?', rf"\g<1><v>{result}</v>", xml
                    )
                    if n != 1:
                        raise RuntimeError(f"formula cell {ref} of sheet {index} not found in the saved xml")
            rewrite[member] = xml
    path.write_bytes(_fixed_zip(buf.getvalue(), rewrite))


def write_docx(path: Path, blocks: list[Paragraph | Table]) -> None:
    """Write a Word document of paragraphs (one run each) and plain tables."""
    document = docx.Document()
    for block in blocks:
        if isinstance(block, Paragraph):
            document.add_paragraph(block.text, style=block.style)
        else:
            table = document.add_table(rows=len(block.rows), cols=max(len(r) for r in block.rows))
            for r, row in enumerate(block.rows):
                for c, text in enumerate(row):
                    table.cell(r, c).text = text
    buf = io.BytesIO()
    document.save(buf)
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as zf:
        core = _fixed_core_times(zf.read("docProps/core.xml").decode())
    path.write_bytes(_fixed_zip(buf.getvalue(), {"docProps/core.xml": core}))


def write_odt(path: Path, paragraphs: list[tuple[str, str]]) -> None:
    """paragraphs: (kind, text) with kind 'h' (heading), 'p' (paragraph) or 'li' (list item)."""
    parts = []
    for kind, text in paragraphs:
        t = escape(text)
        if kind == "h":
            parts.append(f'<text:h text:outline-level="1">{t}</text:h>')
        elif kind == "li":
            parts.append(f"<text:list><text:list-item><text:p>{t}</text:p></text:list-item></text:list>")
        else:
            parts.append(f"<text:p>{t}</text:p>")
    content = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
        'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.3">'
        "<office:body><office:text>"
        + "".join(parts)
        + "</office:text></office:body></office:document-content>"
    )
    manifest = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3">'
        '<manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/>'
        '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>'
        "</manifest:manifest>"
    )
    with zipfile.ZipFile(path, "w") as zf:
        for name, text in (
            ("mimetype", "application/vnd.oasis.opendocument.text"),
            ("META-INF/manifest.xml", manifest),
            ("content.xml", content),
        ):
            info = zipfile.ZipInfo(name, FIXED)
            info.compress_type = zipfile.ZIP_STORED if name == "mimetype" else zipfile.ZIP_DEFLATED
            zf.writestr(info, text)
