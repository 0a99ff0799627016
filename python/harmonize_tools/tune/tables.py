"""What harmonize-tune shows and writes of its choices: table.txt,
decisions.csv, verification.txt and .csv, the choices beside the usual
method's or those under an arrival pattern, and the heatmaps."""
import csv
import io

from ..ab import plots
from ..common import say
from . import heatmap
from .algorithms import label


INTERLEAVED_NOTE = ("interleaved: every algorithm a side of the same run(s); ratio = 1 + the median paired "
                    "difference / the default's median t_global (all calls), p the pooled sign test's, "
                    "decided at 5 % family-wise over every size and algorithm (? undecided)")


def verification_text(rows, names, interleaved=False):
    lines = ["verification: t_global of the valid calls with the written file / without it, where the file "
             "names another algorithm than the default (95 % interval over calls and runs; ? undecided)"]
    if interleaved:
        lines = ["verification: the algorithm each rule of the written file names against the default, per "
                 "size, in fresh interleaved runs; " + INTERLEAVED_NOTE]
    for row in rows:
        named = names.get(row["operation"], {})
        files = []
        for side, verdict in row["verdicts"].items():
            rule = row["rules"][side]
            if verdict == "not changed":
                why = f"no {row['operation']} rule" if rule is None else f"its rule names the default, {rule}"
                files.append(f"{side}: not changed ({why})")
            else:
                files.append(f"{side} ({label(rule, named)}): {ratio_text(row['versus'].get(side))} {verdict}")
        lines.append(f"  {row['operation']} P={row['processes']} {row['bytes']} B: " + "  ".join(files))
    return "\n".join(lines) + "\n"


def comparison_cells(comparison):
    """A comparison's CSV cells: ratio, its 95 % interval, decided; blank when there is none."""
    if not comparison:
        return ["", "", "", ""]
    return [comparison["delta"], comparison["delta_low"], comparison["delta_high"],
            str(comparison["decided"]).lower()]


def verification_csv(rows):
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["operation", "processes", "bytes", "file", "rule", "over_default", "low95", "high95",
                     "decided", "verdict"])
    for row in rows:
        for side, verdict in row["verdicts"].items():
            writer.writerow([row["operation"], row["processes"], row["bytes"], side, row["rules"][side] or "",
                             *comparison_cells(row["versus"].get(side)), verdict])
    return buffer.getvalue()


def dropped_text(dropped, unverified, path):
    """What the verification removed from (or could not check in) the file at `path`."""
    lines = [f"dropped from {path}: {c} P={p} {b} B {a} ({verdict})" for c, p, b, a, verdict in dropped]
    lines += [f"not verified in {path}: {c} P={p} {b} B {a} (no verification run measured it)"
              for c, p, b, a, _ in unverified]
    return "".join(line + "\n" for line in lines)


def ratio_text(comparison):
    if not comparison:
        return "-"
    mark = "" if comparison["decided"] else "?"
    if comparison["delta_low"] is None:
        # Interleaved: the pooled sign test decides (tune/interleaved.py).
        return f"{comparison['delta']:.3f} (p {comparison['p']:.2g}){mark}"
    return f"{comparison['delta']:.3f} [{comparison['delta_low']:.3f}, {comparison['delta_high']:.3f}]{mark}"


def table_text(rows, names, interleaved=False):
    lines = [INTERLEAVED_NOTE] if interleaved else []
    for row in rows:
        default = row["default_t_global"]
        lines.append(f"{row['operation']} P={row['processes']} {row['bytes']} B: default ({row['default']})"
                     + (f" t_global {default * 1e6:.2f} us" if default else ""))
        named = names.get(row["operation"], {})
        no_valid = row.get("no_valid", [])
        labels = {a: label(a, named) for a in [*row["versus"], *row.get("failed", [])]}
        width = max([len(text) for text in labels.values()] + [24])
        for algorithm, comparison in row["versus"].items():
            shown = "no valid call" if algorithm in no_valid else ratio_text(comparison)
            lines.append(f"    {labels[algorithm]:<{width}}  {shown}")
        for algorithm in row.get("failed", []):
            lines.append(f"    {labels[algorithm]:<{width}}  failed: no run measured this size")
        choice = row["choice"]
        if row["default"] in no_valid:
            verdict = "no valid call of the default: no decision, the default stays"
        elif choice != row["default"]:
            ratio = row["versus"][choice]["delta"]
            verdict = f"{label(choice, named)}: {ratio:.3f} of the default's t_global"
        elif row["tie"]:
            verdict = "tie: the default stays (no algorithm decidedly faster)"
        else:
            verdict = "the default stays: every algorithm is decidedly slower"
        lines.append("    -> " + verdict)
    return "\n".join(lines) + "\n"


def decisions_csv(rows, names):
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["operation", "processes", "bytes", "algorithm", "name", "ratio_to_default",
                     "ratio_low95", "ratio_high95", "decided", "chosen", "tie", "failed",
                     "no_valid_calls"])
    for row in rows:
        compared = [(a, c, False) for a, c in row["versus"].items()] + \
            [(a, None, True) for a in row.get("failed", [])]
        for algorithm, comparison, failed in compared:
            writer.writerow([row["operation"], row["processes"], row["bytes"], algorithm,
                             names.get(row["operation"], {}).get(algorithm, ""),
                             *comparison_cells(comparison), str(row["choice"] == algorithm).lower(),
                             str(row["tie"]).lower(), str(failed).lower(),
                             str(algorithm in row.get("no_valid", [])).lower()])
    return buffer.getvalue()


def usual_choices_of(usual, collectives):
    """The usual method's choices in rules.py's shape."""
    choices = {}
    for collective in collectives:
        by_size = {}
        for (processes, size), (algorithm, _) in sorted((usual.get(collective) or {}).items()):
            by_size.setdefault(processes, []).append((size, algorithm))
        if by_size:
            choices[collective] = by_size
    return choices


def usual_text(rows, usual, names):
    """Per size: harmonize-tune's choice beside the usual method's, and whether they differ."""
    lines = ["choices: harmonized per-call t_global (decided) | the benchmark's averages after its native barrier"]
    for row in rows:
        found = (usual.get(row["operation"]) or {}).get((row["processes"], row["bytes"]))
        mine = row["choice"] if row["choice"] != row["default"] else f"{row['default']} (default)"
        theirs = "-" if not found else f"{found[0]} ({found[1]:.3f} of the default's average)"
        differ = found and found[0] != row["choice"]
        lines.append(f"  {row['operation']} P={row['processes']} {row['bytes']} B: {mine} | {theirs}"
                     + ("  <- differ" if differ else ""))
    return "\n".join(lines) + "\n"


def side_by_side(together, under, pattern, names):
    """Per size: the choice when all arrive together and under the pattern."""
    def verdict(row):
        if row["choice"] == row["default"]:
            return "default" + (" (tie)" if row["tie"] else "")
        named = names.get(row["operation"], {})
        return f"{label(row['choice'], named)} ({row['versus'][row['choice']]['delta']:.3f})"

    later = {(r["operation"], r["processes"], r["bytes"]): r for r in under}
    lines = [f"choices: all arriving together | under {pattern}"]
    for row in together:
        other = later.get((row["operation"], row["processes"], row["bytes"]))
        lines.append(f"  {row['operation']} P={row['processes']} {row['bytes']} B: {verdict(row)} | "
                     f"{verdict(other) if other else '-'}")
    return "\n".join(lines) + "\n"


def draw_heatmaps(args, rows, default, names, output, suffix):
    """heatmap-<collective>-P<processes><suffix>.png per collective and process count."""
    groups = {}
    for row in rows:
        groups.setdefault((row["operation"], row["processes"]), []).append(row)
    for (operation, processes), group in sorted(groups.items(), key=lambda item: str(item[0])):
        path = output / f"heatmap-{operation}-P{processes}{suffix}.png"
        title = f"{operation}, {processes} processes{' under ' + args.arrival if suffix else ''}: t_global / fastest"
        try:
            heatmap.draw(group, default, names.get(operation, {}), title, path)
        except plots.PlotsUnavailable as error:
            say("harmonize-tune", str(error), args.quiet)
            return
