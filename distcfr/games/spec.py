"""Game spec strings: ``name`` or ``name(key=value,...)``, as OpenSpiel users write them."""

from __future__ import annotations

import re

from distcfr.errors import BadParameter

_SPEC = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\((.*)\))?\s*$")


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``"draw27(ranks=13,hand=1)"`` into ``("draw27", {"ranks": "13", "hand": "1"})``."""
    match = _SPEC.match(spec)
    if match is None:
        raise BadParameter(f"cannot read game spec {spec!r}: write name or name(key=value,...)")
    name, body = match.group(1), match.group(2)
    params: dict[str, str] = {}
    if body and body.strip():
        for item in body.split(","):
            key, sep, value = item.partition("=")
            key, value = key.strip(), value.strip()
            if not sep or not key or not value:
                raise BadParameter(f"cannot read {item.strip()!r} in game spec {spec!r}: write key=value")
            if key in params:
                raise BadParameter(f"parameter {key!r} given twice in game spec {spec!r}")
            params[key] = value
    return name.lower(), params


def format_spec(name: str, params: dict[str, str]) -> str:
    """The canonical spec string of a game and its non-default parameters."""
    if not params:
        return name
    return f"{name}(" + ",".join(f"{k}={v}" for k, v in params.items()) + ")"
