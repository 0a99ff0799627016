"""The collective itself, per call: the library's histograms of each call's
times pooled over a side's runs (collective_points), their medians with 95 %
intervals, and the ratio of two sides' medians with an interval that is the
wider of the pooled calls' and a cluster bootstrap over runs
(compare_collectives). Pure functions."""
import bisect
import math
import random
from collections import Counter, defaultdict
from statistics import NormalDist

from .stats import compare, median


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


def pool_calls(pool):
    """How many calls a pool holds (None: none)."""
    return 0 if pool is None else pool["below"] + pool["above"] + sum(pool["counts"].values())


def pooled_median(pool, level=0.95):
    """(low, median, high) of the pooled calls: the median (its bucket's
    midpoint) and a `level` interval from order statistics, widened to the
    edges of the buckets that hold them (a bucket spans 1.6 %: thousands of
    calls often put all three in one bucket); None when the pool is empty."""
    n = pool_calls(pool)
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


def key_order(ident):
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
    for ident in sorted(set(a_points) & set(b_points), key=key_order):
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
