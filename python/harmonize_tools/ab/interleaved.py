"""harmonize-ab --interleave: the sides run inside one job, barrier by
barrier (HARMONIZE_INTERLEAVE, docs/interleave.md), instead of one job per
side. The plan's sides fold into one side, `interleaved`, whose
HARMONIZE_INTERLEAVE names them; the comparison is the library's own (its
report's "interleave": paired by block, a sign-test interval, family-wise
over the job), one table per run (tables.interleaved_table). Pure functions."""

SIDE = "interleaved"
# What the library switches per barrier (config/interleave.hpp); the rest of
# a side's settings (an MPI library's, ALTERNATE, a preset) cannot differ
# between calls of one job.
SWITCHABLE = ("HARMONIZE_ARRIVAL",)


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
            if variable not in SWITCHABLE:
                raise ValueError(f"--interleave: side {side} sets {variable}, which the library cannot "
                                 "switch per call (a side sets MODE and ARRIVAL); compare it between "
                                 "runs, without --interleave")
            keys.append(f"{variable.removeprefix('HARMONIZE_')}={value}")
        parts.append(f"{side}:{','.join(keys)}")
    return ";".join(parts)


def fold_sides(sides, modes, settings, configs):
    """(sides, modes, settings) of the plan with the sides folded into one."""
    if len(sides) < 2:
        raise ValueError("--interleave needs two sides or more (default A,B)")
    value = interleave_value(sides, modes, settings, configs)
    folded = {"all": list(settings.get("all", [])), SIDE: [f"HARMONIZE_INTERLEAVE={value}"]}
    return [SIDE], {**modes, SIDE: "harmonize"}, folded


def run_comparisons(reports):
    """Each run's report's "interleave" (runs without one left out)."""
    return [report["interleave"] for report in reports if isinstance(report.get("interleave"), dict)]
