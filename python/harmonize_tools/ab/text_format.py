"""Numbers and fixed-width tables as harmonize-ab's text shows them."""
import math

NUMBER_WIDTH = 10  # characters: 9999999.99 us, a ratio of 999999.999


def fit_number(value, decimals, width=NUMBER_WIDTH):
    """Fixed decimals when they fit in `width` characters, else exponent
    notation: a benchmark that prints 1e308 would otherwise make a column
    309 digits wide."""
    text = f"{value:.{decimals}f}"
    return text if len(text) <= width or not math.isfinite(value) else f"{value:.2e}"


def ratio_text(value, decimals):
    """Fixed decimals in the usual range; significant digits below it, where
    a disturbed run can push a ratio to 1e-4 (fixed decimals would say 0)."""
    return fit_number(value, decimals) if abs(value) >= 0.01 or value == 0 else f"{value:.{decimals}g}"


def human_seconds(value):
    """1.5e-7 -> '150 ns', 2.5e-5 -> '25.0 us' (ASCII, like the library's summary)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    magnitude = abs(value)
    if magnitude == 0:
        return "0"
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "us")):
        if magnitude >= scale:
            return f"{value / scale:.3g} {unit}"
    return f"{value / 1e-9:.3g} ns"


def format_us(value):
    if value is None:
        return "-"
    return fit_number(value, 2) if value < 1000 else fit_number(value, 0)


def format_table(header, rows, align=None):
    """Fixed-width text table; `align` holds '<' or '>' per column."""
    cells = [[str(c) for c in header]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    align = align or ["<"] + [">"] * (len(header) - 1)
    lines = []
    for number, row in enumerate(cells):
        lines.append("  ".join(f"{cell:{a}{w}}" for cell, a, w in zip(row, align, widths)).rstrip())
        if number == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)
