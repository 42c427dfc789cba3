"""Game spec strings: ``name`` or ``name(key=value,...)``, as OpenSpiel users write them."""

from __future__ import annotations

import re

from distcfr.errors import BadParameter

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
MAX_SPEC_CHARS = 4096  # far beyond any real spec; a longer one is refused before it is parsed


def shown(spec: str, limit: int = 80) -> str:
    """A spec as quoted in a message: at most ``limit`` characters of it."""
    return repr(spec) if len(spec) <= limit else repr(spec[:limit]) + f"... ({len(spec):,} characters)"


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``"draw27(ranks=13,hand=1)"`` into ``("draw27", {"ranks": "13", "hand": "1"})``.
    Linear in the length of ``spec`` (no backtracking), and refused above MAX_SPEC_CHARS."""
    if not isinstance(spec, str):
        raise BadParameter(f"a game spec is a string, not {type(spec).__name__}")
    if len(spec) > MAX_SPEC_CHARS:
        raise BadParameter(f"game spec {shown(spec, 40)} is longer than {MAX_SPEC_CHARS} characters")
    text = spec.strip()
    name, paren, rest = text.partition("(")
    name = name.rstrip()
    body = None
    if paren:
        if not rest.endswith(")"):
            name = ""  # unbalanced: refused below
        body = rest[:-1]
    if _NAME.fullmatch(name) is None:
        raise BadParameter(f"cannot read game spec {shown(spec)}: write name or name(key=value,...)")
    params: dict[str, str] = {}
    if body and body.strip():
        for item in body.split(","):
            key, sep, value = item.partition("=")
            key, value = key.strip(), value.strip()
            if not sep or not key or not value:
                raise BadParameter(f"cannot read {shown(item.strip(), 40)} in game spec {shown(spec)}: write key=value")
            if key in params:
                raise BadParameter(f"parameter {shown(key, 40)} given twice in game spec {shown(spec)}")
            params[key] = value
    return name.lower(), params


def format_spec(name: str, params: dict[str, str]) -> str:
    """The canonical spec string of a game and its non-default parameters."""
    if not params:
        return name
    return f"{name}(" + ",".join(f"{k}={v}" for k, v in params.items()) + ")"
