"""Reading printed figures back: whether a printed number is a value as the code rounds it."""


def shown(text: str, value: float) -> bool:
    """Whether ``text`` is ``value`` as printed: the same digits, in its notation (exploitability
    below 0 shows as 0)."""
    value = max(value, 0.0)
    if "e" in text:
        return text == f"{value:.2e}"
    decimals = len(text.split(".")[1]) if "." in text else 0
    return text == f"{value:.{decimals}f}"
