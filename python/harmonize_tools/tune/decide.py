"""Which algorithm each collective, communicator size and message size
should use, from harmonized per-call measurements (pure).

Per key the t_global of the valid calls of every algorithm's runs is set
against the default's (the library deciding alone) as harmonize-ab sets
two sides against each other: the ratio of the pooled medians, with a 95 %
interval that is the wider of the calls' and a cluster bootstrap over runs
(ab.per_call.compare_runs). An algorithm is chosen where that interval lies
wholly below 1 - it is decidedly faster than the default - and among such
the fastest; else the default stays: a tie when some algorithm could not be
told from it, else the default is the fastest. Where the default, or an
algorithm, has no valid call there is no comparison: no decision.
"""
from ..ab import per_call, stats
from . import rules


def runs_of(point):
    """The per-run pools to compare: the valid calls' t_global, never all
    calls': a flagged call's t_global holds the late rank's wait (docs/tuning.md,
    "no valid calls, no decision")."""
    return [pool for pool in point.get("valid_t_global_runs") or [] if per_call.pool_calls(pool)]


def family_level(compared, level=0.95):
    """The interval level of each of `compared` comparisons that keeps the
    chance of any false "decided" among them at 1 - `level` (Bonferroni):
    with 9 algorithms at 95 % each, about one size in five names a winner
    by chance (1 - 0.975^9; measured: a tuning of bcast over TCP changed 12
    of 14 sizes, and its file was decidedly faster at one, slower at
    another)."""
    return 1.0 - (1.0 - level) / max(1, compared)


def within(sizes, size):
    """Whether `size` lies in `sizes` (MIN, MAX bytes; None: any size does)."""
    return not sizes or sizes[0] <= size <= sizes[1]


def measured_keys(base, operation, sizes=None):
    """The keys of `operation` to decide on: per (communicator size, bytes,
    root) the communicator that made the most calls, within `sizes` (MIN,
    MAX bytes; None: any). OSU measures on MPI_COMM_WORLD; IMB on a
    communicator of its own (one per process count with -npmin), beside a
    few calls of its own: IMB-MPI1 makes a 4-byte allreduce 75 times a run on
    MPI_COMM_WORLD and on its communicator, none after a harmonized barrier
    (measured on WORLD alone, a tuning of IMB found nothing else to decide)."""
    chosen = {}
    for ident, point in base.items():
        _, op, size, root = ident
        if op != operation or not within(sizes, size):
            continue
        where = (point.get("size") or 0, size, -1 if root is None else root)
        if where not in chosen or point.get("calls", 0) > base[chosen[where]].get("calls", 0):
            chosen[where] = ident
    return [chosen[where] for where in sorted(chosen)]


def decide(points_by_side, operation, default, algorithms, sizes=None):
    """One row per (communicator size, bytes) of `operation`'s measured calls
    (measured_keys): each algorithm's comparison with `default` (intervals at
    the family's level: 95 % for all the algorithms of a size together), and
    the choice."""
    base = points_by_side.get(default) or {}
    rows = []
    for ident in measured_keys(base, operation, sizes):
        _, _, size, _ = ident
        default_point = base[ident]
        pooled = per_call.pooled_median(default_point.get("valid_t_global_pool"))
        row = {"operation": operation, "processes": default_point.get("size"), "bytes": size,
               "default": default, "default_t_global": pooled[1] if pooled else None, "versus": {}}
        others = [a for a in algorithms if a != default]
        level = family_level(len(others))
        points = {a: (points_by_side.get(a) or {}).get(ident) for a in others}
        # No run of it measured this size: it crashed, hung or failed there
        # (harmonize-ab keeps each run's status); never chosen, and said.
        row["failed"] = [a for a, point in points.items() if point is None]
        for algorithm, point in points.items():
            if point is not None:
                row["versus"][algorithm] = per_call.compare_runs(runs_of(point), runs_of(default_point),
                                                                 level=level)
        choose(row)
        # Said apart from a tie: no comparison without valid calls on both sides.
        measured = {default: default_point, **{a: p for a, p in points.items() if p is not None}}
        row["no_valid"] = [a for a, point in measured.items() if not runs_of(point)]
        rows.append(row)
    return rows


def choose(row):
    """`row`'s choice: the fastest algorithm decidedly faster than the
    default, else the default; a tie when some algorithm could not be told
    from it (the default stays either way)."""
    faster = {a: c for a, c in row["versus"].items() if c and c["decided"] and is_faster(c)}
    row["choice"] = min(faster, key=lambda a: faster[a]["delta"]) if faster else row["default"]
    row["tie"] = not faster and any(not (c and c["decided"]) for c in row["versus"].values())


def is_faster(comparison):
    """Whether a decided comparison found the side faster than the default:
    its interval below 1, or interleaved its pooled blocks mostly faster."""
    if comparison.get("delta_high") is None:
        return comparison["verdict"] == "lower"
    return comparison["delta_high"] < 1.0


def still_open(row):
    """Whether more runs could change `row`'s choice: an algorithm not yet
    told from the default measures faster than the choice does (the default
    counts as 1). An algorithm measured slower, decided or not, cannot be
    chosen; one exactly as fast as the default never decides (the budget
    stops it)."""
    if row["default"] in row.get("no_valid", []):
        return False  # nothing to compare with: more runs of a machine that flags every call will not do
    best = row["versus"][row["choice"]]["delta"] if row["choice"] != row["default"] else 1.0
    return any((c is None and a not in row.get("no_valid", [])) or (c and not c["decided"] and c["delta"] < best)
               for a, c in row["versus"].items())


def verification_open(row):
    """Whether a written file's comparison with the default is not decided
    yet where the file changes the algorithm (elsewhere it cannot gain)."""
    return any((row.get("verdicts") or {}).get(side) != "not changed" and (c is None or not c["decided"])
               for side, c in row["versus"].items())


def with_rules(rows, files_choices, default):
    """The verification's rows, each told per file ({side: choices}) which
    algorithm the file names at its size (row["rules"]; None: no rule, the
    library decides) and the verdict (row["verdicts"])."""
    for row in rows:
        row["rules"] = {side: rules.rule_at(choices, row["operation"], row["processes"], row["bytes"])
                        for side, choices in files_choices.items()}
        row["verdicts"] = {side: verification_verdict(row, side, default) for side in files_choices}
    return rows


def verification_verdict(row, side, default):
    """What the verification says of `side`'s rule at `row`'s size:
    "not changed" where the file names no algorithm or the default (never
    a gain, whatever its ratio), else "confirmed" (decidedly faster),
    "contradicted" (decidedly slower) or "undecided"."""
    rule = row["rules"][side]
    if rule is None or rule == default:
        return "not changed"
    comparison = row["versus"].get(side)
    if not comparison or not comparison["decided"]:
        return "undecided"
    return "confirmed" if is_faster(comparison) else "contradicted"


def confirmed_choices(choices, rows, side, default):
    """`choices` with every rule the verification of `side` does not confirm
    handed back to the default; and the rules so dropped, and those no
    verification row measured (kept, unverified): [(collective, processes,
    bytes, algorithm, verdict)] each."""
    verdicts = {(r["operation"], r["processes"], r["bytes"]): r["verdicts"][side] for r in rows}
    kept, dropped, unverified = {}, [], []
    for collective, sizes in choices.items():
        for processes, entries in sizes.items():
            for size, algorithm in entries:
                verdict = verdicts.get((collective, processes, size))
                if algorithm != default and verdict is None:
                    unverified.append((collective, processes, size, algorithm, "not measured"))
                elif algorithm != default and verdict != "confirmed":
                    dropped.append((collective, processes, size, algorithm, verdict))
                    algorithm = default
                kept.setdefault(collective, {}).setdefault(processes, []).append((size, algorithm))
    return kept, dropped, unverified


def open_label(row):
    return f"P={row['processes']} {row['bytes']} B"


def choices_of(rows, collective):
    """{collective: {processes: [(bytes, algorithm)]}} for rules.py; where the
    default stays, the library's own default (Open MPI 0, MPICH auto: its own
    selection subtree, rules.guarded_choice)."""
    by_size = {}
    for row in rows:
        by_size.setdefault(row["processes"], []).append((row["bytes"], row["choice"]))
    return {collective: by_size} if by_size else {}


def usual_choices(points, default, sizes=None):
    """The usual method, for comparison: per (processes, bytes) within
    `sizes` (MIN, MAX; None: any) the algorithm with the lowest benchmark
    average (median over runs of what OSU or IMB prints after its native
    barrier), no interval asked. `points` is ab.stats.collect_points'
    {(benchmark, processes, size): {side: [avg per run]}}. Returns
    {(processes, bytes): (algorithm, its average / the default's)}."""
    chosen = {}
    for (_, processes, size), by_side in points.items():
        if not within(sizes, size):
            continue  # IMB prints 0 bytes whatever -msglog says
        medians = {side: stats.median(values) for side, values in by_side.items() if values}
        if default not in medians or not medians[default]:
            continue
        best = min(medians, key=lambda side: (medians[side], side != default))
        chosen[processes, size] = (best, medians[best] / medians[default])
    return chosen
