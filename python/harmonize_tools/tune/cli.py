"""harmonize-tune: choose each collective's algorithm from harmonized per-call
measurements, and write the MPI library's own decision file.

usage: harmonize-tune [--collectives allreduce,bcast] [--sizes MIN:MAX]
                      [--runs N | --until-decided [--max-runs N] [--max-time T]]
                      [--interleave [--interleave-run N]]
                      [--mpi openmpi|mpich] [--arrival PATTERN] [--compare-usual]
                      [--timeout SECONDS] [--no-verify] -o DIR -- LAUNCHER [ARGS] BENCHMARK [ARGS]
       harmonize-tune --check FILE [--mpi openmpi] [-- LAUNCHER [ARGS]]

BENCHMARK is an OSU Micro-Benchmarks directory (osu_<collective> is found in
it), an IMB-MPI1 binary (the collective is named to it), or, with a single
collective, the benchmark program itself.

For each collective the algorithms are listed by the library itself (Open
MPI: ompi_info; MPICH: mpivars), and harmonize-ab runs the benchmark once per
algorithm and run, interleaved, in mode harmonize: one side per algorithm,
the library's default among them (Open MPI's 0, MPICH's auto).
DIR/<collective> holds those runs and harmonize-ab's tables
(harmonize-ab.txt); the same command again continues them. Per communicator
size and message size each algorithm's t_global of the valid calls is set
against the default's (harmonize-ab's ratio with its 95 % interval over calls
and runs); the fastest one that is decidedly faster is chosen, else the
default stays (a tie, or every algorithm decidedly slower). An algorithm no
run of which measured a size (it crashed, or hung past --timeout, default
600 s a run) is listed as failed there and never chosen; the others decide.

--until-decided: after the --runs (default 5; at least 3 decide anything),
one more run of every algorithm at a time, interleaved as before, while a
size's choice could still change (an algorithm not yet told from the default
measures faster than the choice), within --max-runs per algorithm (default
20) and --max-time per collective (default 1h). The verification is run the
same way, until each file's effect is decided.

--interleave: every algorithm a side of one run instead (HARMONIZE_INTERLEAVE:
the library switches the algorithm at each barrier), eight sides a run at
the most (more in several, each led by the default), --interleave-run calls
of an algorithm in a row (default 8); the choice from the paired blocks,
pooled over runs and groups, by the sign test at 5 % family-wise over every
size and algorithm (the ratio shown with its p); a run that fails is run
again one algorithm beside the default at a time; the verification is
interleaved as well (docs/tuning.md, "Interleaved").

--arrival PATTERN chooses a second time with every side under that arrival
pattern, and shows both choices side by side. --compare-usual also ranks the
algorithms the usual way (the benchmark's averages after its native barrier,
mode observe) and shows where that choice differs.

Then each written file is verified on the collectives it has rules for: one
more harmonize-ab run, the library deciding alone against the library
reading the file, interleaved, per call (DIR/verify/<collective>,
verification.txt and .csv: per size the rule checked and its verdict, not
changed, confirmed, contradicted or undecided). A rule of the tuned file that
is not confirmed goes back to the library: the file is written again
without it, or not at all (--no-verify skips it, the file says so).

Written in DIR: table.txt and decisions.csv (every comparison, the choice),
heatmap-<collective>-P<processes>.png (size x algorithm, t_global relative to
the fastest) and the library's decision file: ompi-coll-rules.conf for Open
MPI (OMPI_MCA_coll_tuned_use_dynamic_rules=1
OMPI_MCA_coll_tuned_dynamic_rules_filename=FILE; only the collectives where
an algorithm won, none when the default won everywhere), or
mpich-coll-selection.json for MPICH (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=FILE;
the library's own selection tree with the tuned collectives replaced).

--check FILE reads an Open MPI rules file strictly (Open MPI ignores one it
cannot read without a word) and runs each allreduce, reduce, bcast,
allgather, alltoall, gather and scatter rule with a witness program: with the
file, forced and alone (exit 0 every rule obeyed, 1 one is not, 2 the file
cannot be read). A tuning ends with it on its own file (check.txt).

exit status: 0 done, 1 some runs failed (decided from the others), 2 usage
error, an output directory that cannot be written, or algorithms that cannot
be listed, 3 no usable run.
"""
import argparse
import os
import signal
import sys
from pathlib import Path

from ..ab import decide as ab_decide
from ..common import pattern_delta, say, tools_dir
from . import algorithms as algorithms_module
from . import check as check_module
from .benchmark import UsageError, benchmark_command, mpi_of, size_range, split_command
from .measure import OMPI_DYNAMIC_RULES, Tuning, runs_text, verify
from .output import prepare_output
from .rule_files import ARRIVAL_RULES_FILE, RULES_FILE, USUAL_RULES_FILE, kept_choices, mpich_builtin, write_rules
from .decide import confirmed_choices
from .tables import (decisions_csv, draw_heatmaps, dropped_text, side_by_side, table_text, usual_choices_of,
                     usual_text, verification_csv, verification_text)

EXIT_USAGE, EXIT_NO_RUNS = 2, 3
# Calls of one algorithm in a row, interleaved: measured over TCP (osu_allreduce,
# 2 ranks), a call right after another algorithm's ran 30-80 % slower when seven
# algorithms alternated call by call; from 8 in a row each measured what it does
# beside one other (docs/interleave.md, "Interference").
INTERLEAVE_RUN = 8


def build_parser():
    parser = argparse.ArgumentParser(
        prog="harmonize-tune", description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    parser.add_argument("--collectives", default="allreduce,bcast",
                        help="comma-separated (default %(default)s); of: "
                             + ", ".join(algorithms_module.COLLECTIVES))
    parser.add_argument("--sizes", help="message sizes MIN:MAX in bytes, handed to the benchmark "
                                        "(OSU -m, IMB -msglog); default: the benchmark's own")
    parser.add_argument("--runs", "-n", type=int, help="runs per algorithm (default 5; 3 at least to "
                                                       "decide); with --interleave runs of all of them "
                                                       "together (default 1)")
    parser.add_argument("--interleave", action="store_true",
                        help="every algorithm a side of one interleaved run (HARMONIZE_INTERLEAVE; at most "
                             "eight sides a run, more in several), decided from the paired blocks")
    parser.add_argument("--interleave-run", type=int, default=INTERLEAVE_RUN, metavar="N",
                        help=f"with --interleave: calls of one algorithm in a row (HARMONIZE_INTERLEAVE_RUN, "
                             f"default {INTERLEAVE_RUN}: over TCP a call right after another algorithm's runs "
                             "slower, docs/tuning.md); give the benchmark iterations for enough blocks")
    parser.add_argument("--until-decided", action="store_true",
                        help="add one run per algorithm at a time while a choice could still change")
    parser.add_argument("--max-runs", type=int, metavar="N",
                        help=f"with --until-decided: at most N runs per algorithm (default "
                             f"{ab_decide.DEFAULT_MAX_RUNS}, or --runs if larger)")
    parser.add_argument("--max-time", metavar="T",
                        help="with --until-decided: no new round once T would be exceeded, per collective "
                             "(seconds, or with s, m, h; default 1h)")
    parser.add_argument("--mpi", choices=("openmpi", "mpich"),
                        help="the MPI library (default: told from the launcher's --version)")
    parser.add_argument("--ompi-info", default="ompi_info", help=argparse.SUPPRESS)
    parser.add_argument("--mpivars", default="mpivars", help=argparse.SUPPRESS)
    parser.add_argument("--mpich-library", help=argparse.SUPPRESS)  # default: the libmpich mpivars runs with
    parser.add_argument("--library", help="the libharmonize.so to preload (as harmonize-ab)")
    parser.add_argument("--arrival", metavar="PATTERN",
                        help="also choose under this arrival pattern (HARMONIZE_ARRIVAL, e.g. rank:0:20us): "
                             "the algorithm most robust to late processes, beside the one best when "
                             "all arrive together")
    parser.add_argument("--compare-usual", action="store_true",
                        help="also rank the algorithms the usual way (the benchmark's averages after its "
                             "native barrier, mode observe), write that file too, and verify both")
    parser.add_argument("--timeout", type=float, default=600,
                        help="seconds per run (default 600): a run that takes longer (an algorithm that "
                             "hangs) is stopped and counted failed")
    parser.add_argument("--no-verify", action="store_true",
                        help="skip the verification (the default against the written file)")
    parser.add_argument("--check", metavar="FILE",
                        help="only check that the MPI runs what an Open MPI rules file says (read strictly, "
                             "then each rule run with a witness program); the command after -- is the "
                             "launcher (default mpiexec)")
    parser.add_argument("-o", "--output", help="output directory (required to tune)")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    return parser


def run(args, script_dir):
    if args.check:
        return check_module.run_check(args)
    if not args.output:
        raise UsageError("-o DIR is required to tune")
    command = split_command(args.command)
    collectives = [c.strip() for c in args.collectives.split(",") if c.strip()]
    unknown = [c for c in collectives if c not in algorithms_module.COLLECTIVES]
    if unknown or not collectives:
        raise UsageError(f"--collectives: unknown {', '.join(unknown) or '(none)'}; of: "
                         f"{', '.join(algorithms_module.COLLECTIVES)}")
    if args.runs is None:
        args.runs = 1 if args.interleave else 5
    if args.interleave and args.arrival:
        raise UsageError("--arrival with --interleave: an arrival pattern is a side of its own "
                         "(harmonize-ab --interleave --sweep ARRIVAL=...); tune under it without --interleave")
    if not 1 <= args.interleave_run <= 1024:
        raise UsageError("--interleave-run must be from 1 to 1024 (HARMONIZE_INTERLEAVE_RUN)")
    if args.runs < 1:
        raise UsageError("--runs must be at least 1")
    if not args.timeout > 0:
        raise UsageError("--timeout must be a positive number of seconds")
    args.size_range = size_range(args.sizes)
    try:
        args.limits = ab_decide.budget(argparse.Namespace(
            until_decided=args.until_decided, max_runs=args.max_runs, max_time=args.max_time, runs=args.runs,
            aggregate=False, interleave=args.interleave))
    except ValueError as error:
        raise UsageError(str(error)) from error
    if args.arrival:
        try:
            pattern_delta(args.arrival)
        except ValueError as error:
            raise UsageError(f"--arrival: {error}") from error
    mpi = mpi_of(args, command)
    commands = {c: benchmark_command(command, c, args.size_range, len(collectives) == 1) for c in collectives}
    offered = algorithms_module.list_algorithms(mpi, collectives, args.ompi_info, args.mpivars)
    # MPICH's file replaces its whole selection tree: the library's own, before any run.
    builtin = mpich_builtin(args) if mpi == "mpich" else None
    parameters = algorithms_module.list_rule_parameters(mpi, collectives, args.ompi_info)

    def write(path, choices, header):
        write_rules(path, mpi, choices, header, builtin, parameters)

    output = Path(args.output)
    prepare_output(output, mpi, collectives)
    default = algorithms_module.OMPI_DEFAULT if mpi == "openmpi" else algorithms_module.MPICH_DEFAULT
    # Per collective: Open MPI numbers each collective's algorithms on its own.
    names = {collective: dict(algorithms) for collective, algorithms in offered.items()}
    tuned = Tuning(args, script_dir, mpi, default, offered, commands, output)
    all_rows, choices, any_failed = tuned.pass_over(collectives, "", [])
    if not all_rows:
        print("harmonize-tune: error: no usable run: nothing to decide from", file=sys.stderr)
        return EXIT_NO_RUNS
    table = table_text(all_rows, names, args.interleave)
    (output / "table.txt").write_text(table)
    (output / "decisions.csv").write_text(decisions_csv(all_rows, names))
    sys.stdout.write(table)
    draw_heatmaps(args, all_rows, default, names, output, "")
    if args.arrival:
        arrival_rows, arrival_choices, failed = tuned.pass_over(
            collectives, "-arrival", ["--set", f"HARMONIZE_ARRIVAL={args.arrival}"])
        any_failed |= failed
        (output / "table-arrival.txt").write_text(table_text(arrival_rows, names))
        (output / "decisions-arrival.csv").write_text(decisions_csv(arrival_rows, names))
        sys.stdout.write(side_by_side(all_rows, arrival_rows, args.arrival, names))
        draw_heatmaps(args, arrival_rows, default, names, output, "-arrival")
        arrival_choices = kept_choices(default, arrival_choices)
        if arrival_choices:
            write(output / ARRIVAL_RULES_FILE[mpi], arrival_choices,
                  f"harmonize-tune {' '.join(command)}\nchosen under {args.arrival}")
    choices = kept_choices(default, choices)
    files, files_choices = {}, {}
    measured = ("the paired blocks' t_global (all calls), interleaved" if args.interleave
                else "harmonized per-call t_global (valid calls)")
    header = f"harmonize-tune {' '.join(command)}\nchosen from {measured}, {runs_text(args)}"
    if choices:
        files["tuned"], files_choices["tuned"] = output / RULES_FILE[mpi], choices
        write(files["tuned"], choices, header + ("\nnot verified (--no-verify)" if args.no_verify else
                                                 "\nnot verified yet"))
    elif all(row["default"] in row.get("no_valid", []) for row in all_rows):
        print("no valid call anywhere: nothing decided, no decision file written")
    else:
        print("no algorithm was decidedly faster than the default anywhere: no decision file written")
    if args.compare_usual:
        usual = tuned.usual(collectives)
        sys.stdout.write(usual_text(all_rows, usual, names))
        usual_kept = kept_choices(default, usual_choices_of(usual, collectives))
        if usual_kept:
            files["usual"], files_choices["usual"] = output / USUAL_RULES_FILE[mpi], usual_kept
            write(files["usual"], usual_kept, f"harmonize-tune {' '.join(command)}\nthe usual method: the "
                  "benchmark's averages after its native barrier")
    if files and not args.no_verify:
        checked, failed = verify(args, script_dir, mpi, commands, files, files_choices, default, output)
        any_failed |= failed
        verification = verification_text(checked, names, args.interleave)
        (output / "verification.txt").write_text(verification)
        (output / "verification.csv").write_text(verification_csv(checked))
        sys.stdout.write(verification)
        if "tuned" in files:
            keep_confirmed(files, write, choices, checked, default, header)
    if "tuned" in files and mpi == "openmpi":
        any_failed |= not check_module.check_written(args, files["tuned"], command, output)
    if "tuned" in files:
        path = files["tuned"].resolve()
        use = (f"{OMPI_DYNAMIC_RULES} OMPI_MCA_coll_tuned_dynamic_rules_filename={path}"
               if mpi == "openmpi" else f"MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE={path}")
        say("harmonize-tune", f"decision file {files['tuned']}; use it with {use}", args.quiet)
    return 1 if any_failed else 0


def keep_confirmed(files, write, choices, checked, default, header):
    """The tuned file again with only the rules its verification confirmed
    (a rule it contradicts or leaves undecided goes back to the library),
    or no file when none is left; what was dropped is said."""
    confirmed, dropped, unverified = confirmed_choices(choices, checked, "tuned", default)
    confirmed = kept_choices(default, confirmed)
    path = files["tuned"]
    sys.stdout.write(dropped_text(dropped, unverified, path))
    if not confirmed:
        path.unlink()
        del files["tuned"]
        print("the verification confirmed no rule: no decision file written (verification.txt)")
        return
    note = "verified: every rule confirmed per call (verification.txt)"
    if dropped:
        note = (f"verified per call (verification.txt): {len(dropped)} rule(s) it did not confirm handed "
                "back to the library")
    if unverified:
        note += f"; {len(unverified)} rule(s) no verification run measured, kept unverified"
    write(path, confirmed, f"{header}\n{note}")


def main(argv=None, script_dir=None):
    argv = sys.argv[1:] if argv is None else argv
    script_dir = Path(script_dir) if script_dir is not None else tools_dir(__file__)
    args = build_parser().parse_args(argv)
    try:
        return run(args, script_dir)
    except (UsageError, algorithms_module.AlgorithmsUnknown) as error:
        print(f"harmonize-tune: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as error:
        # Known only once written (a disk gone full): one line, the runs are kept.
        print(f"harmonize-tune: error: cannot write {error.filename or args.output}: {error.strerror or error}; "
              f"the runs so far are kept in {args.output}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt as interrupt:
        signum = getattr(interrupt, "signum", signal.SIGINT)
        if signum != signal.SIGINT:
            # SIGTERM or SIGHUP during harmonize-ab's runs (ab.cli.run_sides), which
            # stopped its job: end by the signal, as harmonize-tune does elsewhere.
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
        print(f"\nharmonize-tune: interrupted; the runs so far are kept in {args.output}; "
              "the same command continues them", file=sys.stderr)
        return 130
