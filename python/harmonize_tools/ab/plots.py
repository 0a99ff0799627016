"""PNG plots with matplotlib (optional: everything else works without it).

latency-<benchmark>.png  latency vs size per side, median line and min-max band
delta-<benchmark>.png    delta = t_A / t_B vs size; filled markers where the
                         difference exceeds run-to-run noise, hollow where not
exit-skew.png            distribution of the barrier exit skew per side: the
                         percentiles each run's report holds (min, p50, p90,
                         p99, max) drawn as an empirical CDF, one line per run
collective-<operation>.png  per size, delta of the collective itself from the
                         library's per-call data (local time and t_global,
                         95 % intervals of the pooled calls), beside the
                         benchmark's own delta; and the arrival skew per side
arrival-<operation>.png  the delay overlap benefit b against the delay, one
                         line per size (at most MAX_ARRIVAL_SIZES of them),
                         95 % intervals as error bars
"""
import itertools

from ..common import slug

SIDE_COLORS = {"A": "tab:red", "B": "tab:blue", "C": "tab:gray"}
SKEW_LEVELS = (("min", 0.0), ("p50", 0.5), ("p90", 0.9), ("p99", 0.99), ("max", 1.0))
MAX_ARRIVAL_SIZES = 6  # more lines than this cannot be told apart


class PlotsUnavailable(Exception):
    """matplotlib is not installed."""


def load_pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")  # files only; never needs a display
        import matplotlib.pyplot as pyplot
    except ImportError as error:
        raise PlotsUnavailable(
            f"matplotlib is not available ({error}); plots skipped. Install python3-matplotlib "
            "(Debian) and rerun with --aggregate to draw them from the same output directory") from error
    return pyplot


def grouped(results):
    groups = {}
    for entry in results:
        key = (entry["benchmark"], entry["processes"])
        groups.setdefault(key, []).append(entry)
    return groups


def file_stem(benchmark, processes, multiple_process_counts):
    return slug(benchmark, "benchmark") + (f"-p{processes}" if multiple_process_counts and processes else "")


def make_plots(summary, directory):
    """Draw every plot into `directory`; returns the written paths."""
    pyplot = load_pyplot()
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    groups = grouped(summary["results"])
    counts = {}
    for benchmark, processes in groups:
        counts.setdefault(benchmark, set()).add(processes)
    for (benchmark, processes), entries in groups.items():
        stem = file_stem(benchmark, processes, len(counts[benchmark]) > 1)
        title = benchmark + (f", {processes} processes" if processes else "")
        written.append(latency_plot(pyplot, summary, entries, title, directory / f"latency-{stem}.png"))
        if any(e["comparison"] for e in entries):
            written.append(delta_plot(pyplot, summary, entries, title, directory / f"delta-{stem}.png"))
    skew = skew_plot(pyplot, summary, directory / "exit-skew.png")
    if skew:
        written.append(skew)
    for operation, rows in collective_groups(summary).items():
        written.append(collective_plot(pyplot, summary, operation, rows,
                                       directory / f"collective-{slug(operation, 'benchmark')}.png"))
    for operation, rows in arrival_plot_rows(summary).items():
        written.append(arrival_plot(pyplot, summary, operation, rows,
                                    directory / f"arrival-{slug(operation, 'benchmark')}.png"))
    return written


def spread_choice(values, count):
    """At most `count` of the sorted `values`, spread evenly, first and last kept."""
    if len(values) <= count:
        return list(values)
    return [values[round(i * (len(values) - 1) / (count - 1))] for i in range(count)]


def arrival_plot_rows(summary):
    """Per operation, the rows with a b (delay > 0) of its busiest communicator
    and root, restricted to at most MAX_ARRIVAL_SIZES sizes spread over the range."""
    by_operation = {}
    for row in (summary.get("arrival") or {}).get("rows") or []:
        if row["b"] is not None and row["delta"]:
            group = by_operation.setdefault(row["operation"], {})
            group.setdefault((row["communicator"], row["root"]), []).append(row)
    chosen = {}
    for operation, groups in by_operation.items():
        busiest = max(groups.values(), key=lambda rows: sum(r["calls"] for r in rows))
        sizes = spread_choice(sorted({r["bytes"] for r in busiest}), MAX_ARRIVAL_SIZES)
        chosen[operation] = [r for r in busiest if r["bytes"] in sizes]
    return chosen


def pattern_family(pattern):
    """What a pattern is without its delay ('rank:1:5us' -> 'rank:1'): one
    line per family, so that sides delaying different processes are not
    joined into one line."""
    return (pattern or "").rsplit(":", 1)[0] if ":" in (pattern or "") else (pattern or "")


def arrival_plot(pyplot, summary, operation, rows, path):
    figure, axes = pyplot.subplots(figsize=(7, 4.5))
    families = sorted({pattern_family(r.get("pattern")) for r in rows})
    styles = ("-", "--", ":", "-.")
    colors = {size: f"C{i % 10}" for i, size in enumerate(sorted({r["bytes"] for r in rows}))}
    for (size, color), (number, family) in itertools.product(colors.items(), enumerate(families)):
        points = sorted((r for r in rows
                         if r["bytes"] == size and pattern_family(r.get("pattern")) == family),
                        key=lambda r: r["delta"])
        if not points:
            continue
        xs = [1e6 * r["delta"] for r in points]
        values = [r["b"] for r in points]
        low = [b - (r["b_low"] if r["b_low"] is not None else b) for b, r in zip(values, points)]
        high = [(r["b_high"] if r["b_high"] is not None else b) - b for b, r in zip(values, points)]
        label = f"{size} bytes" + (f", {family}" if len(families) > 1 else "")
        axes.errorbar(xs, values, yerr=[low, high], marker="o", capsize=3, color=color,
                      linestyle=styles[number % len(styles)], label=label)
    for level in (0.0, 1.0):
        axes.axhline(level, color="gray", linestyle="--", linewidth=1)
    deltas = [r["delta"] for r in rows]
    if max(deltas) / min(deltas) >= 10:
        axes.set_xscale("log")
    # The deltas run are the ticks (a log axis would label decades only).
    ticks = sorted({1e6 * d for d in deltas})
    axes.set_xticks(ticks, [f"{t:g}" for t in ticks])
    axes.minorticks_off()
    axes.set_xlabel("delay of the late process(es), delta (us)")
    axes.set_ylabel("b = (t0 + delta - t_delta) / t_delta")
    t0 = (summary.get("arrival") or {}).get("t0_side")
    axes.set_title(f"{operation}: delay overlap benefit (t0 = side {t0}, 95 % intervals)")
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize="small")
    return _save(pyplot, figure, path)


def collective_groups(summary):
    """Per operation, the rows of its busiest communicator with a pooled delta."""
    by_operation = {}
    for row in summary.get("collectives") or []:
        if (row.get("pooled") or {}).get("local"):
            by_operation.setdefault(row["operation"], {}).setdefault(row["communicator"], []).append(row)
    first = summary["comparison_pair"][0]
    groups = {}
    for operation, per_comm in by_operation.items():
        busiest = max(per_comm.values(), key=lambda rows: sum(r["sides"][first]["calls"] for r in rows))
        groups[operation] = sorted(busiest, key=lambda r: r["bytes"])
    return groups


def collective_plot(pyplot, summary, operation, rows, path):
    first, second = summary["comparison_pair"]
    figure, (deltas, skews) = pyplot.subplots(1, 2, figsize=(12, 4.5))
    sizes = [r["bytes"] for r in rows]
    xs = sizes if len(sizes) > 1 else [0]
    for figure_name, color in (("local", "tab:purple"), ("t_global", "tab:green")):
        pooled = [r["pooled"][figure_name] for r in rows]
        shown = [(x, p) for x, p in zip(xs, pooled) if p]
        if not shown:
            continue
        values = [p["delta"] for _, p in shown]
        deltas.errorbar([x for x, _ in shown], values,
                        yerr=[[v - p["delta_low"] for v, (_, p) in zip(values, shown)],
                              [p["delta_high"] - v for v, (_, p) in zip(values, shown)]],
                        color=color, marker="o", capsize=3, label=f"{figure_name} (per call, 95 %)")
    # The benchmark's own delta of the same sizes, where it printed them.
    osu = {e["size"]: e["comparison"] for e in summary["results"] if e["comparison"]}
    matched = [(x, osu[r["bytes"]]) for x, r in zip(xs, rows) if r["bytes"] in osu]
    if matched:
        deltas.plot([x for x, _ in matched], [c["delta"] for _, c in matched], color="gray",
                    marker="s", linestyle=":", label=f"benchmark's {summary['metric']} (runs' medians)")
    deltas.axhline(1.0, color="gray", linestyle="--", linewidth=1)
    deltas.set_ylabel(f"delta = {first} / {second}")
    deltas.set_title(f"{operation}: {summary['modes'][first]} vs {summary['modes'][second]}")
    positive = False
    for side in (first, second):
        skew = [r["sides"][side]["arrival_skew"] for r in rows]
        positive = positive or any(skew)
        skews.plot(xs, [1e6 * s if s else None for s in skew], marker="o",
                   color=SIDE_COLORS.get(side, "black"), label=f"{side}: {summary['modes'][side]}")
    if positive:  # a log axis without a positive value cannot be drawn
        skews.set_yscale("log")
    skews.set_ylabel("arrival skew, median (us)")
    skews.set_title("how far apart the processes arrived")
    for axes in (deltas, skews):
        if len(sizes) > 1:
            _size_axis(axes, sizes)
        axes.grid(True, which="both", alpha=0.3)
        axes.legend(fontsize="small")
    return _save(pyplot, figure, path)


def _save(pyplot, figure, path):
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    pyplot.close(figure)
    return path


def _size_axis(axes, sizes):
    if len(sizes) > 1 and min(sizes) > 0:
        axes.set_xscale("log", base=2)
    axes.set_xlabel("message size (bytes)")


def latency_plot(pyplot, summary, entries, title, path):
    figure, axes = pyplot.subplots(figsize=(7, 4.5))
    sizes = [e["size"] for e in entries]
    single = len(sizes) == 1
    for position, side in enumerate(summary["sides"]):
        points = [(e["size"], e["sides"][side]) for e in entries if side in e["sides"]]
        if not points:
            continue
        label = f"{side}: {summary['modes'][side]}"
        color = SIDE_COLORS.get(side)
        xs = [p[0] for p in points]
        medians = [p[1]["median"] for p in points]
        lows = [p[1]["min"] for p in points]
        highs = [p[1]["max"] for p in points]
        if single:
            # One point (barrier): bars with the min-max range as error bar.
            axes.bar(position, medians[0], color=color, alpha=0.7, label=label,
                     yerr=[[medians[0] - lows[0]], [highs[0] - medians[0]]], capsize=6)
        else:
            axes.plot(xs, medians, marker="o", color=color, label=label)
            axes.fill_between(xs, lows, highs, color=color, alpha=0.2)
    if single:
        axes.set_xticks(range(len(summary["sides"])))
        axes.set_xticklabels(summary["sides"])
    else:
        _size_axis(axes, sizes)
        values = [v["median"] for e in entries for v in e["sides"].values() if v["median"] > 0]
        if values and max(values) / min(values) > 20:
            axes.set_yscale("log")
    axes.set_ylabel(f"{summary['metric']} latency (us)")
    axes.set_title(f"{title}: median over runs, band = min..max")
    axes.grid(True, which="both", alpha=0.3)
    axes.legend()
    return _save(pyplot, figure, path)


def delta_plot(pyplot, summary, entries, title, path):
    first, second = summary["comparison_pair"]
    figure, axes = pyplot.subplots(figsize=(7, 4.5))
    compared = [e for e in entries if e["comparison"]]
    sizes = [e["size"] for e in compared]
    xs = sizes if len(sizes) > 1 else [0]
    deltas = [e["comparison"]["delta"] for e in compared]
    lows = [d - e["comparison"]["delta_low"] for d, e in zip(deltas, compared)]
    highs = [e["comparison"]["delta_high"] - d for d, e in zip(deltas, compared)]
    axes.errorbar(xs, deltas, yerr=[lows, highs], color="black", linestyle="-", capsize=3, zorder=1)
    exceeds = [e["comparison"]["exceeds_noise"] for e in compared]
    axes.scatter([x for x, v in zip(xs, exceeds) if v], [d for d, v in zip(deltas, exceeds) if v],
                 color="black", zorder=2, label="exceeds run-to-run noise")
    axes.scatter([x for x, v in zip(xs, exceeds) if not v], [d for d, v in zip(deltas, exceeds) if not v],
                 facecolors="white", edgecolors="black", zorder=2, label="within noise / too few runs")
    axes.axhline(1.0, color="gray", linestyle="--", linewidth=1)
    if len(sizes) > 1:
        _size_axis(axes, sizes)
    axes.set_ylabel(f"delta = t_{first} / t_{second}")
    axes.set_title(f"{title}: {summary['modes'][first]} vs {summary['modes'][second]}")
    axes.grid(True, which="both", alpha=0.3)
    axes.legend()
    return _save(pyplot, figure, path)


def skew_series(summary):
    """{side: [(name, [(seconds, level)...]) per run]} for the plot and for tests."""
    series = {}
    for side in summary["sides"]:
        merged = (summary["library"] or {}).get(side)
        if not merged:
            continue
        for name, comm in merged["communicators"].items():
            for field, suffix in (("exit_skew", ""), ("truth_exit_skew", " (truth)")):
                dist = comm.get(field)
                if not dist:
                    continue
                for run in dist["per_run"]:
                    # A zero skew (typical minimum) has no place on a log axis.
                    points = [(run[key], level) for key, level in SKEW_LEVELS
                              if isinstance(run.get(key), (int, float)) and run[key] > 0]
                    if points:
                        series.setdefault(side, []).append((name + suffix, points))
    return series


def skew_plot(pyplot, summary, path):
    series = skew_series(summary)
    if not series:
        return None
    figure, axes = pyplot.subplots(figsize=(7, 4.5))
    positive = []
    for side, runs in series.items():
        color = SIDE_COLORS.get(side)
        labelled = set()
        for name, points in runs:
            label = f"{side}: {summary['modes'][side]} {name}"
            xs = [p[0] * 1e6 for p in points]
            positive += xs
            axes.plot(xs, [p[1] for p in points], marker="o", color=color, alpha=0.6,
                      linestyle="--" if "truth" in name else "-",
                      label=None if label in labelled else label)
            labelled.add(label)
    if positive and max(positive) / min(positive) > 20:
        axes.set_xscale("log")
    axes.set_xlabel("barrier exit skew (us): last minus first process to leave")
    axes.set_ylabel("fraction of barrier calls (zero skews not drawn)")
    axes.set_title("exit skew distribution per side (percentiles of each run)")
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize="small")
    return _save(pyplot, figure, path)
