"""Statistics across runs: pure functions over lists of numbers and of the
benchmark's parsed rows (each side's latency per size: collect_points,
aggregate_points). No I/O and no matplotlib here; the library's reports are
merged in library_stats, its per-call figures compared in per_call, late
arrivals in arrival.

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


def aggregate_points(points, sides, baseline_pair=("A", "B"), reference=None):
    """One result dict per point, sorted by benchmark, processes, size; with
    a `reference` side also each other side compared with it ("versus")."""
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
        if reference is not None:
            entry["versus"] = {side: compare(per_side[side], per_side[reference]) for side in sides
                               if side != reference and per_side.get(side) and per_side.get(reference)}
        results.append(entry)
    return results
