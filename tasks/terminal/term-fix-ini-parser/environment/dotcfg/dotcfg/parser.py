"""A small INI reader for my dotfiles: sections, key = value pairs, comments."""


def parse_ini(text):
    """Return {section: {key: value}}.

    Rules: lines starting with ';' or '#' are comments; ' ;' or ' #' (a space before the
    marker) starts an inline comment; keys are lower-cased and stripped; values are stripped
    and may contain '=' characters; keys before any section go to the section "DEFAULT".
    """
    data = {"DEFAULT": {}}
    section = "DEFAULT"
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in ";#":
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
            data.setdefault(section, {})
            continue
        parts = line.split("=")
        key, value = parts[0], parts[1]
        data[section][key.strip().lower()] = value.strip()
    return data
