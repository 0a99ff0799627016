"""The summary as data files: results.csv (latency per size and side),
arrival.csv, library.csv, collectives.csv and summary.json (infinities and
NaN as null)."""
import csv
import io
import json
import math

from .per_call import COLLECTIVE_FIGURES
from .tables import library_rows


def comparison_csv(comparison):
    if not comparison:
        return ["", "", "", ""]
    verdict = comparison["exceeds_noise"]
    return [float(f"{comparison['delta']:.7g}"), float(f"{comparison['delta_low']:.7g}"),
            float(f"{comparison['delta_high']:.7g}"), "" if verdict is None else str(verdict).lower()]


def results_csv(summary):
    """Wide CSV: one row per benchmark, processes and size."""
    sides = summary["sides"]
    header = ["benchmark", "processes", "size"]
    for side in sides:
        header += [f"{side}_{name}" for name in ("median_us", "min_us", "max_us", "spread", "runs")]
    header += ["delta", "delta_low", "delta_high", "exceeds_noise"]
    reference = summary.get("reference")
    others = [side for side in sides if reference and side != reference]
    for side in others:
        header += [f"{side}_ratio", f"{side}_ratio_low", f"{side}_ratio_high", f"{side}_exceeds_noise"]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    for entry in summary["results"]:
        row = [entry["benchmark"], entry["processes"] or "", entry["size"]]
        for side in sides:
            stats = entry["sides"].get(side)
            row += ([stats["median"], stats["min"], stats["max"], round(stats["spread"], 6), stats["runs"]]
                    if stats else ["", "", "", "", 0])
        row += comparison_csv(entry["comparison"])
        for side in others:
            row += comparison_csv(entry["versus"].get(side))
        writer.writerow(row)
    return buffer.getvalue()


def arrival_csv(summary):
    """One row per communicator, operation, bytes, root and side: delta,
    the valid calls' t_global (seconds, 95 % interval), b and its interval."""
    arrival = summary.get("arrival") or {}
    header = ["communicator", "operation", "bytes", "root", "side", "mode", "pattern", "delta_s",
              "delta_source", "calls", "valid_calls", "t_global_s", "t_global_low95_s",
              "t_global_high95_s", "t0_side", "b", "b_low95", "b_high95", "arrival_skew_s",
              "arrival_error_s"]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    for row in arrival.get("rows") or []:
        values = dict(row, mode=summary["modes"][row["side"]], t0_side=arrival.get("t0_side"),
                      delta_s=row["delta"], t_global_s=row["t_global"], t_global_low95_s=row["t_global_low"],
                      t_global_high95_s=row["t_global_high"], b_low95=row["b_low"], b_high95=row["b_high"],
                      arrival_skew_s=row["arrival_skew"], arrival_error_s=row["arrival_error"])
        writer.writerow(["" if values[name] is None else values[name] for name in header])
    return buffer.getvalue()


def library_csv(summary):
    rows = library_rows(summary)
    buffer = io.StringIO()
    if rows:
        writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: ("" if v is None else v) for k, v in row.items()})
    return buffer.getvalue()


def collectives_csv(summary):
    """One row per communicator, operation, bytes and root: each side's
    figures (seconds) and the deltas of the local time and t_global."""
    rows = summary.get("collectives") or []
    first, second = summary["comparison_pair"]
    header = ["communicator", "operation", "bytes", "root"]
    for side in (first, second):
        header += [f"{side}_calls", f"{side}_valid_calls"] + [
            f"{side}_{f}_s" for f in COLLECTIVE_FIGURES]
    for figure in ("local", "t_global"):
        header += [f"delta_{figure}", f"delta_{figure}_low95", f"delta_{figure}_high95",
                   f"delta_{figure}_decided", f"delta_{figure}_undecided_because", f"delta_{figure}_runs_low",
                   f"delta_{figure}_runs_high", f"delta_{figure}_exceeds_noise"]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    for row in rows:
        line = [row["communicator"], row["operation"], row["bytes"],
                "" if row["root"] is None else row["root"]]
        for side in (first, second):
            s = row["sides"][side]
            line += [s["calls"], s["valid_calls"]] + ["" if s[f] is None else s[f]
                                                      for f in COLLECTIVE_FIGURES]
        for figure in ("local", "t_global"):
            p = (row.get("pooled") or {}).get(figure)
            line += (["", "", "", "", ""] if p is None else
                     [p["delta"], p["delta_low"], p["delta_high"], str(p["decided"]).lower(), p.get("reason") or ""])
            c = row["comparison"][figure]
            verdict = None if c is None else c["exceeds_noise"]
            line += (["", "", ""] if c is None else
                     [c["delta_low"], c["delta_high"], "" if verdict is None else str(verdict).lower()])
        writer.writerow(line)
    return buffer.getvalue()


def summary_json(summary):
    def clean(value):
        if isinstance(value, float) and (math.isinf(value) or math.isnan(value)):
            return None
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items()}
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value
    return json.dumps(clean(summary), indent=2) + "\n"
