"""Parsers for benchmark output: OSU Micro-Benchmarks 7.x collectives (default
and `-f` full format, osu_barrier, the non-blocking osu_i* whose latency is
their "Pure Comm." column), Intel MPI Benchmarks IMB-MPI1 and IMB-NBC tables
(t_pure), and the bundled harmonize-example (which prints OSU-style tables).

Every parser returns a list of `Row`s with times in microseconds. Output that
matches none of the formats, or a table that stops in the middle, raises
`ParseError` with a message that says what was expected and where.
"""
import re
from dataclasses import dataclass, field
from typing import Optional

EXPECTED_FORMATS = (
    "expected an OSU-style table (a '# Size  Avg Latency(us) ...' or '# Avg Latency(us) ...' "
    "header, as printed by OSU 7.x and harmonize-example, or OSU's non-blocking '# Size  "
    "Overall(us) ... Pure Comm.(us) ...') or IMB-MPI1/IMB-NBC tables ('# Benchmarking <name>' "
    "then '#bytes #repetitions t_min[usec] t_max[usec] t_avg[usec]' or '... t_pure[usec] ...')")
# The header of an OSU-style table: blocking (Avg Latency) or non-blocking (Overall).
_OSU_HEADER = re.compile(r"^#\s*(Size\s+)?(Avg Latency\(us\)|Overall\(us\))", re.MULTILINE)


class ParseError(Exception):
    """Benchmark output that cannot be turned into results."""


@dataclass
class Row:
    """One measured point of one benchmark run."""
    benchmark: str
    size: int  # bytes; 0 for benchmarks without a message size (barrier)
    avg_us: float
    min_us: Optional[float] = None
    max_us: Optional[float] = None
    iterations: Optional[int] = None
    processes: Optional[int] = None
    extra: dict = field(default_factory=dict)


@dataclass
class Parsed:
    source: str  # "osu", "imb", "example"
    rows: list


def parse_output(text):
    """Detect the format of `text` and parse it."""
    if re.search(r"Intel\(R\) MPI Benchmarks|^#\s*Benchmarking\s+\S+", text, re.MULTILINE):
        return Parsed("imb", parse_imb(text))
    if _OSU_HEADER.search(text):
        source = "osu" if re.search(r"^#\s*OSU MPI", text, re.MULTILINE) else "example"
        return Parsed(source, parse_osu_style(text))
    if not text.strip():
        raise ParseError("empty benchmark output; " + EXPECTED_FORMATS)
    raise ParseError("unrecognised benchmark output; " + EXPECTED_FORMATS)


# ---------------------------------------------------------------- OSU style

_OSU_TITLE = re.compile(r"^#\s*OSU MPI(?:-\w+)?\s+(?P<name>.+?)\s+(?:Latency\s+)?Test\b")
_NUMBER = re.compile(r"^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$")


def _osu_column(name):
    """Canonical key of an OSU-style column header. A non-blocking benchmark's
    latency is its pure communication time (Overall adds the dummy compute)."""
    lowered = name.lower()
    if lowered == "size":
        return "size"
    if lowered.startswith("avg lat") or lowered.startswith("pure comm"):
        return "avg_us"
    if lowered.startswith("min lat") or lowered.startswith("min comm"):
        return "min_us"
    if lowered.startswith("max lat") or lowered.startswith("max comm"):
        return "max_us"
    if lowered == "iterations":
        return "iterations"
    return name


def _header_names(line):
    """Column names of a '# Size   Avg Latency(us) ...' header (names hold single spaces)."""
    body = line.lstrip("#").strip()
    return [name for name in re.split(r"\s{2,}", body) if name]


def _is_title(line):
    """A benchmark title, as opposed to a '# Datatype: MPI_CHAR.' metadata line."""
    if _OSU_TITLE.match(line):
        return True
    return bool(re.search(r"\bbenchmark\b|\bTest\b", line, re.IGNORECASE))


def _benchmark_name(title):
    """'# OSU MPI Allreduce Latency Test v7.4' -> 'allreduce';
    '# OSU MPI Non-blocking Allreduce Latency Test v7.4' -> 'iallreduce' (the
    library's name of the operation);
    '# harmonize example benchmark: MPI_Allreduce (OSU-style)' -> 'allreduce'."""
    match = _OSU_TITLE.match(title)
    if match:
        name = match.group("name").strip().lower()
        if name.startswith("non-blocking "):
            name = "i" + name[len("non-blocking "):]
        return name.replace(" ", "_")
    match = re.search(r"\bMPI_(\w+)", title)
    if match:
        return match.group(1).lower()
    cleaned = title.lstrip("#").strip()
    cleaned = re.sub(r"\s+v?\d+(\.\d+)*$", "", cleaned)
    return cleaned or "benchmark"


def _check_once(seen, row, line_number):
    """A size appears once per benchmark and process count: a table that
    repeats one would be merged as if another run had measured it."""
    key = (row.benchmark, row.processes, row.size)
    if key in seen:
        processes = f" ({row.processes} processes)" if row.processes else ""
        raise ParseError(f"line {line_number}: size {row.size} of {row.benchmark}{processes} again "
                         f"(first on line {seen[key]}); a size may appear once per benchmark, else its "
                         "runs would be counted twice")
    seen[key] = line_number


def _number(token, line_number, column):
    if not _NUMBER.match(token):
        raise ParseError(f"line {line_number}: {column} is {token!r}, not a number")
    return float(token)


def parse_osu_style(text):
    """OSU collective tables (default and -f, with or without a Size column)."""
    rows = []
    title = None
    columns = None
    names = []
    rows_in_table = 0
    seen = {}
    lines = text.splitlines()
    ends_with_newline = text.endswith("\n")
    for index, line in enumerate(lines):
        line_number = index + 1
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("#"):
            if _OSU_HEADER.match(stripped):
                if columns is not None and rows_in_table == 0:
                    raise ParseError(f"line {line_number}: a new table starts but the previous one "
                                     "(header on an earlier line) has no rows")
                names = _header_names(stripped)
                columns = [_osu_column(name) for name in names]
                rows_in_table = 0
            elif _is_title(stripped):
                title = stripped
                if rows_in_table > 0:
                    columns = None
                    rows_in_table = 0
            continue
        if columns is None:
            continue  # text before any table (launcher chatter, warnings)
        tokens = stripped.split()
        last_line = index == len(lines) - 1
        if len(tokens) != len(columns):
            cut = " (output ends here: truncated?)" if last_line and not ends_with_newline else ""
            raise ParseError(f"line {line_number}: {len(tokens)} fields, the header has "
                             f"{len(columns)} ({', '.join(names)}){cut}: {stripped!r}")
        values = {}
        extra = {}
        for column, name, token in zip(columns, names, tokens):
            if column in ("size", "iterations"):
                if not token.isdigit():
                    raise ParseError(f"line {line_number}: {name} is {token!r}, not an integer")
                values[column] = int(token)
            elif column in ("avg_us", "min_us", "max_us"):
                values[column] = _number(token, line_number, name)
            else:
                extra[column] = token
        if last_line and not ends_with_newline:
            raise ParseError(f"line {line_number}: the output ends in the middle of a row "
                             f"(truncated): {stripped!r}")
        rows.append(Row(benchmark=_benchmark_name(title or "benchmark"), size=values.get("size", 0),
                        avg_us=values["avg_us"], min_us=values.get("min_us"),
                        max_us=values.get("max_us"), iterations=values.get("iterations"),
                        extra=extra))
        _check_once(seen, rows[-1], line_number)
        rows_in_table += 1
    if columns is not None and rows_in_table == 0:
        raise ParseError("the table header is there but no result rows follow (truncated or "
                         "the benchmark failed before its first size)")
    if not rows:
        raise ParseError("no result rows; " + EXPECTED_FORMATS)
    return rows


# ---------------------------------------------------------------------- IMB

_IMB_COLUMNS = {
    "#bytes": "size",
    "#repetitions": "iterations",
    "t_min[usec]": "min_us",
    "t_max[usec]": "max_us",
    "t_avg[usec]": "avg_us",
    "t[usec]": "avg_us",  # PingPong/PingPing
    "t_pure[usec]": "avg_us",  # IMB-NBC: the operation without the overlapping compute
}


def parse_imb(text):
    """IMB-MPI1 tables: one per '# Benchmarking X' / '# #processes = N' section."""
    rows = []
    benchmark = None
    processes = None
    columns = None
    rows_in_table = 0
    pending_header_line = None
    seen = {}
    lines = text.splitlines()
    ends_with_newline = text.endswith("\n")

    def close_table(line_number):
        if columns is not None and rows_in_table == 0:
            raise ParseError(f"IMB benchmark {benchmark} ({processes} processes), table header on "
                             f"line {pending_header_line}: no rows before line {line_number} "
                             "(truncated or failed)")

    for index, line in enumerate(lines):
        line_number = index + 1
        stripped = line.strip()
        if not stripped:
            continue
        match = re.match(r"^#\s*Benchmarking\s+(\S+)", stripped)
        if match:
            close_table(line_number)
            benchmark, columns, rows_in_table = match.group(1).lower(), None, 0
            continue
        match = re.match(r"^#\s*#processes\s*=\s*(\d+)", stripped)
        if match:
            processes = int(match.group(1))
            continue
        if "#repetitions" in stripped and benchmark is not None:
            columns = [_IMB_COLUMNS.get(token, token) for token in stripped.split()]
            rows_in_table = 0
            pending_header_line = line_number
            if "avg_us" not in columns:
                raise ParseError(f"line {line_number}: IMB table without a time column: {stripped!r}")
            continue
        if stripped.startswith("#") or columns is None:
            if stripped.startswith("#") and columns is not None and rows_in_table > 0:
                columns = None  # a comment after rows ends the table
            continue
        tokens = stripped.split()
        if not all(_NUMBER.match(token) for token in tokens):
            # IMB prints free text between tables (e.g. "# All processes entering MPI_Finalize")
            if rows_in_table > 0:
                columns = None
                continue
            raise ParseError(f"line {line_number}: expected a row of numbers for IMB {benchmark}, "
                             f"got {stripped!r}")
        last_line = index == len(lines) - 1
        if len(tokens) != len(columns) or (last_line and not ends_with_newline):
            raise ParseError(f"line {line_number}: IMB {benchmark} row has {len(tokens)} fields, "
                             f"header has {len(columns)}, or the output ends inside it "
                             f"(truncated): {stripped!r}")
        values = dict(zip(columns, tokens))
        rows.append(Row(benchmark=benchmark, size=int(float(values.get("size", 0))),
                        avg_us=float(values["avg_us"]),
                        min_us=float(values["min_us"]) if "min_us" in values else None,
                        max_us=float(values["max_us"]) if "max_us" in values else None,
                        iterations=int(float(values["iterations"])) if "iterations" in values else None,
                        processes=processes,
                        extra={k: v for k, v in values.items()
                               if k not in ("size", "avg_us", "min_us", "max_us", "iterations")}))
        _check_once(seen, rows[-1], line_number)
        rows_in_table += 1
    close_table(len(lines) + 1)
    if not rows:
        raise ParseError("IMB output without any result table; " + EXPECTED_FORMATS)
    return rows
