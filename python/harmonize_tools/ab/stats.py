"""Statistics across runs: pure functions over lists of numbers and of parsed
rows / library reports. No I/O and no matplotlib here.

Run-to-run noise: with a handful of runs per side there is no distribution to
test against, so the rule is deliberately simple and conservative. A
difference "exceeds the noise" when the ranges [min, max] of the two sides do
not overlap and each side has at least two runs. For two sides of n runs each
this happens by chance with probability 2 / C(2n, n) (10 % for n = 2, 0.8 %
for n = 5), which is what the docs tell users when choosing --runs.
"""
import bisect
import math
import random
from collections import Counter, defaultdict
from statistics import NormalDist

from ..common import communicator_delta, pattern_delta
from .sides import setting_value

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
        # Above 1 024 ranks a report keeps the worst ranks instead (docs/report.md,
        # "At scale"): summed over the runs that name them, a lower bound.
        worst_field = field.replace("_per_rank", "_worst_ranks")
        worst = [c[worst_field] for c in comms if c.get(worst_field)]
        if worst:
            summed = {}
            for one in worst:
                for rank, count in one.get("worst") or []:
                    summed[rank] = summed.get(rank, 0) + count
            ranked = sorted(summed.items(), key=lambda item: (-item[1], item[0]))[:16]
            out[worst_field] = {"ranks_with_events": max(w.get("ranks_with_events", 0) for w in worst),
                                "worst": [list(item) for item in ranked]}
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


# ------------------------------------------------------- the collective itself

# What the library measured of each collective call (docs/collectives.md):
# each member's own time, the operation as a whole, how far apart the
# members arrived, and (non-blocking operations only) the overlap: each
# member's work between the start and the completing call.
COLLECTIVE_FIGURES = ("local", "t_global", "arrival_skew", "overlap")
# The same over the valid calls only (right after a harmonized barrier every
# member left in time), pooled as "valid_" + figure + "_pool"; arrival_error
# (how far each member's entry was from the arrival pattern's) is new in the
# reports of libraries with HARMONIZE_ARRIVAL.
VALID_FIGURES = ("t_global", "arrival_skew", "arrival_error")


# A two-sided 95 % interval for a median: the order statistics n/2 -+ 1.96
# sqrt(n) / 2 of n independent calls.
Z_95 = 1.96


def collective_points(reports):
    """Per (communicator, operation, bytes, root) of the library reports of
    one side: calls and valid calls summed over runs; per figure each run's
    median over its calls (thousands of calls a run, where OSU prints one
    average), and the runs' histograms pooled (figure + "_pool"), and kept
    per run (figure + "_runs"; the valid calls' as "valid_" + figure + "_runs")."""
    points = {}
    for report in reports:
        run_pools = {}  # this run's own histograms, per key and figure (the bootstrap's units)
        for comm in report.get("communicators") or []:
            for key in (comm.get("collectives") or {}).get("keys") or []:
                ident = (comm.get("name", "?"), key.get("operation", "?"), key.get("bytes", 0),
                         key.get("root"))
                point = points.setdefault(ident, {"calls": 0, "valid_calls": 0, "size": comm.get("size"),
                                                  **{f: [] for f in COLLECTIVE_FIGURES},
                                                  **{f + "_pool": None for f in COLLECTIVE_FIGURES},
                                                  **{f + "_runs": [] for f in COLLECTIVE_FIGURES},
                                                  **{f"valid_{f}_pool": None for f in VALID_FIGURES},
                                                  **{f"valid_{f}_runs": [] for f in VALID_FIGURES}})
                point["calls"] += key.get("calls") or 0
                point["valid_calls"] += key.get("valid_calls") or 0
                for figure in COLLECTIVE_FIGURES:
                    distribution = key.get(figure) or {}
                    value = distribution.get("p50")
                    if isinstance(value, (int, float)) and not isinstance(value, bool):
                        point[figure].append(float(value))
                    if distribution.get("histogram"):
                        point[figure + "_pool"] = pool_histograms(point[figure + "_pool"],
                                                                  distribution["histogram"])
                        run_pools[ident, figure] = pool_histograms(run_pools.get((ident, figure)),
                                                                   distribution["histogram"])
                for figure in VALID_FIGURES:
                    histogram = ((key.get("valid") or {}).get(figure) or {}).get("histogram")
                    if histogram:
                        pool = f"valid_{figure}_pool"
                        point[pool] = pool_histograms(point[pool], histogram)
                        run_pools[ident, "valid_" + figure] = pool_histograms(
                            run_pools.get((ident, "valid_" + figure)), histogram)
        for (ident, figure), pool in run_pools.items():
            points[ident][figure + "_runs"].append(pool)
    return points


def pool_histograms(pool, histogram):
    """Adds one report's histogram (docs/report.md) to `pool` (None: empty)."""
    scheme = (histogram["min_exponent"], histogram["sub_buckets"])
    if pool is None:
        pool = {"scheme": scheme, "counts": defaultdict(int), "below": 0, "above": 0}
    if pool["scheme"] != scheme:
        raise ValueError("library reports with different histogram schemes")
    for offset, count in enumerate(histogram.get("counts") or []):
        if count:
            pool["counts"][histogram["first"] + offset] += count
    pool["below"] += histogram.get("below") or 0
    pool["above"] += histogram.get("above") or 0
    return pool


def bucket_value(index, scheme, where=0.5):
    """A point of a histogram bucket, in seconds: its lower edge (0), its
    midpoint (0.5) or its upper edge (1)."""
    min_exponent, sub_buckets = scheme
    exponent = index // sub_buckets + min_exponent
    sub = index % sub_buckets
    return math.ldexp(1.0 + (sub + where) / sub_buckets, exponent - 1)


def z_of(level):
    """The normal quantile of a two-sided `level` interval (1.96 for 95 %)."""
    return Z_95 if level == 0.95 else NormalDist().inv_cdf(0.5 + level / 2.0)


def pooled_median(pool, level=0.95):
    """(low, median, high) of the pooled calls: the median (its bucket's
    midpoint) and a `level` interval from order statistics, widened to the
    edges of the buckets that hold them (a bucket spans 1.6 %: thousands of
    calls often put all three in one bucket); None when the pool is empty."""
    if pool is None:
        return None
    n = pool["below"] + pool["above"] + sum(pool["counts"].values())
    if n == 0:
        return None
    half_width = z_of(level) * math.sqrt(n) / 2.0
    ranks = [max(1, math.floor(n / 2.0 - half_width)), max(1, math.ceil(n / 2.0)),
             min(n, math.ceil(n / 2.0 + half_width) + 1)]
    values = []
    for rank, where in zip(ranks, (0.0, 0.5, 1.0)):
        seen = pool["below"]
        value = 0.0 if seen >= rank else None
        if value is None:
            for index in sorted(pool["counts"]):
                seen += pool["counts"][index]
                if seen >= rank:
                    value = bucket_value(index, pool["scheme"], where)
                    break
        values.append(math.inf if value is None else value)
    return tuple(values)


def compare_pooled(a_pool, b_pool, level=0.95):
    """delta = pooled median A / pooled median B, its `level` interval (the
    worst case of the two medians' intervals) and whether it excludes 1."""
    a, b = pooled_median(a_pool, level), pooled_median(b_pool, level)
    if a is None or b is None or b[0] <= 0:
        return None
    low, high = a[0] / b[2], a[2] / b[0]
    return {"delta": a[1] / b[1], "delta_low": low, "delta_high": high,
            "decided": low > 1.0 or high < 1.0}


# ------------------------------------------------------- runs as the unit: a cluster bootstrap

# The calls of one run share its disturbances (a descheduled process, a
# neighbour's burst), so they are not independent samples: one disturbed
# run can move the pooled median of thousands of calls far outside the
# order-statistics interval. Runs are the independent unit: resample runs
# with replacement, pool the resampled runs' calls, recompute the ratio of
# medians; the 2.5 and 97.5 percentiles of those ratios bound delta.
MIN_RUNS_TO_DECIDE = 3  # a side: with 2, a bootstrap can only repeat the two runs' range
BOOTSTRAP_REPLICATES = 2000
BOOTSTRAP_SEED = 25  # fixed: the same runs always give the same interval
UNDECIDED_REASONS = {"few": "too few runs", "disagree": "runs disagree", "holds": "interval holds 1"}


class RunsMedian:
    """The pooled median of any resample of one side's runs, in O(runs x
    log buckets): each run's cumulative counts over the buckets of all
    runs, searched by bisection for the middle rank (as pooled_median)."""

    def __init__(self, pools):
        self.scheme = pools[0]["scheme"]
        if any(pool["scheme"] != self.scheme for pool in pools):
            raise ValueError("library reports with different histogram schemes")
        self.buckets = sorted(set().union(*(pool["counts"] for pool in pools)))
        self.below = [pool["below"] for pool in pools]
        self.cumulative = []
        self.totals = []
        for pool in pools:
            running, row = pool["below"], []
            for index in self.buckets:
                running += pool["counts"].get(index, 0)
                row.append(running)
            self.cumulative.append(row)
            self.totals.append(running + pool["above"])

    def median(self, weights):
        """Pooled median of the runs taken `weights[run]` times (a Counter)."""
        total = sum(self.totals[run] * times for run, times in weights.items())
        if total == 0:
            return None
        rank = max(1, math.ceil(total / 2.0))
        if sum(self.below[run] * times for run, times in weights.items()) >= rank:
            return 0.0

        def reached(position):
            return sum(self.cumulative[run][position] * times for run, times in weights.items()) >= rank

        position = bisect.bisect_left(range(len(self.buckets)), True, key=reached)
        if position == len(self.buckets):
            return math.inf
        return bucket_value(self.buckets[position], self.scheme, 0.5)


def ratio(a, b):
    return math.inf if not b else a / b


def bootstrap_ratios(a_pools, b_pools, replicates=BOOTSTRAP_REPLICATES, seed=BOOTSTRAP_SEED):
    """Sorted ratios of pooled medians, A over B, of `replicates` resamples
    of each side's runs (with replacement, as many runs as the side has)."""
    a_side, b_side = RunsMedian(a_pools), RunsMedian(b_pools)
    draw = random.Random(seed)
    ratios = []
    for _ in range(replicates):
        a_runs = Counter(draw.choices(range(len(a_pools)), k=len(a_pools)))
        b_runs = Counter(draw.choices(range(len(b_pools)), k=len(b_pools)))
        a, b = a_side.median(a_runs), b_side.median(b_runs)
        if a is not None and b is not None:
            ratios.append(ratio(a, b))
    return sorted(ratios)


def percentile_interval(ordered, level=0.95):
    """(low, high) of sorted values: the order statistics just outside the
    central `level` share (the wider choice where it falls between two)."""
    tail = (1.0 - level) / 2.0
    last = len(ordered) - 1
    return ordered[math.floor(tail * last)], ordered[math.ceil((1.0 - tail) * last)]


def compare_runs(a_pools, b_pools, replicates=BOOTSTRAP_REPLICATES, seed=BOOTSTRAP_SEED, level=0.95):
    """delta = pooled median A / pooled median B over the runs' histograms
    (one pool per run), with a `level` interval that is the wider of the
    calls' (order statistics of the pooled calls, compare_pooled) and the
    runs' (a cluster bootstrap over runs): never narrower than the calls
    alone say, and as wide as the runs disagree. `decided` when it excludes
    1 with at least MIN_RUNS_TO_DECIDE runs a side; else `reason` says why."""
    if not a_pools or not b_pools:
        return None
    calls = compare_pooled(pool_runs(a_pools), pool_runs(b_pools), level)
    if calls is None:
        return None
    ratios = bootstrap_ratios(a_pools, b_pools, replicates, seed)
    runs_low, runs_high = percentile_interval(ratios, level) if ratios else \
        (calls["delta_low"], calls["delta_high"])
    low, high = min(calls["delta_low"], runs_low), max(calls["delta_high"], runs_high)
    excludes_one = low > 1.0 or high < 1.0
    enough = min(len(a_pools), len(b_pools)) >= MIN_RUNS_TO_DECIDE
    reason = None
    if not enough:
        reason = UNDECIDED_REASONS["few"]
    elif not excludes_one:
        # The calls alone would decide, the runs do not agree on it.
        reason = UNDECIDED_REASONS["disagree" if calls["decided"] else "holds"]
    return {"delta": calls["delta"], "delta_low": low, "delta_high": high, "decided": reason is None,
            "reason": reason, "calls_low": calls["delta_low"], "calls_high": calls["delta_high"],
            "runs": [len(a_pools), len(b_pools)]}


def pool_runs(pools):
    """One pool of the calls of several runs' pools."""
    merged = None
    for pool in pools:
        if merged is None:
            merged = {"scheme": pool["scheme"], "counts": defaultdict(int), "below": 0, "above": 0}
        for index, count in pool["counts"].items():
            merged["counts"][index] += count
        merged["below"] += pool["below"]
        merged["above"] += pool["above"]
    return merged


def _key_order(ident):
    """(communicator, operation, bytes, root) with no root first."""
    communicator, operation, size, root = ident
    return (communicator, operation, size, -1 if root is None else root)


def compare_collectives(points_by_side, pair):
    """One row per key both sides of `pair` measured: per side the calls,
    valid calls and each figure's median over runs; per figure the delta
    first/second of the pooled calls' medians with a 95 % interval over
    runs and whether it excludes 1 ("pooled", compare_runs), and of the
    runs' medians with their range and whether it exceeds their noise
    ("comparison", as compare(): what a disturbed run does). The arrival
    skew gets no delta: the harmonized side's is the clock's error."""
    first, second = pair
    a_points, b_points = points_by_side.get(first) or {}, points_by_side.get(second) or {}
    rows = []
    for ident in sorted(set(a_points) & set(b_points), key=_key_order):
        row = {"communicator": ident[0], "operation": ident[1], "bytes": ident[2], "root": ident[3],
               "sides": {}, "comparison": {}, "pooled": {}}
        for side, point in ((first, a_points[ident]), (second, b_points[ident])):
            row["sides"][side] = {"calls": point["calls"], "valid_calls": point["valid_calls"],
                                  **{f: median(point[f]) if point[f] else None
                                     for f in COLLECTIVE_FIGURES}}
        for figure in ("local", "t_global"):
            a_values, b_values = a_points[ident][figure], b_points[ident][figure]
            usable = a_values and b_values and min(b_values) > 0
            row["comparison"][figure] = compare(a_values, b_values) if usable else None
            row["pooled"][figure] = compare_runs(a_points[ident].get(figure + "_runs"),
                                                 b_points[ident].get(figure + "_runs"))
        rows.append(row)
    return rows


# ------------------------------------------------------- late arrivals (paper 002)

def overlap_benefit(t0, t_delta, delta):
    """Paper 002's delay overlap benefit (eq. 5): b = (t0 + delta - t_delta) /
    t_delta, with t0 the collective's t_global when every process arrives
    together and t_delta when one arrives delta late. 1: the delay is hidden
    up to t0; 0: it simply adds; below 0: it costs extra."""
    return (t0 + delta - t_delta) / t_delta


def overlap_benefit_interval(t0_interval, t_delta_interval, delta):
    """(low, high) of b from the (low, high) intervals of t0 and t_delta: b
    grows with t0 and shrinks with t_delta, so the worst cases pair them
    crosswise. None when t_delta's interval reaches 0."""
    (t0_low, t0_high), (t_delta_low, t_delta_high) = t0_interval, t_delta_interval
    if t_delta_low <= 0:
        return None
    return (overlap_benefit(t0_low, t_delta_high, delta), overlap_benefit(t0_high, t_delta_low, delta))


def side_arrival(mode, reports, settings):
    """(pattern, delta in seconds or None, where delta came from) of one side.
    The pattern applies in mode harmonize only. The reports say what the
    library did ("arrival": {"pattern", "delta"}); older libraries' reports do
    not, and then the side's HARMONIZE_ARRIVAL (unset: none) is read."""
    if mode != "harmonize":
        return None, None, None
    for report in reports:
        arrival = report.get("arrival")
        if isinstance(arrival, dict) and isinstance(arrival.get("pattern"), str):
            delta = arrival.get("delta")
            if isinstance(delta, (int, float)) and not isinstance(delta, bool):
                return arrival["pattern"], float(delta), "report"
    pattern = setting_value(settings, "HARMONIZE_ARRIVAL") or "none"
    try:
        return pattern, pattern_delta(pattern), "setting"
    except ValueError:
        return pattern, None, "setting"


def choose_t0(sides, arrivals, requested=None):
    """(side, None) measuring t0 (harmonize, no delay), or (None, why not).
    `arrivals` maps each side to side_arrival()'s result."""
    candidates = [side for side in sides if arrivals[side][0] is not None and arrivals[side][1] == 0]
    if requested is not None:
        if requested in candidates:
            return requested, None
        pattern, delta, _ = arrivals.get(requested, (None, None, None))
        what = "not a harmonize side" if pattern is None else f"arrival {pattern} (delta {delta})"
        return None, f"--t0 {requested}: {what}, not a harmonize side without delay; b not computed"
    if candidates:
        return candidates[0], None
    return None, ("no harmonize side without delay (ARRIVAL unset, none or a zero delay), so no t0: "
                  "b not computed; add one, e.g. --side t0:ARRIVAL=none")


def arrival_rows(points_by_side, sides, arrivals, t0_side):
    """Per collective key and side: the valid calls' pooled t_global with its
    95 % interval, arrival skew and arrival error, and b(delta) against the
    t0 side's t_global of the same key. Sides in mode harmonize only (the
    others impose no pattern and have no valid calls); sorted by key, then
    by delta (unknown last)."""
    idents = set()
    for side in sides:
        idents |= set(points_by_side.get(side) or {})
    order = {side: position for position, side in enumerate(sides)}
    rows = []
    for ident in sorted(idents, key=_key_order):
        t0_point = (points_by_side.get(t0_side) or {}).get(ident) if t0_side else None
        t0 = pooled_median(t0_point["valid_t_global_pool"]) if t0_point else None
        present = [side for side in sides
                   if ident in (points_by_side.get(side) or {}) and arrivals[side][0] is not None]
        present.sort(key=lambda side: (arrivals[side][1] is None, arrivals[side][1] or 0.0, order[side]))
        for side in present:
            point = points_by_side[side][ident]
            pattern, delta, source = arrivals[side]
            # The report's delta is MPI_COMM_WORLD's; a pattern's ranks are
            # each communicator's own.
            if ident[0] != "MPI_COMM_WORLD" and pattern is not None:
                try:
                    delta = communicator_delta(pattern, point.get("size"), delta)
                except ValueError:
                    delta = None
            t_global = pooled_median(point["valid_t_global_pool"])
            skew = pooled_median(point["valid_arrival_skew_pool"])
            error = pooled_median(point["valid_arrival_error_pool"])
            row = {"communicator": ident[0], "operation": ident[1], "bytes": ident[2], "root": ident[3],
                   "side": side, "pattern": pattern, "delta": delta, "delta_source": source,
                   "calls": point["calls"], "valid_calls": point["valid_calls"],
                   "t_global": None, "t_global_low": None, "t_global_high": None,
                   "arrival_skew": skew[1] if skew else None,
                   "arrival_error": error[1] if error else None,
                   "is_t0": side == t0_side, "b": None, "b_low": None, "b_high": None}
            if t_global:
                row["t_global_low"], row["t_global"], row["t_global_high"] = t_global
            if t0 and t_global and delta is not None and side != t0_side and t_global[1] > 0:
                row["b"] = overlap_benefit(t0[1], t_global[1], delta)
                interval = overlap_benefit_interval((t0[0], t0[2]), (t_global[0], t_global[2]), delta)
                if interval:
                    row["b_low"], row["b_high"] = interval
            rows.append(row)
    return rows


def arrival_summary(points_by_side, sides, arrivals, requested_t0=None):
    """summary["arrival"]: each side's pattern and delta, t0 and the rows;
    "applies" when some side has a pattern other than none."""
    t0_side, note = choose_t0(sides, arrivals, requested_t0)
    return {"applies": any(arrivals[side][0] not in (None, "none") for side in sides),
            "t0_side": t0_side, "note": note,
            "sides": {side: dict(zip(("pattern", "delta", "delta_source"), arrivals[side])) for side in sides},
            "rows": arrival_rows(points_by_side, sides, arrivals, t0_side)}
