"""Command line of harmonize-ab."""
import argparse
import contextlib
import os
import shlex
import signal
import sys
import time
import traceback
from datetime import datetime
from pathlib import Path

from .. import slurm_launch
from ..common import say, tools_dir
from . import decide, sequential
from .files import OutputError, write_json
from .parsing import ParseError
from .plan import PlanError, given_command, make_plan, prepare_directory
from .runner import run_all
from .summary import summarize, write_outputs

EXIT_OK, EXIT_SOME_FAILED, EXIT_USAGE, EXIT_NOTHING, EXIT_OUTPUT = 0, 1, 2, 3, 4

DESCRIPTION = """\
Run an MPI benchmark several times with libharmonize preloaded, alternating
sides A (HARMONIZE_MODE=observe: native barrier, exit skew measured) and
B (harmonize: harmonized barrier), optionally C (off), interleaved A B A B ...,
or named sides of your own (--side, --sweep: e.g. one late process each).
Parses OSU 7.x collective output (default and -f, osu_barrier), IMB-MPI1
tables and harmonize-example; prints median and spread per size and side,
delta = t_A / t_B and whether it exceeds run-to-run noise, the library's
statistics per side and, with arrival patterns (HARMONIZE_ARRIVAL), t_global
and the delay overlap benefit b(delta) per collective and size; writes
table.txt, results.csv, library.csv, collectives.csv, arrival.csv,
summary.json and PNG plots into the output directory."""

EPILOG = """\
examples:
  harmonize-ab -n 5 -- mpiexec -n 2 build/bin/harmonize-example -f
  harmonize-ab -n 5 --sides A,B,C -o out -- mpiexec -n 4 ./osu_allreduce -f
  harmonize-ab -o out --resume -n 10 -- mpiexec -n 4 ./osu_allreduce -f   (5 more runs per side)
  harmonize-ab -o out --aggregate                                         (recompute outputs only)
  harmonize-ab -n 5 --until-decided --max-runs 20 --max-time 30m -o out -- mpiexec -n 4 ./osu_allreduce -f
      (one more run per side at a time until delta per call is decided at every size)
  harmonize-ab -n 5 -o late --side native:MODE=observe \\
      --sweep ARRIVAL=rank:0:0us,1us,5us,20us,100us -- mpiexec -n 4 ./osu_allreduce -f
      (sides native, 0us, 1us, 5us, 20us, 100us: process 0 arrives late by that much;
       b(delta) per size in table.txt, arrival.csv and plots/arrival-allreduce.png)
  harmonize-ab --side t0:ARRIVAL=none --side late:ARRIVAL=ranks:0,3:10us -- ...
  harmonize-ab --interleave -o one -- mpiexec -n 2 build/bin/harmonize-example
      (A and B inside one run, paired barrier by barrier: table.txt's last table)
  harmonize-ab --interleave --side t0:ARRIVAL=none --sweep ARRIVAL=rank:0:10us,100us -- ...
      (a b(delta) sweep from one run)
  harmonize-ab -n 5 -o algs --set OMPI_MCA_coll_tuned_use_dynamic_rules=1 \
      --sweep OMPI_MCA_coll_tuned_allreduce_algorithm=1,2,3,4,5,6 -- mpiexec -n 4 ./osu_allreduce -f
      (one side per Open MPI allreduce algorithm, harmonized, interleaved)

--side NAME:KEY=VALUE,KEY=VALUE: KEY is a HARMONIZE_ variable (prefix optional;
MODE defaults to harmonize) or an MPI library's own setting (OMPI_MCA_* for Open
MPI, MPIR_CVAR_* for MPICH: passed to the ranks as the launcher needs, refused
with the other MPI's launcher); a comma starts a new setting only before KEY=.
--sweep KEY=V1,V2,...: one side per value; a value without ':' replaces the
last ':' field of the first (rank:0:0us,5us -> rank:0:5us); the side is named
after what differs (5us), else after the whole value.

delta per call (the collective itself): its 95% interval is the wider of the
pooled calls' and a cluster bootstrap over runs (runs resampled with replacement,
fixed seed), so one disturbed run widens it; decided needs 3 runs a side.

exit status: 0 all runs ok, 1 some runs failed (results from the others),
2 usage error, 3 no usable run, 4 the output directory cannot be written
(full disk, permissions), 128+N stopped by signal N (Ctrl-C: 130)."""


def build_parser():
    parser = argparse.ArgumentParser(prog="harmonize-ab", description=DESCRIPTION, epilog=EPILOG,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", "--runs", type=int, default=None,
                        help="runs per side (default 5; with --interleave, runs of all sides: default 1)")
    parser.add_argument("--interleave", action="store_true",
                        help="run the sides inside each run, barrier by barrier in a random order every "
                             "rank agrees on (HARMONIZE_INTERLEAVE), and compare them with the library's "
                             "paired comparison: one run decides what many a side cannot "
                             "(docs/interleave.md); sides may set MODE and ARRIVAL")
    parser.add_argument("--sides", default=None,
                        help="predefined sides to run, from A (observe), B (harmonize), C (off); "
                             "default A,B (none when --side or --sweep is given)")
    # --side and --sweep share one list: the sides run in the order given.
    parser.add_argument("--side", action="append", dest="named", default=[], type=lambda t: ("--side", t),
                        metavar="NAME:KEY=VALUE,...",
                        help="a named side with HARMONIZE_* settings (prefix optional, MODE defaults "
                             "to harmonize), e.g. late:ARRIVAL=rank:0:5us (repeatable)")
    parser.add_argument("--sweep", action="append", dest="named", type=lambda t: ("--sweep", t),
                        metavar="KEY=V1,V2,...",
                        help="one harmonize side per value, e.g. ARRIVAL=rank:0:0us,1us,5us "
                             "(sides 0us, 1us, 5us; see below)")
    parser.add_argument("--t0", metavar="SIDE",
                        help="the side without delay that b(delta) compares with (default: the first "
                             "harmonize side whose arrival pattern has no delay)")
    parser.add_argument("--side-mode", action="append", default=[], metavar="SIDE=MODE",
                        help="run SIDE in another mode (off|observe|harmonize), e.g. B=observe")
    parser.add_argument("-o", "--output", help="output directory (default harmonize-ab-<date-time>)")
    parser.add_argument("--config", help="preset file (HARMONIZE_CONFIG) for every side")
    for side in "abc":
        parser.add_argument(f"--config-{side}", metavar="FILE", help=f"preset for side {side.upper()}")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="HARMONIZE_* override (prefix optional) or MPI library setting "
                             "(OMPI_MCA_*, MPIR_CVAR_*) for every side, repeatable")
    for side in "abc":
        parser.add_argument(f"--set-{side}", action="append", default=[], metavar="KEY=VALUE",
                            help=f"override for side {side.upper()} only")
    parser.add_argument("--launcher-arg", action="append", default=[], metavar="ARG",
                        help="extra argument for the launcher, inserted after it (repeatable)")
    parser.add_argument("--library", help="libharmonize.so to preload (default: as harmonize-run finds it)")
    parser.add_argument("--metric", choices=("avg", "min", "max"), default="avg",
                        help="which latency column to compare (min/max need OSU -f or IMB)")
    parser.add_argument("--timeout", type=float, default=600, help="seconds per run (default 600)")
    parser.add_argument("--resume", action="store_true",
                        help="continue in an existing output directory: rerun failed or missing runs, "
                             "add runs when -n grew")
    parser.add_argument("--until-decided", action="store_true",
                        help="after the -n runs, add one run per side at a time until the delta of every "
                             "size (per call, --decide-on) is decided or the budget is spent; with "
                             "--interleave one interleaved run at a time, its blocks pooled with the "
                             "earlier runs' under a sequential rule (docs/interleave.md)")
    parser.add_argument("--max-runs", type=int, metavar="N",
                        help=f"with --until-decided: at most N runs per side (default {decide.DEFAULT_MAX_RUNS}; "
                             f"with --interleave N interleaved runs, default {sequential.DEFAULT_MAX_RUNS}: "
                             "the level is divided among N looks)")
    parser.add_argument("--max-time", metavar="T",
                        help="with --until-decided: no new round once T would be exceeded (seconds, or "
                             f"with s, m, h; default {decide.DEFAULT_MAX_TIME / 60:g}m)")
    parser.add_argument("--decide-on", choices=decide.FIGURES, default="local",
                        help="with --until-decided: the per-call figure whose delta must be decided: each "
                             "process's own time (local, what OSU averages; default) or t_global")
    parser.add_argument("--stop-stale", action="store_true",
                        help="with --resume: stop a job an earlier harmonize-ab left running (it was "
                             "killed with SIGKILL) instead of refusing to run beside it")
    parser.add_argument("--aggregate", action="store_true",
                        help="do not run anything; recompute the outputs from an existing directory")
    parser.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    parser.add_argument("--fail-fast", action="store_true", help="stop at the first failed run")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    parser.add_argument("command", nargs=argparse.REMAINDER,
                        help="-- then the benchmark command, with its launcher (mpiexec/mpirun/srun) or without")
    return parser


class Interrupted(KeyboardInterrupt):
    """SIGTERM or SIGHUP, handled like Ctrl-C: the running job is stopped first."""

    def __init__(self, signum):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def raise_interrupted(signum, _frame):
    raise Interrupted(signum)


def error(text):
    print(f"harmonize-ab: error: {text}", file=sys.stderr)


def main(argv=None, script_dir=None):
    """harmonize-ab with `argv` (default: sys.argv[1:]); `script_dir` holds the
    harmonize-run every run goes through (default: the launchers' directory,
    common.tools_dir). Returns the exit status."""
    argv = sys.argv[1:] if argv is None else argv
    script_dir = Path(script_dir) if script_dir is not None else tools_dir(__file__)
    try:
        return command_line(argv, script_dir)
    except BrokenPipeError:
        # `harmonize-ab ... | head`: the reader left; the files are written already.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def run_sides(argv, script_dir, table):
    """harmonize-ab as a library (harmonize-tune runs its sides so): the
    command line `argv` run in this process, what it prints on stdout (its
    tables) written to the open file `table`, its progress on stderr as
    always; returns its exit status. An interrupt (Ctrl-C, SIGTERM, SIGHUP)
    stops the running job and is reported as harmonize-ab reports it, then
    raised on to the caller; the caller's signal handlers are restored."""
    handlers = {signum: signal.getsignal(signum) for signum in (signal.SIGTERM, signal.SIGHUP)}
    try:
        with contextlib.redirect_stdout(table):
            return command_line(argv, Path(script_dir), raise_interrupts=True)
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else EXIT_USAGE
    except Exception:  # a fault of harmonize-ab fails its runs, not the caller
        # As when it ran as a process of its own: its traceback, exit status 1.
        traceback.print_exc()
        return 1
    finally:
        for signum, handler in handlers.items():
            signal.signal(signum, handler)


def command_line(argv, script_dir, raise_interrupts=False):
    # Python's default for SIGTERM/SIGHUP ends the process on the spot, which
    # would leave the benchmark job (its own session) running.
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, raise_interrupted)
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.runs is None:
        args.runs = 1 if args.interleave else 5
    output = Path(args.output or datetime.now().strftime("harmonize-ab-%Y%m%d-%H%M%S"))
    try:
        return run(args, output, script_dir)
    except KeyboardInterrupt as interrupt:
        print(f"\nharmonize-ab: interrupted; no benchmark job is left running; finished runs are "
              f"kept in {output / 'runs'}; continue with --resume", file=sys.stderr)
        if raise_interrupts:
            raise
        return 128 + getattr(interrupt, "signum", signal.SIGINT)
    except OutputError as failure:
        error(failure)
        return EXIT_OUTPUT
    except OSError as failure:
        # Whatever else the file system refused (e.g. creating a directory): it names the file.
        error(f"{failure.filename or output}: {failure.strerror or failure}")
        return EXIT_OUTPUT


def run_rounds(args, plan, output):
    """The runs asked for; with --until-decided then one round (a run of
    every side, interleaved as before) at a time while a size is undecided
    and the budget allows. (statuses, summary["until_decided"] or None)."""
    started = time.monotonic()
    statuses = run_all(plan, output, Path(plan["harmonize_run"]), args.timeout, quiet=args.quiet,
                       fail_fast=args.fail_fast, stop_stale=args.stop_stale)
    limits = decide.budget(args)
    if not limits:
        return statuses, None
    while True:
        summary = summarize(plan, output, args.metric, args.t0)
        still_open = decide.open_sizes(summary, args.decide_on)
        elapsed = time.monotonic() - started
        rounds = len(statuses) / len(plan["sides"])
        stopped = decide.stop_reason(summary, args.decide_on, still_open, plan["runs"], limits, elapsed,
                                     elapsed / rounds if rounds else None)
        if stopped is None and args.fail_fast and any(not status["ok"] for status in statuses):
            stopped = "a run failed (--fail-fast)"
        if stopped:
            say("harmonize-ab", f"until decided: {stopped} after {plan['runs']} runs per side", args.quiet)
            return statuses, decide.record(args.decide_on, plan["runs"], elapsed, stopped, summary, still_open)
        first = f"{still_open[0]['size']}: {still_open[0]['reason']}" + (", ..." if len(still_open) > 1 else "")
        what = "comparisons" if summary.get("interleaved_pooled") is not None else "sizes"
        say("harmonize-ab", f"until decided: {len(still_open)} of {decide.compared(summary, args.decide_on)} {what} "
            f"undecided after {plan['runs']} runs per side ({first}); one more run per side", args.quiet)
        plan["runs"] += 1
        write_json(output / "plan.json", plan)
        statuses += run_all(plan, output, Path(plan["harmonize_run"]), args.timeout, quiet=args.quiet,
                            fail_fast=args.fail_fast, say_skipped=False)


def run(args, output, script_dir):
    try:
        plan = make_plan(args, script_dir)
        plan = prepare_directory(output, plan, args.resume, args.aggregate)
    except (ValueError, PlanError) as failure:
        error(failure)
        return EXIT_USAGE
    if not args.aggregate and plan["command"] != given_command(args):
        say("harmonize-ab", f"inside Slurm job {slurm_launch.allocation(os.environ)}: each run is a "
            f"job step on the allocation's nodes ({shlex.join(plan['command'])})", args.quiet)
    statuses, until = [], None
    if not args.aggregate:
        try:
            statuses, until = run_rounds(args, plan, output)
        except (ValueError, ParseError) as failure:
            error(f"cannot aggregate {output}: {failure}")
            return EXIT_NOTHING
        except PlanError as failure:
            error(failure)
            return EXIT_USAGE
        except OutputError as failure:
            raise OutputError(f"{failure}; finished runs are kept in {output / 'runs'}: "
                              "free space, then continue with --resume") from failure
    if args.t0 is not None and args.t0 not in plan["sides"]:
        error(f"--t0 {args.t0}: no such side (the sides: {', '.join(plan['sides'])})")
        return EXIT_USAGE
    try:
        summary = summarize(plan, output, args.metric, args.t0)
    except (ValueError, ParseError) as failure:
        error(f"cannot aggregate {output}: {failure}")
        return EXIT_NOTHING
    if until:
        summary["until_decided"] = until
    text, plot_paths, plot_note = write_outputs(summary, output, not args.no_plots)
    print(text, end="")
    print(f"\nharmonize-ab: table {output / 'table.txt'}, CSV {output / 'results.csv'}, "
          f"{output / 'library.csv'}, {output / 'collectives.csv'} and {output / 'arrival.csv'}, "
          f"JSON {output / 'summary.json'}")
    if plot_paths:
        print(f"harmonize-ab: plots {', '.join(str(p) for p in plot_paths)}")
    if plot_note:
        print(f"harmonize-ab: {plot_note}", file=sys.stderr)
    if not summary["results"]:
        print("harmonize-ab: no run produced usable results", file=sys.stderr)
        return EXIT_NOTHING
    # Also after --aggregate: a run found damaged or interrupted on disk is a failed run.
    if any(not s["ok"] for s in statuses) or any(not f.get("superseded") for f in summary["failed_runs"]):
        return EXIT_SOME_FAILED
    return EXIT_OK
