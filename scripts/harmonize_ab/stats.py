"""Statistics across runs: pure functions over lists of numbers and of parsed
rows / library reports. No I/O and no matplotlib here.

Run-to-run noise: with a handful of runs per side there is no distribution to
test against, so the rule is deliberately simple and conservative. A
difference "exceeds the noise" when the ranges [min, max] of the two sides do
not overlap and each side has at least two runs. For two sides of n runs each
this happens by chance with probability 2 / C(2n, n) (10 % for n = 2, 0.8 %
for n = 5), which is what the docs tell users when choosing --runs.
"""
import math
from collections import defaultdict

MIN_RUNS_FOR_NOISE = 2


def median(values):
    """Median of a non-empty list (mean of the two middle values when even)."""
    if not values:
        raise ValueError("median of no values")
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2.0


def quantile(values, q):
    """Linear-interpolation quantile (numpy's default), q in [0, 1]."""
    if not values:
        raise ValueError("quantile of no values")
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"quantile {q} outside [0, 1]")
    ordered = sorted(values)
    position = q * (len(ordered) - 1)
    low = math.floor(position)
    high = math.ceil(position)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def summarize(values):
    """Median and spread of one quantity across runs."""
    med = median(values)
    low, high = min(values), max(values)
    return {
        "runs": len(values),
        "median": med,
        "min": low,
        "max": high,
        # Relative half-range: "the runs agree to within ±x %".
        "spread": (high - low) / (2.0 * med) if med else 0.0,
        "values": list(values),
    }


def ranges_overlap(a_values, b_values):
    return max(a_values) >= min(b_values) and max(b_values) >= min(a_values)


def compare(a_values, b_values):
    """delta = median(A) / median(B) and whether it exceeds run-to-run noise.

    `exceeds_noise` is None when either side has too few runs to say.
    The delta range is the worst case over the two ranges (min_A / max_B,
    max_A / min_B).
    """
    a_median, b_median = median(a_values), median(b_values)
    result = {"delta": a_median / b_median if b_median else math.inf,
              "delta_low": min(a_values) / max(b_values) if max(b_values) else math.inf,
              "delta_high": max(a_values) / min(b_values) if min(b_values) else math.inf,
              "exceeds_noise": None}
    if len(a_values) >= MIN_RUNS_FOR_NOISE and len(b_values) >= MIN_RUNS_FOR_NOISE:
        result["exceeds_noise"] = not ranges_overlap(a_values, b_values)
    return result


def point_key(row):
    return (row.benchmark, row.processes, row.size)


def collect_points(runs, metric="avg_us"):
    """{(benchmark, processes, size): {side: [value per run]}} from parsed runs.

    `runs` is a list of (side, rows) with the rows of one successful run.
    """
    points = defaultdict(lambda: defaultdict(list))
    for side, rows in runs:
        for row in rows:
            value = getattr(row, metric)
            if value is None:
                raise ValueError(f"metric {metric} is not in the output of {row.benchmark} "
                                 "(OSU prints min/max only with -f)")
            points[point_key(row)][side].append(value)
    return points


def aggregate_points(points, sides, baseline_pair=("A", "B")):
    """One result dict per point, sorted by benchmark, processes, size."""
    results = []
    first, second = baseline_pair
    for key in sorted(points, key=lambda k: (k[0], k[1] or 0, k[2])):
        benchmark, processes, size = key
        per_side = points[key]
        entry = {"benchmark": benchmark, "processes": processes, "size": size, "sides": {}}
        for side in sides:
            if per_side.get(side):
                entry["sides"][side] = summarize(per_side[side])
        if per_side.get(first) and per_side.get(second):
            entry["comparison"] = compare(per_side[first], per_side[second])
        else:
            entry["comparison"] = None
        results.append(entry)
    return results


# ------------------------------------------------------- library reports

COUNT_FIELDS = ("calls", "harmonized_calls", "missed_calls_any", "late_calls_any", "resyncs")
SUM_FIELDS = ("resync_seconds",)
DISTRIBUTIONS = ("exit_skew", "lateness", "late_by", "wait", "time_in_call", "truth_exit_skew")
PERCENTILES = ("min", "p50", "p90", "p99", "max", "mean")


def merge_reports(reports):
    """Merge the JSON reports of the runs of one side.

    Counts are summed over runs; percentiles cannot be merged exactly, so each
    is given as the median over runs and, for the tail, the worst run too
    ("max_of_runs"). Communicators are matched by name.
    """
    merged = {"runs": len(reports), "communicators": {}, "clock": {}, "mode": None}
    sync_totals = []
    initial_syncs = []
    for report in reports:
        config = report.get("config") or {}
        merged["mode"] = merged["mode"] or report.get("mode") or config.get("HARMONIZE_MODE")
        clock = report.get("clock") or {}
        for name in ("scheme", "time_source", "model", "offset_alg"):
            if clock.get(name) is not None:
                merged["clock"][name] = clock[name]
        if isinstance(clock.get("sync_seconds_total"), (int, float)):
            sync_totals.append(clock["sync_seconds_total"])
        if isinstance(clock.get("initial_sync_seconds"), (int, float)):
            initial_syncs.append(clock["initial_sync_seconds"])
    if sync_totals:
        merged["clock"]["sync_seconds_total_median"] = median(sync_totals)
    if initial_syncs:
        merged["clock"]["initial_sync_seconds_median"] = median(initial_syncs)

    by_name = defaultdict(list)
    for report in reports:
        for comm in report.get("communicators") or []:
            by_name[comm.get("name", "?")].append(comm)
    for name, comms in by_name.items():
        merged["communicators"][name] = _merge_communicator(comms)
    return merged


def _numbers(comms, field, sub=None):
    values = []
    for comm in comms:
        value = comm.get(field)
        if sub is not None:
            value = value.get(sub) if isinstance(value, dict) else None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            values.append(value)
    return values


def _merge_communicator(comms):
    out = {"runs": len(comms), "size": comms[0].get("size"), "kind": comms[0].get("kind")}
    for field in COUNT_FIELDS:
        out[field] = int(sum(_numbers(comms, field)))
    for field in SUM_FIELDS:
        out[field] = float(sum(_numbers(comms, field)))
    denominator = out["harmonized_calls"] or out["calls"]
    out["failure_rate"] = out["missed_calls_any"] / denominator if denominator else 0.0
    out["late_rate"] = out["late_calls_any"] / denominator if denominator else 0.0
    for field in ("missed_events_per_rank", "late_events_per_rank"):
        events = [0] * max((len(c.get(field) or []) for c in comms), default=0)
        for comm in comms:
            for rank, count in enumerate(comm.get(field) or []):
                events[rank] += count
        out[field] = events
    slack = {}
    for sub in ("initial", "final", "max", "min"):
        values = _numbers(comms, "slack", sub)
        if values:
            slack[sub] = median(values)
    out["slack"] = slack or None
    for dist in DISTRIBUTIONS:
        present = [c for c in comms if isinstance(c.get(dist), dict) and c[dist].get("count")]
        if not present:
            out[dist] = None
            continue
        merged = {"count": int(sum(_numbers(present, dist, "count")))}
        for sub in PERCENTILES:
            values = _numbers(present, dist, sub)
            if values:
                merged[sub] = median(values)
        tails = _numbers(present, dist, "max")
        if tails:
            merged["max_of_runs"] = max(tails)
        merged["per_run"] = [{sub: c[dist].get(sub) for sub in PERCENTILES} for c in present]
        out[dist] = merged
    return out
