"""--until-decided: add interleaved rounds of runs (one run of every side)
until the delta of every size is decided, or the budget is spent. Pure
functions over the summary and the options; the command line runs the
rounds (cli.run_rounds).

"Decided" is per_call.compare_runs's verdict on the library's per-call data
(the collective itself): its 95 % interval over runs excludes 1. More runs
narrow that interval where the runs agree; where one run was disturbed it
stays wide until enough undisturbed runs outweigh it, and where delta is 1
nothing ever decides it: hence the budget.
"""
from ..common import CLOCK_UNITS, parse_duration
from . import sequential
from .interleaved import key_label
from .per_call import MIN_RUNS_TO_DECIDE

DEFAULT_MAX_RUNS = 20  # per side
DEFAULT_MAX_TIME = 3600.0  # seconds
FIGURES = ("local", "t_global")


def parse_max_time(text):
    """'600', '90s', '15m', '1.5h' -> seconds; ValueError naming the option."""
    try:
        seconds = parse_duration(text, CLOCK_UNITS, bare="s")
    except ValueError:
        seconds = 0.0
    if seconds <= 0:
        raise ValueError(f"--max-time {text!r}: expected a positive number of seconds, or one with "
                         "s, m or h (e.g. 600, 90s, 15m, 2h)")
    return seconds


def budget(args):
    """(max runs per side, max seconds) of --until-decided, checked; the
    defaults are DEFAULT_MAX_RUNS (or -n, if larger) and DEFAULT_MAX_TIME."""
    if not args.until_decided:
        given = [option for option, value in (("--max-runs", args.max_runs), ("--max-time", args.max_time))
                 if value is not None]
        if given:
            raise ValueError(f"{' and '.join(given)} {'needs' if len(given) == 1 else 'need'} --until-decided")
        return None
    if args.aggregate:
        raise ValueError("--until-decided runs more runs; --aggregate runs none: give one of them")
    default = sequential.DEFAULT_MAX_RUNS if args.interleave else DEFAULT_MAX_RUNS
    max_runs = max(default, args.runs) if args.max_runs is None else args.max_runs
    # Interleaved, one run decides: its blocks are the sample, not the runs.
    least = 1 if args.interleave else MIN_RUNS_TO_DECIDE
    if max_runs < least:
        raise ValueError(f"--max-runs {max_runs}: deciding needs at least {least} run"
                         f"{'' if least == 1 else 's a side'}")
    if max_runs < args.runs:
        raise ValueError(f"--max-runs {max_runs} is below --runs {args.runs} (the runs made before any is added)")
    max_time = DEFAULT_MAX_TIME if args.max_time is None else parse_max_time(args.max_time)
    return max_runs, max_time


def check_sides(pair, modes):
    """The compared pair must write reports: decisions are made on their per-call data."""
    if pair[0] == pair[1]:
        raise ValueError("--until-decided compares two sides; there is only one")
    off = [side for side in pair if modes[side] == "off"]
    if off:
        raise ValueError(f"--until-decided decides on the library's per-call data of sides {pair[0]} and "
                         f"{pair[1]}; side {off[0]} runs in mode off, which times nothing")


def open_sizes(summary, figure):
    """[{size, reason, delta...}] of the compared keys whose delta of
    `figure` is not decided (no delta at all: 'no per-call histograms');
    interleaved, the pooled comparisons no look has decided."""
    if summary.get("interleaved_pooled") is not None:
        return sequential.open_rows(summary["interleaved_pooled"], figure)
    found = []
    for row in summary.get("collectives") or []:
        pooled = (row.get("pooled") or {}).get(figure)
        if pooled and pooled["decided"]:
            continue
        entry = {"size": key_label(row), "reason": pooled["reason"] if pooled else "no per-call histograms"}
        if pooled:
            entry.update(delta=pooled["delta"], delta_low=pooled["delta_low"], delta_high=pooled["delta_high"],
                         runs=pooled["runs"])
        found.append(entry)
    return found


def stop_reason(summary, figure, still_open, runs, limits, elapsed, round_seconds):
    """Why no further round is run, or None to run one. `runs` per side so
    far; `round_seconds`, what a round took on average (None: unknown)."""
    max_runs, max_time = limits
    if not summary.get("collectives") and not summary.get("interleaved_pooled"):
        return ("no size to decide: the reports of the compared sides time no collective (a library "
                "without per-call timing, or no run succeeded)")
    if not still_open:
        return f"every size decided (delta of {figure})"
    if runs >= max_runs:
        return f"--max-runs {max_runs} reached"
    if round_seconds is not None and elapsed + round_seconds > max_time:
        return (f"--max-time {max_time:g} s: another round (about {round_seconds:.1f} s) would exceed it "
                f"({elapsed:.1f} s spent)")
    return None


def compared(summary, figure):
    """How many comparisons --until-decided waits on: the compared sizes, or
    interleaved the pooled comparisons (size x side) of `figure`."""
    pooled = summary.get("interleaved_pooled")
    if pooled is None:
        return len(summary.get("collectives") or [])
    return len([row for row in pooled if row["figure"] == sequential.FIGURE_OF[figure]])


def record(figure, runs, elapsed, stopped, summary, still_open):
    """summary["until_decided"]: what was decided, when and why it stopped."""
    return {"figure": figure, "runs_per_side": runs, "seconds": round(elapsed, 3), "stopped": stopped,
            "sizes": compared(summary, figure), "undecided": still_open}
