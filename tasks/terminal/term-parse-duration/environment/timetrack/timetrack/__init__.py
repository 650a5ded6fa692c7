from timetrack.duration import parse_duration

__all__ = ["parse_duration"]
