"""Rendering the aggregated results as text: the terminal report (table.txt)
and its tables; the CSV and JSON files are data_files'."""
import math

from . import interleaved_tables
from .text_format import fit_number, format_table, format_us, human_seconds, ratio_text


def noise_word(comparison):
    if comparison is None:
        return "-"
    verdict = comparison["exceeds_noise"]
    if verdict is None:
        return "too few runs"
    return "yes" if verdict else "no"


def group_title(entry):
    processes = f", {entry['processes']} processes" if entry["processes"] else ""
    return f"{entry['benchmark']}{processes}"


def grouped_results(summary):
    groups = {}
    for entry in summary["results"]:
        groups.setdefault(group_title(entry), []).append(entry)
    return groups


def comparison_cells(comparison):
    """delta, its range and the noise verdict of a compare() result."""
    if not comparison:
        return ["-", "-", "-"]
    return [ratio_text(comparison["delta"], 3),
            f"{ratio_text(comparison['delta_low'], 2)}-{ratio_text(comparison['delta_high'], 2)}",
            noise_word(comparison)]


def results_table(summary):
    """The per-size latency comparison, one block per benchmark: sides A, B, C
    side by side with the A/B delta; other sides one row each (any number of
    them fits), with the ratio to the reference side."""
    if summary.get("reference"):
        return sides_results_table(summary)
    sides = summary["sides"]
    first, second = summary["comparison_pair"]
    metric = summary["metric"]
    header = ["size"]
    for side in sides:
        header += [f"{side} {summary['modes'][side]} us", "spread", "n"]
    header += [f"delta {first}/{second}", "range", "exceeds noise"]
    blocks = []
    for title, entries in grouped_results(summary).items():
        rows = []
        for entry in entries:
            row = [entry["size"]]
            for side in sides:
                row += side_cells(entry["sides"].get(side))
            rows.append(row + comparison_cells(entry["comparison"]))
        blocks.append(f"{title} ({metric} latency, median over runs, spread = half-range / median)\n"
                      + format_table(header, rows, [">"] * (len(header) - 1) + ["<"]))
    return "\n\n".join(blocks)


def side_cells(stats):
    """median, spread, runs of one side at one size."""
    if not stats:
        return ["-", "-", 0]
    return [format_us(stats["median"]), fit_number(100 * stats["spread"], 1) + "%", stats["runs"]]


def sides_results_table(summary):
    """One row per size and side, each set against the reference side."""
    reference = summary["reference"]
    header = ["size", "side", "mode", "us", "spread", "n", f"/ {reference}", "range", "exceeds noise"]
    blocks = []
    for title, entries in grouped_results(summary).items():
        rows = []
        for entry in entries:
            for side in summary["sides"]:
                if side not in entry["sides"]:
                    continue
                versus = ["(ref)", "", ""] if side == reference else \
                    comparison_cells(entry["versus"].get(side))
                rows.append([entry["size"], side, summary["modes"][side],
                             *side_cells(entry["sides"][side]), *versus])
        blocks.append(f"{title} ({summary['metric']} latency, median over runs, spread = half-range / "
                      f"median; / {reference}: ratio to side {reference}, range over runs)\n"
                      + format_table(header, rows, [">", "<", "<"] + [">"] * 5 + ["<"]))
    return "\n\n".join(blocks)


def library_rows(summary):
    """Flat rows of the merged library statistics: one per side and communicator."""
    rows = []
    for side in summary["sides"]:
        merged = summary["library"].get(side)
        if not merged:
            continue
        for name, comm in merged["communicators"].items():
            skew = comm.get("exit_skew") or {}
            truth = comm.get("truth_exit_skew") or {}
            slack = comm.get("slack") or {}
            rows.append({
                "side": side, "mode": summary["modes"][side], "communicator": name,
                "runs": comm["runs"], "calls": comm["calls"], "harmonized_calls": comm["harmonized_calls"],
                "missed_calls_any": comm["missed_calls_any"], "failure_rate": comm["failure_rate"],
                "late_calls_any": comm["late_calls_any"], "late_rate": comm["late_rate"],
                "resyncs": comm["resyncs"], "resync_seconds": comm["resync_seconds"],
                "slack_initial": slack.get("initial"), "slack_final": slack.get("final"),
                "slack_max": slack.get("max"),
                "exit_skew_p50": skew.get("p50"), "exit_skew_p90": skew.get("p90"),
                "exit_skew_p99": skew.get("p99"), "exit_skew_max": skew.get("max_of_runs"),
                "truth_exit_skew_p50": truth.get("p50"), "truth_exit_skew_p99": truth.get("p99"),
                "truth_exit_skew_max": truth.get("max_of_runs"),
            })
    return rows


def library_notes(summary):
    """Why a side that should have statistics shows none (mode off never has any)."""
    notes = []
    for side in summary["sides"]:
        mode = summary["modes"][side]
        merged = (summary.get("library") or {}).get(side)
        if mode == "off" or (merged and merged["communicators"]):
            continue
        if merged:
            notes.append(f"{side} {mode}: {merged['runs']} report(s) list no communicator "
                         "(harmonize tracked no MPI_Barrier call)")
        else:
            notes.append(f"{side} {mode}: no report (no run of this side succeeded)")
    return notes


def library_table(summary):
    rows = library_rows(summary)
    notes = library_notes(summary)
    if not rows:
        if all(summary["modes"][side] == "off" for side in summary["sides"]):
            return "library statistics: none (mode off writes no report)"
        reported = any((summary.get("library") or {}).get(side) for side in summary["sides"])
        title = "library statistics: none" if reported else "library statistics: no report from any run"
        return "\n".join([title] + [f"  {note}" for note in notes])
    # Missed and late side by side: either one spoils the call that follows.
    header = ["side", "comm", "runs", "calls", "harmonized", "missed", "fail", "late", "late %",
              "resyncs", "skew p50", "skew p99", "skew max", "slack final"]
    table = [[r["side"] + " " + r["mode"], r["communicator"], r["runs"], r["calls"], r["harmonized_calls"],
              r["missed_calls_any"], f"{100 * r['failure_rate']:.2f}%", r["late_calls_any"],
              f"{100 * r['late_rate']:.2f}%", r["resyncs"],
              human_seconds(r["exit_skew_p50"]), human_seconds(r["exit_skew_p99"]),
              human_seconds(r["exit_skew_max"]), human_seconds(r["slack_final"])] for r in rows]
    text = "library statistics per side (summed over runs; percentiles: median over runs, max: worst run)\n"
    text += format_table(header, table, ["<", "<"] + [">"] * (len(header) - 2))
    if any(r["truth_exit_skew_p50"] is not None for r in rows):
        truth = [[r["side"] + " " + r["mode"], r["communicator"], human_seconds(r["truth_exit_skew_p50"]),
                  human_seconds(r["truth_exit_skew_p99"]), human_seconds(r["truth_exit_skew_max"])]
                 for r in rows]
        text += "\n\nground-truth exit skew (test clocks)\n" + format_table(
            ["side", "comm", "p50", "p99", "max"], truth, ["<", "<", ">", ">", ">"])
    if notes:
        text += "\n" + "\n".join(notes)
    return text


def collectives_table(summary):
    """Per size, A vs B from the library's per-call data: the same calls OSU
    averages, seen by each process and as a whole on the global clock."""
    rows = summary.get("collectives") or []
    if not rows:
        return ""
    first, second = summary["comparison_pair"]

    def delta(pooled, runs):
        cells = ["-", "-", "-"] if pooled is None else [
            ratio_text(pooled["delta"], 3), span_text(pooled["delta_low"], pooled["delta_high"], 3),
            decided_text(pooled)]
        return cells + (["-"] if runs is None else [span_text(runs["delta_low"], runs["delta_high"])])

    header = ["comm", "operation", "bytes", f"{first} local", f"{second} local", "delta", "95%",
              "decided", "runs", f"{first} t_global", f"{second} t_global", "delta", "95%",
              "decided", "runs", f"{first} arrival skew", f"{second} arrival skew", f"{second} valid"]
    table = []
    for row in rows:
        a, b = row["sides"][first], row["sides"][second]
        pooled = row.get("pooled") or {}
        valid = f"{100 * b['valid_calls'] / b['calls']:.0f}%" if b["calls"] else "-"
        table.append([row["communicator"], row["operation"], row["bytes"],
                      human_seconds(a["local"]), human_seconds(b["local"]),
                      *delta(pooled.get("local"), row["comparison"]["local"]),
                      human_seconds(a["t_global"]), human_seconds(b["t_global"]),
                      *delta(pooled.get("t_global"), row["comparison"]["t_global"]),
                      human_seconds(a["arrival_skew"]), human_seconds(b["arrival_skew"]), valid])
    return ("the collective itself, per call (library reports; figures: median over runs of each "
            "run's median over its calls; delta: of the pooled calls' medians, with its 95% "
            "interval over runs (bootstrap) and whether that excludes 1; runs: the range of the "
            "runs' own deltas)\n"
            + format_table(header, table, ["<", "<"] + [">"] * (len(header) - 2)))


def decided_text(pooled):
    """'yes', or why not: 'runs disagree', 'too few runs', 'no' (the interval holds 1)."""
    if pooled["decided"]:
        return "yes"
    reason = pooled.get("reason")
    return "no" if reason in (None, "interval holds 1") else reason


def span_text(low, high, decimals=2):
    return "-" if low is None or high is None else f"{ratio_text(low, decimals)}-{ratio_text(high, decimals)}"


def benefit_text(value):
    """b has a meaningful sign and zero: fixed decimals ('-0.001', not '-0.00124')."""
    return "-" if value is None else fit_number(value, 3)


def seconds_span(low, high):
    """'10.1-10.3 us': an interval of seconds in the unit of its upper end."""
    if low is None or high is None:
        return "-"
    unit_text = human_seconds(high).split()
    if len(unit_text) != 2 or math.isinf(high):
        return f"{human_seconds(low)}-{human_seconds(high)}"
    scale = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}[unit_text[1]]
    return f"{low / scale:.3g}-{high / scale:.3g} {unit_text[1]}"


def arrival_groups(rows):
    """{(communicator, operation, root): rows} in the rows' order."""
    groups = {}
    for row in rows:
        groups.setdefault((row["communicator"], row["operation"], row["root"]), []).append(row)
    return groups


def arrival_table(summary):
    """Per collective, per size and side: the valid calls' t_global, the delay
    overlap benefit b(delta) against t0, and how the processes arrived."""
    arrival = summary.get("arrival") or {}
    if not arrival.get("applies"):
        return ""
    t0 = arrival.get("t0_side")
    title = ["late arrivals: t_global and delay overlap benefit b(delta)",
             "  (valid calls of all runs pooled: medians with 95% intervals)"]
    if t0:
        title.append(f"  b = (t0 + delta - t_delta) / t_delta, t0 = side {t0}: 1 the delay is hidden, "
                     "0 it simply adds, < 0 it costs more")
    lines = title
    if arrival.get("note"):
        lines.append(arrival["note"])
    if not arrival["rows"]:
        lines.append("no harmonize side timed a collective (no report from its runs, or the reports "
                     "list no collective)")
    header = ["bytes", "side", "pattern", "delta", "valid", "t_global", "95%", "b", "95%",
              "arrival skew", "arrival error"]
    for (communicator, operation, root), rows in arrival_groups(arrival["rows"]).items():
        if not any(row["t_global"] is not None for row in rows):
            continue  # no valid call at all (e.g. a collective timed only once per run): CSV only
        table = []
        for row in rows:
            b = "(t0)" if row["is_t0"] else benefit_text(row["b"])
            # b is often negative: ".." keeps an interval's minus signs readable.
            b_span = "-" if row["b_low"] is None else \
                f"{benefit_text(row['b_low'])}..{benefit_text(row['b_high'])}"
            table.append([row["bytes"], row["side"], row["pattern"],
                          ("-" if row["delta"] is None else human_seconds(row["delta"]))
                          + ("*" if row["delta_source"] == "setting" else ""),
                          f"{100 * row['valid_calls'] / row['calls']:.0f}%" if row["calls"] else "-",
                          human_seconds(row["t_global"]), seconds_span(row["t_global_low"], row["t_global_high"]),
                          b, b_span,
                          human_seconds(row["arrival_skew"]), human_seconds(row["arrival_error"])])
        where = "" if root is None else f", root {root}"
        lines += ["", f"{communicator} {operation}{where}",
                  format_table(header, table, [">", "<", "<"] + [">"] * (len(header) - 3))]
    if any(row["delta_source"] == "setting" for row in arrival["rows"]):
        lines.append("* delta from the side's ARRIVAL setting: its reports do not say (a library "
                     "from before HARMONIZE_ARRIVAL)")
    return "\n".join(lines)


def until_decided_text(until):
    """What --until-decided did: when it stopped and why, and each size left undecided with why."""
    lines = [f"until decided (delta of {until['figure']} per call): stopped after {until['runs_per_side']} "
             f"runs per side, {until['seconds']:.1f} s: {until['stopped']}"]
    if until["undecided"]:
        lines.append(f"{len(until['undecided'])} of {until['sizes']} sizes undecided:")
        for entry in until["undecided"]:
            if "delta" not in entry:
                lines.append(f"  {entry['size']}: {entry['reason']}")
                continue
            lines.append(f"  {entry['size']}: {entry['reason']} (delta {ratio_text(entry['delta'], 3)}, 95% "
                         f"{span_text(entry['delta_low'], entry['delta_high'], 3)}, runs {entry['runs'][0]} "
                         f"and {entry['runs'][1]})")
    return "\n".join(lines)


def failures_text(summary):
    failed = [f for f in summary["failed_runs"] if not f.get("superseded")]
    if not failed:
        return ""
    lines = [f"{len(failed)} run(s) failed and were left out (logs kept):"]
    for status in failed:
        first = (status.get("errors") or ["?"])[0].splitlines()[0]
        lines.append(f"  {status['id']}: {first}  [{status['log']}]")
    return "\n".join(lines)


def side_text(summary, side):
    """'A = observe' or, for a named side, 'late = harmonize ARRIVAL=rank:0:5us'."""
    settings = [] if side in ("A", "B", "C") else (summary.get("side_settings") or {}).get(side, [])
    shown = [setting.removeprefix("HARMONIZE_") for setting in settings]
    return " ".join([f"{side} = {summary['modes'][side]}"] + shown)


def terminal_report(summary):
    sides = [f"{side_text(summary, s)} ({summary['ok_runs'].get(s, 0)} runs ok)" for s in summary["sides"]]
    # Many named sides: one a line, not one line of 300 characters.
    separator = ", " if len(summary["sides"]) <= 3 else "\n  "
    parts = [f"harmonize-ab: {summary['command_text']}",
             "sides: " + separator.join(sides),
             "", results_table(summary) if summary["results"] else "no results", "",
             library_table(summary)]
    collectives = collectives_table(summary)
    if collectives:
        parts += ["", collectives]
    arrival = arrival_table(summary)
    if arrival:
        parts += ["", arrival]
    if summary.get("interleaved"):
        parts += ["", interleaved_tables.interleaved_table(summary["interleaved"])]
    if summary.get("interleaved_pooled"):
        parts += ["", interleaved_tables.pooled_table(summary["interleaved_pooled"], len(summary["interleaved"]))]
    elif summary.get("interleaved_across"):
        parts += ["", interleaved_tables.across_runs_table(summary["interleaved_across"],
                                                           len(summary["interleaved"]))]
    failures = failures_text(summary)
    if failures:
        parts += ["", failures]
    if summary.get("until_decided"):
        parts += ["", until_decided_text(summary["until_decided"])]
    if summary.get("warnings"):
        parts += [""] + [f"warning: {warning}" for warning in summary["warnings"]]
    return "\n".join(parts) + "\n"
