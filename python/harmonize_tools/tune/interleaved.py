"""harmonize-tune --interleave: every algorithm of a collective a side of one
interleaved run (HARMONIZE_INTERLEAVE, docs/interleave.md), so that all of
them meet the same speed state of the machine, and the choice from the
library's paired blocks (docs/tuning.md, "Interleaved"). Pure functions.

Why the sign counts and not the runs' intervals: the library's interval of a
run holds its level over that run's comparisons (every key, both figures),
while a tuning asks one family-wise level over the sizes and algorithms of a
collective, over every group of sides (the library interleaves eight at the
most) and every run --until-decided adds. The blocks' signs pool across runs
and groups (ab/sequential.py), so the choice is made from them at
5 % / (comparisons x runs allowed), and the ratio shown is the runs' median
difference over the default's median.
"""
from statistics import median

from ..ab import sequential
from .decide import choose

MOST_SIDES = 8  # HARMONIZE_INTERLEAVE's limit
FIGURE = "t_global"


def side_groups(values, default):
    """The algorithms in runs of at most MOST_SIDES sides, each led by the
    default (the baseline every side is paired with)."""
    others = [value for value in values if value != default]
    step = MOST_SIDES - 1
    return [[default, *others[at:at + step]] for at in range(0, len(others), step)] or [[default]]


def measured_keys(group_runs, operation, sizes=None):
    """{(processes, bytes, root): communicator}: per key the communicator
    whose baseline made the most calls over every run (OSU measures on
    MPI_COMM_WORLD, IMB on a communicator of its own), within `sizes`."""
    calls = {}
    for runs in group_runs:
        for info in runs:
            for row in info.get("comparisons") or []:
                if row["operation"] != operation or row["figure"] != FIGURE:
                    continue
                if sizes and not sizes[0] <= row["bytes"] <= sizes[1]:
                    continue
                where = (row["size"], row["bytes"], row["root"])
                per_comm = calls.setdefault(where, {})
                per_comm[row["communicator"]] = per_comm.get(row["communicator"], 0) + row["baseline_calls"]
    return {where: max(sorted(per_comm), key=lambda comm: per_comm[comm]) for where, per_comm in calls.items()}


def kept_runs(runs, keys, operation):
    """`runs` with only the t_global comparisons of `keys`."""
    return [{"comparisons": [row for row in info.get("comparisons") or []
                             if row["operation"] == operation and row["figure"] == FIGURE
                             and keys.get((row["size"], row["bytes"], row["root"])) == row["communicator"]]}
            for info in runs]


def decide(group_runs, operation, default, algorithms, sizes=None, looks=1):
    """Rows as tune.decide.decide's, from each group's interleaved runs (a
    list per group of the runs' reports' "interleave"): each algorithm's
    ratio to the default (1 + median difference / the default's median) and
    the pooled sign test's verdict, at 5 % family-wise over every size and
    algorithm and `looks` runs. An algorithm with no comparison at a size
    (its group's runs failed) is failed there."""
    keys = measured_keys(group_runs, operation, sizes)
    kept = [kept_runs(runs, keys, operation) for runs in group_runs]
    counted = [len({sequential.comparison_key(row) for info in runs for row in info["comparisons"]})
               for runs in kept]
    total = sum(counted)
    verdicts, baselines = {}, {}
    for runs, count in zip(kept, counted):
        if not count:
            continue
        share = sequential.FAMILY_LEVEL * count / total
        for row in sequential.pooled_verdicts(runs, looks, family_level=share):
            verdicts[row["communicator"], row["bytes"], row["root"], row["side"]] = row
        for info in runs:
            # Every side's row of a key carries the same baseline: once a run.
            medians = {(row["communicator"], row["bytes"], row["root"]): row["baseline_median"]
                       for row in info["comparisons"]}
            for where, value in medians.items():
                baselines.setdefault(where, []).append(value)
    rows = []
    for (processes, size, root), communicator in sorted(keys.items()):
        base = baselines.get((communicator, size, root))
        if not base:
            continue
        default_median = median(base)
        row = {"operation": operation, "processes": processes, "bytes": size, "default": default,
               "default_t_global": default_median, "versus": {}, "failed": [], "no_valid": []}
        for algorithm in (a for a in algorithms if a != default):
            verdict = verdicts.get((communicator, size, root, algorithm))
            if verdict is None:
                row["failed"].append(algorithm)
            else:
                row["versus"][algorithm] = comparison_of(verdict, default_median)
        choose(row)
        rows.append(row)
    return rows


def comparison_of(verdict, default_median):
    """A pooled verdict as tune's comparisons read: the ratio, decided,
    and why not; no interval (the decision is the sign test's, its p shown)."""
    difference = verdict["median_delta"] or 0.0
    ratio = 1.0 + difference / default_median if default_median else 1.0
    decided = verdict["decided_at"] is not None
    reason = None if decided else (f"{verdict['positive_blocks']} blocks slower, {verdict['negative_blocks']} "
                                   f"faster (p {verdict['p']:.2g} > {verdict['level_each']:.2g})")
    return {"delta": ratio, "delta_low": None, "delta_high": None, "decided": decided, "reason": reason,
            "verdict": verdict["verdict"], "p": verdict["p"],
            "blocks": [verdict["positive_blocks"], verdict["negative_blocks"]]}
