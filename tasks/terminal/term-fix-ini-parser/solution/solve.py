from pathlib import Path

p = Path("dotcfg/dotcfg/parser.py")
src = p.read_text()
src = src.replace(
    '''        parts = line.split("=")
        key, value = parts[0], parts[1]
''',
    '''        line = re.split(r"\\s[;#]", line, maxsplit=1)[0]
        key, _, value = line.partition("=")
''')
p.write_text("import re\n\n" + src if not src.startswith("import re") else src)
print("fix=Values are now split at the first '=' only and inline comments (' ;' / ' #') are stripped.")
