"""harmonize-ab --interleave: the sides run inside one job, barrier by
barrier (HARMONIZE_INTERLEAVE, docs/interleave.md), instead of one job per
side. The plan's sides fold into one side, `interleaved`, whose
HARMONIZE_INTERLEAVE names them; the comparison is the library's own (its
report's "interleave": paired by block, a sign-test interval, family-wise
over the job), one table per run (interleaved_tables.interleaved_table). Pure functions."""
from statistics import median

from ..tune.algorithms import forced_collective, is_ompi_forced

SIDE = "interleaved"
# What the library switches per barrier (config/interleave.hpp): the arrival
# pattern, and a collective's algorithm (MPICH's MPIR_CVAR_<OP>_INTRA_ALGORITHM,
# Open MPI's coll_tuned_<op>_algorithm: interleave/mpi/algorithm_switch.hpp).
# The rest of a side's settings (other MPI settings, ALTERNATE, a preset)
# cannot differ between calls of one job.
SWITCHABLE = ("HARMONIZE_ARRIVAL",)


def side_key(side, variable):
    """The library's KEY for a side's setting `variable`; ValueError when it
    cannot be switched per call."""
    if variable in SWITCHABLE:
        return variable.removeprefix("HARMONIZE_")
    if collective := forced_collective(variable):
        return collective.upper()
    raise ValueError(f"--interleave: side {side} sets {variable}, which the library cannot "
                     "switch per call (a side sets MODE, ARRIVAL and a collective's algorithm: "
                     "MPIR_CVAR_<OP>_INTRA_ALGORITHM, OMPI_MCA_coll_tuned_<op>_algorithm); compare it "
                     "between runs, without --interleave")


def interleave_value(sides, modes, settings, configs):
    """HARMONIZE_INTERLEAVE's value for the sides, in their order (the first
    is the baseline); ValueError naming a side that cannot be interleaved."""
    parts = []
    for side in sides:
        mode = modes[side]
        if mode not in ("observe", "harmonize"):
            raise ValueError(f"--interleave: side {side} runs in mode {mode}: only the barrier of modes "
                             "observe (native) and harmonize can be switched inside a run")
        if side in configs:
            raise ValueError(f"--interleave: side {side} has a preset of its own; give settings with "
                             "--side, or --config for every side")
        keys = [f"MODE={mode}"]
        for setting in settings.get(side, []):
            variable, _, value = setting.partition("=")
            keys.append(f"{side_key(side, variable)}={value}")
        parts.append(f"{side}:{','.join(keys)}")
    return ";".join(parts)


def fold_sides(sides, modes, settings, configs):
    """(sides, modes, settings) of the plan with the sides folded into one."""
    if len(sides) < 2:
        raise ValueError("--interleave needs two sides or more (default A,B)")
    value = interleave_value(sides, modes, settings, configs)
    folded = {"all": list(settings.get("all", [])), SIDE: [f"HARMONIZE_INTERLEAVE={value}"]}
    if any(is_ompi_forced(setting.partition("=")[0]) for side in sides for setting in settings.get(side, [])):
        # Open MPI reads a forced algorithm only with its dynamic rules on.
        folded[SIDE].append("OMPI_MCA_coll_tuned_use_dynamic_rules=1")
    return [SIDE], {**modes, SIDE: "harmonize"}, folded


def run_comparisons(reports):
    """Each run's report's "interleave" (runs without one left out)."""
    return [report["interleave"] for report in reports if isinstance(report.get("interleave"), dict)]


def key_label(row):
    """'MPI_COMM_WORLD allreduce 8 B' (with ', root 0' where there is one: the
    reports write no root as -1, the per-call tables as None)."""
    root = "" if row["root"] is None or row["root"] < 0 else f", root {row['root']}"
    return f"{row['communicator']} {row['operation']} {row['bytes']} B{root}"


def comparison_key(row):
    """What names one comparison of a report's "interleave" across runs:
    communicator, key, side and figure."""
    return (row["communicator"], row["operation"], row["bytes"], row["root"], row["side"], row["figure"])


def across_runs(runs):
    """Several interleaved runs of one plan: per communicator, key, side and
    figure, each run's delta and decision, and whether they agree. Within a
    run the comparison is exact; between runs the difference itself may move
    (docs/interleave.md, "what one run's decision covers"), so a verdict about
    the machine asks every run to decide the same way."""
    found = {}
    for number, info in enumerate(runs):
        for row in info.get("comparisons") or []:
            key = comparison_key(row)
            entry = found.setdefault(key, {"deltas": [None] * len(runs), "signs": [0] * len(runs)})
            entry["deltas"][number] = row["delta"]
            if row["decided"]:
                entry["signs"][number] = 1 if row["delta"] > 0 else -1
    result = []
    for (comm, operation, size, root, side, figure), entry in found.items():
        signs = entry["signs"]
        if all(sign == 1 for sign in signs):
            verdict = "higher in every run"
        elif all(sign == -1 for sign in signs):
            verdict = "lower in every run"
        elif 1 in signs and -1 in signs:
            verdict = "runs disagree"
        else:
            verdict = "not decided in every run"
        deltas = [d for d in entry["deltas"] if d is not None]
        result.append({"communicator": comm, "operation": operation, "bytes": size, "root": root,
                       "side": side, "figure": figure, "deltas": entry["deltas"], "signs": signs,
                       "median_delta": median(deltas) if deltas else None,
                       "verdict": verdict})
    return result
