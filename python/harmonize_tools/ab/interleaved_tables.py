"""harmonize-ab --interleave's tables: each run's comparisons (the library's
report's "interleave") and, with several runs, whether their decisions
agree."""
from .text_format import format_table


def interval_text(low, high):
    return "-" if low is None or high is None else f"{low * 1e6:.3g}..{high * 1e6:.3g}"


def interleaved_table(runs):
    """--interleave: per run, the library's comparisons (its report's
    "interleave"), a row per communicator, key and side, t_global and
    local_max side by side."""
    parts = []
    for number, info in enumerate(runs, 1):
        comparisons = info.get("comparisons") or []
        baseline = (info.get("sides") or ["?"])[0].split(":")[0]
        parts.append(f"interleaved run {number} (seed {info.get('seed')}, {info.get('run')} call(s) a side "
                     f"per block): {info.get('decided', 0)} of {len(comparisons)} comparisons decided at "
                     f"{100 * info.get('family_level', 0.05):g}% family-wise; delta: the side less "
                     f"{baseline}, median over blocks, in us (the benchmark's own averages above mix "
                     "the sides)")
        by_key = {}
        for row in comparisons:
            key = (row["communicator"], row["operation"], row["bytes"], row["root"], row["side"])
            by_key.setdefault(key, {})[row["figure"]] = row
        rows = []
        for (comm, operation, size, _root, side), figures in by_key.items():
            cells = [comm, operation, size, side]
            for figure in ("t_global", "local_max"):
                row = figures.get(figure)
                cells += (["-", "-", "-"] if row is None else
                          [f"{row['delta'] * 1e6:.3g}", interval_text(row["delta_low"], row["delta_high"]),
                           "yes" if row["decided"] else "no"])
            rows.append(cells + [max(row["blocks"] for row in figures.values())])
        header = ["comm", "operation", "bytes", "side", "t_global delta", "interval", "decided",
                  "local_max delta", "interval", "decided", "blocks"]
        parts.append(format_table(header, rows, list("<<><>><>><>")) if rows else "no interleaved call")
    return "\n\n".join(parts)


def across_runs_table(rows, runs):
    """--interleave -n 2 or more: whether the runs' decisions agree."""
    sign_text = {1: "+", -1: "-", 0: "."}
    cells = [[row["communicator"], row["operation"], row["bytes"], row["side"], row["figure"],
              "-" if row["median_delta"] is None else f"{row['median_delta'] * 1e6:.3g}",
              " ".join(sign_text[sign] for sign in row["signs"]), row["verdict"]] for row in rows]
    header = ["comm", "operation", "bytes", "side", "figure", "median delta", "per run", "verdict"]
    return (f"across the {runs} interleaved runs (per run: + decided higher, - lower, . not decided; "
            "a verdict about the machine needs every run; a false one, where nothing differs, is at most "
            "as likely as one run's, 5 % family-wise, and far less when runs are independent)\n\n"
            + format_table(header, cells, list("<<><<><<")))


def pooled_table(rows, runs):
    """--interleave --until-decided: every run's blocks pooled per comparison
    (ab/sequential.py), the look that decided it, each run's delta."""
    cells = [[row["communicator"], row["operation"], row["bytes"], row["side"], row["figure"],
              " ".join("-" if delta is None else f"{delta * 1e6:.3g}" for delta in row["deltas"]),
              f"{row['positive_blocks']}/{row['negative_blocks']}", f"{row['p']:.2g}",
              "-" if row["decided_at"] is None else row["decided_at"], row["verdict"]] for row in rows]
    header = ["comm", "operation", "bytes", "side", "figure", "delta per run (us)", "blocks +/-", "p",
              "decided at run", "verdict"]
    level = rows[0]["level_each"] if rows else 0
    return (f"pooled over the {runs} interleaved run(s): each comparison's blocks of every run, the sign "
            f"test at each look at {level:.2g} (5 % family-wise, divided among the {len(rows)} comparisons "
            "and every run the budget allows, so that stopping at any look keeps it)\n\n"
            + format_table(header, cells, list("<<><<<>>><")))
