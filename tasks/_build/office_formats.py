"""Minimal writers for real office formats with the standard library only (zipfile + XML).

The files open in LibreOffice/Excel/Word: xlsx (shared strings, several sheets, numbers,
optional cached formulas), docx (paragraphs, headings, tables) and odt (paragraphs, lists).
Used by the gen_*.py scripts; agents must parse them with the stdlib too (zipfile + xml).
"""

import zipfile
from pathlib import Path
from xml.sax.saxutils import escape

FIXED = (2024, 1, 1, 0, 0, 0)  # reproducible zip timestamps


def _put(zf: zipfile.ZipFile, name: str, text: str) -> None:
    info = zipfile.ZipInfo(name, FIXED)
    info.compress_type = zipfile.ZIP_DEFLATED
    zf.writestr(info, text)


def col_name(i: int) -> str:
    s = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        s = chr(65 + r) + s
    return s


def write_xlsx(path: Path, sheets: dict[str, list[list[object]]]) -> None:
    """sheets: name -> rows; a cell is str, int/float, None, or ("=FORMULA", cached_value)."""
    strings: list[str] = []
    index: dict[str, int] = {}

    def sid(s: str) -> int:
        if s not in index:
            index[s] = len(strings)
            strings.append(s)
        return index[s]

    sheet_xml = []
    for rows in sheets.values():
        out = []
        for r, row in enumerate(rows, 1):
            cells = []
            for c, v in enumerate(row):
                ref = f"{col_name(c)}{r}"
                if v is None:
                    continue
                if isinstance(v, tuple):
                    cells.append(f'<c r="{ref}"><f>{escape(v[0].lstrip("="))}</f><v>{v[1]}</v></c>')
                elif isinstance(v, str):
                    cells.append(f'<c r="{ref}" t="s"><v>{sid(v)}</v></c>')
                else:
                    cells.append(f'<c r="{ref}"><v>{v}</v></c>')
            out.append(f'<row r="{r}">{"".join(cells)}</row>')
        sheet_xml.append(
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
            '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
            f'<sheetData>{"".join(out)}</sheetData></worksheet>'
        )
    names = list(sheets)
    with zipfile.ZipFile(path, "w") as zf:
        _put(zf, "[Content_Types].xml",
             '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
             '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
             '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
             '<Default Extension="xml" ContentType="application/xml"/>'
             '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
             + "".join(f'<Override PartName="/xl/worksheets/sheet{i + 1}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>' for i in range(len(names)))
             + '<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>'
             '</Types>')
        _put(zf, "_rels/.rels",
             '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
             '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
             '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>'
             '</Relationships>')
        _put(zf, "xl/workbook.xml",
             '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
             '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
             'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>'
             + "".join(f'<sheet name="{escape(n)}" sheetId="{i + 1}" r:id="rId{i + 1}"/>' for i, n in enumerate(names))
             + "</sheets></workbook>")
        _put(zf, "xl/_rels/workbook.xml.rels",
             '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
             '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
             + "".join(f'<Relationship Id="rId{i + 1}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet{i + 1}.xml"/>' for i in range(len(names)))
             + f'<Relationship Id="rId{len(names) + 1}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/>'
             "</Relationships>")
        for i, xml in enumerate(sheet_xml):
            _put(zf, f"xl/worksheets/sheet{i + 1}.xml", xml)
        _put(zf, "xl/sharedStrings.xml",
             '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
             f'<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="{len(strings)}" uniqueCount="{len(strings)}">'
             + "".join(f"<si><t>{escape(s)}</t></si>" for s in strings) + "</sst>")


W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def docx_paragraph(text: str, style: str | None = None) -> str:
    ppr = f'<w:pPr><w:pStyle w:val="{style}"/></w:pPr>' if style else ""
    return f'<w:p>{ppr}<w:r><w:t xml:space="preserve">{escape(text)}</w:t></w:r></w:p>'


def docx_table(rows: list[list[str]]) -> str:
    body = "".join(
        "<w:tr>" + "".join(f"<w:tc>{docx_paragraph(c)}</w:tc>" for c in row) + "</w:tr>" for row in rows
    )
    return f"<w:tbl>{body}</w:tbl>"


def write_docx(path: Path, blocks: list[str]) -> None:
    """blocks: XML fragments from docx_paragraph / docx_table."""
    with zipfile.ZipFile(path, "w") as zf:
        _put(zf, "[Content_Types].xml",
             '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
             '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
             '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
             '<Default Extension="xml" ContentType="application/xml"/>'
             '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
             "</Types>")
        _put(zf, "_rels/.rels",
             '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
             '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
             '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>'
             "</Relationships>")
        _put(zf, "word/document.xml",
             f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:document xmlns:w="{W}"><w:body>'
             + "".join(blocks) + "</w:body></w:document>")


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
        "<office:body><office:text>" + "".join(parts) + "</office:text></office:body></office:document-content>"
    )
    with zipfile.ZipFile(path, "w") as zf:
        info = zipfile.ZipInfo("mimetype", FIXED)
        info.compress_type = zipfile.ZIP_STORED
        zf.writestr(info, "application/vnd.oasis.opendocument.text")
        _put(zf, "META-INF/manifest.xml",
             '<?xml version="1.0" encoding="UTF-8"?>\n'
             '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3">'
             '<manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/>'
             '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>'
             "</manifest:manifest>")
        _put(zf, "content.xml", content)
