from dotcfg.parser import parse_ini

__all__ = ["parse_ini"]
