"""Durations as people type them into my time tracker."""


def parse_duration(text):
    """Parse a duration and return whole seconds (int).

    Accepted forms (case-insensitive, surrounding whitespace ignored):
      * unit groups in the order h, m, s, each optional but at least one present, with optional
        spaces between groups and between number and unit; units may be written
        h/hr/hrs/hour/hours, m/min/mins/minute/minutes, s/sec/secs/second/seconds;
        numbers may be decimal ("1.5h" = 5400, "0.25 hours" = 900): e.g. "1h30m", "90m",
        "1 h 30 min", "2 hours 5 seconds", "45s"
      * clock form "H:MM" (hours:minutes) or "H:MM:SS", minutes and seconds two digits < 60
      * ISO 8601 "PT#H#M#S" (each part optional, at least one), e.g. "PT1H30M", "pt45s"
      * a bare number means minutes: "25" = 1500
    The result is rounded to the nearest second. Anything else - including negative numbers,
    empty strings, repeated or out-of-order units - raises ValueError.
    """
    raise NotImplementedError
