"""The library's statistics of a side: the reports of its runs merged into
one (counts summed, distributions pooled per communicator). Pure functions."""
from collections import defaultdict

from .stats import median


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
