"""harmonize-scale's results: the figures of a run's report, the fits over
the process counts, and results.csv, table.md, fit.txt and scale-*.png."""
import csv
import math
import sys


def metrics(report):
    """The figures of one run, in seconds, from the library's report."""
    clock = report["clock"]
    world = next(c for c in report["communicators"] if c["name"] == "MPI_COMM_WORLD")
    end = clock.get("end_check") or {}
    return {
        "sync_s": clock["initial_sync_seconds"],
        "sync_levels": clock["sync_levels"],
        "barriers": world["harmonized_calls"],
        "missed": world["missed_calls_any"],
        # The share of calls the barrier flagged (not valid), and what the
        # resyncs cost per call: the two prices of a trusted deadline.
        "flagged_percent": 100.0 * world["missed_calls_any"] / max(world["harmonized_calls"], 1),
        "resyncs": world["resyncs"],
        "resync_per_call_s": world.get("resync_seconds", 0.0) / max(world["calls"], 1),
        "clock_error_p50_s": world["truth_clock_error"]["p50"],
        "clock_error_max_s": world["truth_clock_error"]["max"],
        "clock_error_end_s": end.get("truth_max_error"),
        "error_bound_p50_s": world["clock_error_bound"]["p50"],
        "bound_violations": world["truth_bound_violations"],
        # The likely (99 %) bound: what issue 26 holds to 4x the true error.
        "likely_bound_p50_s": world.get("clock_error_likely", {}).get("p50"),
        "likely_bound_max_s": world.get("clock_error_likely", {}).get("max"),
        "likely_violations": world.get("truth_likely_violations"),
        # What that bound assumed of the paths (HARMONIZE_PATH_ASYMMETRY).
        "path_asymmetry": report.get("config", {}).get("HARMONIZE_PATH_ASYMMETRY"),
        "exit_skew_p50_s": world["truth_exit_skew"]["p50"],
        "exit_skew_p99_s": world["truth_exit_skew"]["p99"],
        "time_in_call_p50_s": world["time_in_call"]["p50"],
        "time_in_call_p99_s": world["time_in_call"]["p99"],
    }


def fit_log(rows, scheme):
    """Least squares sync_s = a + b log2(P), and the same against P, with R^2."""
    points = [(r["procs"], r["sync_s"]) for r in rows if r["scheme"] == scheme and "sync_s" in r]
    if len(points) < 3:
        return None

    def least_squares(xs, ys):
        n = len(xs)
        mx, my = sum(xs) / n, sum(ys) / n
        sxx = sum((x - mx) ** 2 for x in xs)
        slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
        intercept = my - slope * mx
        ss_res = sum((y - intercept - slope * x) ** 2 for x, y in zip(xs, ys))
        ss_tot = sum((y - my) ** 2 for y in ys) or 1e-300
        return intercept, slope, 1 - ss_res / ss_tot

    ys = [s for _, s in points]
    a, b, r2 = least_squares([math.log2(p) for p, _ in points], ys)
    _, _, r2_linear = least_squares([float(p) for p, _ in points], ys)
    return {"scheme": scheme, "a": a, "b": b, "r2": r2, "r2_linear_in_p": r2_linear,
            "points": len(points)}


def us(value):
    return "" if value is None else f"{value * 1e6:.3f}"


def write_outputs(rows, out, schemes):
    keys = ["procs", "scheme", "nodes", "ranks_per_node", "status", "wall_s", "peak_rss_mb", "sync_s",
            "sync_levels", "barriers", "missed", "flagged_percent", "resyncs", "resync_per_call_s",
            "clock_error_p50_s", "clock_error_max_s",
            "clock_error_end_s", "error_bound_p50_s", "bound_violations", "likely_bound_p50_s",
            "likely_bound_max_s", "likely_violations", "path_asymmetry", "exit_skew_p50_s",
            "exit_skew_p99_s", "time_in_call_p50_s", "time_in_call_p99_s"]
    with open(out / "results.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=keys, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    lines = ["| P | scheme | wall s | RSS MB | sync us | clock error us (p50 / max / end) | "
             "bound us | likely bound us (p50 / max, violations; path asymmetry) | exit skew us (p50 / p99) | "
             "time in call us (p50) | missed (flagged %) | resync us/call |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if "sync_s" not in r:
            lines.append(f"| {r['procs']} | {r['scheme']} | {r['wall_s']} | {r.get('peak_rss_mb', '')} | "
                         f"failed ({r['status']}) | | | | | | | |")
            continue
        lines.append(
            f"| {r['procs']} | {r['scheme']} | {r['wall_s']:.0f} | {r.get('peak_rss_mb', '')} | "
            f"{us(r['sync_s'])} | {us(r['clock_error_p50_s'])} / {us(r['clock_error_max_s'])} / "
            f"{us(r['clock_error_end_s'])} | {us(r['error_bound_p50_s'])} | "
            f"{us(r['likely_bound_p50_s'])} / {us(r['likely_bound_max_s'])}, {r['likely_violations']}; "
            f"{r['path_asymmetry']} | "
            f"{us(r['exit_skew_p50_s'])} / {us(r['exit_skew_p99_s'])} | {us(r['time_in_call_p50_s'])} | "
            f"{r['missed']} ({r['flagged_percent']:.2f} %) | {us(r['resync_per_call_s'])} |")
    fits = [f for f in (fit_log(rows, s) for s in schemes) if f]
    fit_lines = [f"{f['scheme']}: sync = {f['a'] * 1e6:.1f} us + {f['b'] * 1e6:.1f} us x log2(P), "
                 f"R^2 {f['r2']:.4f} (against P itself: R^2 {f['r2_linear_in_p']:.4f}), {f['points']} points"
                 for f in fits]
    (out / "table.md").write_text("\n".join(lines) + "\n\n" + "\n".join(fit_lines) + "\n")
    (out / "fit.txt").write_text("\n".join(fit_lines) + "\n")
    print("\n".join(lines))
    print("\n".join(fit_lines))
    plot(rows, out, schemes, fits)


def plot(rows, out, schemes, fits):
    if not any("sync_s" in r for r in rows):
        return  # no run gave a report: nothing to draw
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("harmonize-scale: no matplotlib, no plots (Debian: python3-matplotlib)", file=sys.stderr)
        return
    panels = [
        ("sync", "sync duration at MPI_Init", [("sync_s", "")]),
        ("clock-error", "true clock error (max over ranks)",
         [("clock_error_p50_s", "p50 over barriers"), ("clock_error_end_s", "at MPI_Finalize")]),
        ("exit-skew", "true exit skew of the harmonized barrier",
         [("exit_skew_p50_s", "p50"), ("exit_skew_p99_s", "p99")]),
        ("time-in-call", "time in the harmonized barrier (p50)", [("time_in_call_p50_s", "")]),
        # Log scale: the proven bound is tens of times the truth.
        ("bound", "clock-error bounds against the truth (log scale)",
         [("clock_error_max_s", "true error, max"), ("likely_bound_max_s", "likely bound, max"),
          ("error_bound_p50_s", "proven bound, p50")]),
    ]
    fit_of = {f["scheme"]: f for f in fits}
    for name, title, series in panels:
        fig, ax = plt.subplots(figsize=(6, 4))
        if name == "bound":
            ax.set_yscale("log")
            shares = sorted({str(r.get("path_asymmetry")) for r in rows if "sync_s" in r})
            title = f"{title}\nlikely bound at HARMONIZE_PATH_ASYMMETRY={', '.join(shares)}"
        for scheme in schemes:
            mine = [r for r in rows if r["scheme"] == scheme and "sync_s" in r]
            for key, label in series:
                points = [(math.log2(r["procs"]), r[key] * 1e6) for r in mine if r.get(key) is not None]
                if points:
                    ax.plot(*zip(*points), marker="o", label=f"{scheme} {label}".strip())
            if name == "sync" and scheme in fit_of and mine:
                f = fit_of[scheme]
                xs = [math.log2(r["procs"]) for r in mine]
                ax.plot(xs, [(f["a"] + f["b"] * x) * 1e6 for x in xs], linestyle=":", color="gray",
                        label=f"{scheme} fit {f['b'] * 1e6:.0f} us/doubling, R² {f['r2']:.3f}")
        ax.set_xlabel("log2(P)")
        ax.set_ylabel("µs")
        ax.set_title(title)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(out / f"scale-{name}.png", dpi=110)
        plt.close(fig)
