"""harmonize-tune: choose each collective's algorithm from harmonized per-call
measurements, and write the MPI library's own decision file.

usage: harmonize-tune [--collectives allreduce,bcast] [--sizes MIN:MAX]
                      [--runs N | --until-decided [--max-runs N] [--max-time T]]
                      [--mpi openmpi|mpich] [--arrival PATTERN] [--compare-usual]
                      [--timeout SECONDS] [--no-verify] -o DIR -- LAUNCHER [ARGS] BENCHMARK [ARGS]

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

--arrival PATTERN chooses a second time with every side under that arrival
pattern, and shows both choices side by side. --compare-usual also ranks the
algorithms the usual way (the benchmark's averages after its native barrier,
mode observe) and shows where that choice differs.

Then each written file is verified: one more harmonize-ab run, the library
deciding alone against the library reading the file, interleaved, per call
(DIR/verify/<collective>, verification.txt and .csv; --no-verify skips it).

Written in DIR: table.txt and decisions.csv (every comparison, the choice),
heatmap-<collective>-P<processes>.png (size x algorithm, t_global relative to
the fastest) and the library's decision file: ompi-coll-rules.conf for Open
MPI (OMPI_MCA_coll_tuned_use_dynamic_rules=1
OMPI_MCA_coll_tuned_dynamic_rules_filename=FILE; only the collectives where
an algorithm won, none when the default won everywhere), or
mpich-coll-selection.json for MPICH (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=FILE;
the library's own selection tree with the tuned collectives replaced).

exit status: 0 done, 1 some runs failed (decided from the others), 2 usage
error or algorithms that cannot be listed, 3 no usable run.
"""
import argparse
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from ..ab import decide as ab_decide
from ..ab import plots, runner, stats
from ..common import UnknownLauncher, detect_kind, pattern_delta, split_launcher, tools_dir
from . import algorithms as algorithms_module
from . import decide as decide_module
from . import heatmap, rules

EXIT_USAGE, EXIT_NO_RUNS = 2, 3
IMB_NAMES = {"allgather": "Allgather", "allreduce": "Allreduce", "alltoall": "Alltoall",
             "barrier": "Barrier", "bcast": "Bcast", "gather": "Gather", "reduce": "Reduce",
             "reduce_scatter": "Reduce_scatter", "scatter": "Scatter"}
RULES_FILE = {"openmpi": "ompi-coll-rules.conf", "mpich": "mpich-coll-selection.json"}
USUAL_RULES_FILE = {"openmpi": "ompi-coll-rules-usual.conf", "mpich": "mpich-coll-selection-usual.json"}
ARRIVAL_RULES_FILE = {"openmpi": "ompi-coll-rules-arrival.conf", "mpich": "mpich-coll-selection-arrival.json"}


class UsageError(Exception):
    pass


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
    parser.add_argument("--runs", "-n", type=int, default=5, help="runs per algorithm (default 5; 3 "
                                                                  "at least to decide)")
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
    parser.add_argument("-o", "--output", required=True, help="output directory")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    return parser


def split_command(command):
    if command[:1] == ["--"]:
        command = command[1:]
    if not command:
        raise UsageError("no benchmark command after `--`")
    return command


def benchmark_position(argv):
    """Index of the benchmark in `argv` (after the launcher and its options):
    the first word that is a directory or an executable file."""
    for index, word in enumerate(argv):
        path = Path(word)
        if index > 0 and (path.is_dir() or (path.is_file() and os.access(path, os.X_OK))):
            return index
    return None


def size_range(text):
    """--sizes MIN:MAX as (MIN, MAX) bytes; None without it. The benchmark
    prints these, and the calls it makes of other sizes (IMB's own) are not
    decided on."""
    if text is None:
        return None
    try:
        low, high = (int(part) for part in text.split(":"))
    except ValueError:
        raise UsageError(f"--sizes: {text!r} is not MIN:MAX in bytes") from None
    if not 0 <= low <= high:
        raise UsageError(f"--sizes: {text!r}: MIN must not exceed MAX")
    return low, high


def benchmark_command(command, collective, sizes, single):
    """The command line that measures `collective` (`sizes`: size_range's)."""
    launcher, _ = split_launcher(command)
    position = benchmark_position(command) if launcher else 0
    if position is None:
        raise UsageError(f"no benchmark program or OSU directory in: {' '.join(command)}")
    head, program, tail = command[:position], Path(command[position]), command[position + 1:]
    if program.is_dir():
        found = sorted(program.rglob(f"osu_{collective}"))
        if not found:
            raise UsageError(f"{program}: no osu_{collective} in this OSU directory")
        extra = ["-m", f"{sizes[0]}:{sizes[1]}"] if sizes else []
        return head + [str(found[0])] + extra + tail
    if program.name.startswith("IMB-"):
        extra = ["-msglog", ":".join(str(max(0, s.bit_length() - 1)) for s in sizes)] if sizes else []
        return head + [str(program), IMB_NAMES[collective]] + extra + tail
    if not single:
        raise UsageError(f"{program.name} is neither an OSU directory nor IMB-MPI1: give one collective")
    return command


def mpi_of(args, command):
    if args.mpi:
        return args.mpi
    launcher, _ = split_launcher(command)
    try:
        kind = detect_kind(launcher) if launcher else None
    except UnknownLauncher:
        kind = None
    if kind not in ("openmpi", "mpich"):
        raise UsageError("cannot tell the MPI library from the launcher: give --mpi openmpi|mpich")
    return kind


# Open MPI's tuned component reads a forced algorithm or a rules file only with this.
OMPI_DYNAMIC_RULES = "OMPI_MCA_coll_tuned_use_dynamic_rules=1"


def algorithm_variable(mpi, collective):
    """The environment variable that forces `collective`'s algorithm."""
    return (f"OMPI_MCA_{algorithms_module.ompi_parameter(collective)}" if mpi == "openmpi"
            else algorithms_module.mpich_variable(collective))


def side_options(mpi, collective, values, mode="harmonize"):
    """harmonize-ab options for one side per algorithm: a sweep in mode
    harmonize (a sweep's sides are harmonized), named sides in another mode."""
    variable = algorithm_variable(mpi, collective)
    options = ["--set", OMPI_DYNAMIC_RULES] if mpi == "openmpi" else []
    if mode == "harmonize":
        return options + ["--sweep", f"{variable}={','.join(values)}"]
    for value in values:
        options += ["--side", f"{value}:MODE={mode},{variable}={value}"]
    return options


def say(args, text):
    if not args.quiet:
        print(f"harmonize-tune: {text}", file=sys.stderr, flush=True)


def run_sides(args, script_dir, directory, sides, command, runs):
    argv = [sys.executable, str(script_dir / "harmonize-ab"), "-n", str(runs), "-o", str(directory),
            "--no-plots", "--timeout", f"{args.timeout:g}", *sides]
    if (directory / "plan.json").exists():
        argv.append("--resume")
    if args.library:
        argv += ["--library", args.library]
    if args.quiet:
        argv.append("-q")
    directory.mkdir(parents=True, exist_ok=True)
    # harmonize-ab's own tables go to its directory; its progress (stderr) shows.
    with open(directory / "harmonize-ab.txt", "w") as table:
        return subprocess.run(argv + ["--"] + command, stdout=table).returncode


def measure(args, script_dir, directory, sides, command, rows_of, is_open, label):
    """harmonize-ab runs of `sides`, and the rows `rows_of` decides from
    their points; with --until-decided one more run per side at a time while
    `is_open` holds for a row and the budget allows. (rows or None when
    harmonize-ab failed, any run failed)."""
    runs, started = args.runs, time.monotonic()
    while True:
        round_started = time.monotonic()
        status = run_sides(args, script_dir, directory, sides, command, runs)
        if status not in (0, 1):
            say(args, f"{label}: harmonize-ab ended with status {status}; skipped")
            return None, True
        points, failed = points_of(directory)
        rows = rows_of(points)
        if not args.limits:
            return rows, bool(failed) or status == 1
        runs = json.loads((directory / "plan.json").read_text())["runs"]  # a resumed directory may hold more
        undecided = [decide_module.open_label(row) for row in rows if is_open(row)]
        max_runs, max_time = args.limits
        elapsed = time.monotonic() - started
        stopped = None
        if not undecided:
            stopped = "every size decided"
        elif runs >= max_runs:
            stopped = f"--max-runs {max_runs} reached, undecided: {', '.join(undecided)}"
        elif elapsed + (time.monotonic() - round_started) > max_time:
            stopped = f"--max-time {max_time:g} s would be exceeded, undecided: {', '.join(undecided)}"
        if stopped:
            say(args, f"{label}: until decided: {stopped} after {runs} runs per side")
            return rows, bool(failed) or status == 1
        say(args, f"{label}: until decided: {len(undecided)} of {len(rows)} sizes undecided after {runs} runs "
                  f"per side ({', '.join(undecided[:3])}{', ...' if len(undecided) > 3 else ''}); one more run "
                  "per side")
        runs += 1


def verify_sides(mpi, collective, files):
    """The library deciding alone, and the library reading each file ({side: path})."""
    if mpi == "openmpi":
        sides = ["--side", f"default:{OMPI_DYNAMIC_RULES}"]
        for side, path in files.items():
            sides += ["--side", f"{side}:{OMPI_DYNAMIC_RULES},OMPI_MCA_coll_tuned_dynamic_rules_filename={path}"]
        return sides
    variable = algorithms_module.mpich_variable(collective)
    sides = ["--side", f"default:{variable}=auto"]
    for side, path in files.items():
        sides += ["--side", f"{side}:{variable}=auto,MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE={path}"]
    return sides


def verification_text(rows):
    lines = ["verification: t_global of the valid calls with the written file / without it "
             "(95 % interval over calls and runs; ? undecided)"]
    for row in rows:
        files = "  ".join(f"{side}: {ratio_text(c)}" for side, c in row["versus"].items())
        lines.append(f"  {row['operation']} P={row['processes']} {row['bytes']} B: {files}")
    return "\n".join(lines) + "\n"


def comparison_cells(comparison):
    """A comparison's CSV cells: ratio, its 95 % interval, decided; blank when there is none."""
    if not comparison:
        return ["", "", "", ""]
    return [comparison["delta"], comparison["delta_low"], comparison["delta_high"],
            str(comparison["decided"]).lower()]


def verification_csv(rows):
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["operation", "processes", "bytes", "file", "over_default", "low95", "high95", "decided"])
    for row in rows:
        for side, comparison in row["versus"].items():
            writer.writerow([row["operation"], row["processes"], row["bytes"], side, *comparison_cells(comparison)])
    return buffer.getvalue()


def verify(args, script_dir, mpi, commands, files, output):
    """The library's default against each written file ({side: path}), per
    call, interleaved like the tuning; (rows, any run failed)."""
    rows, failed_any = [], False
    for collective, command in commands.items():
        directory = output / "verify" / collective
        say(args, f"{collective}: verifying: default against {', '.join(files)}, {runs_text(args)} each "
                  f"-> {directory}")
        checked, failed = measure(
            args, script_dir, directory, verify_sides(mpi, collective, {s: p.resolve() for s, p in files.items()}),
            command, lambda points: decide_module.decide(points, collective, "default", list(files), args.size_range),
            decide_module.verification_open, f"{collective} verification")
        failed_any |= failed
        rows += checked or []
    return rows, failed_any


def runs_of(directory):
    """(plan, successful runs, failed runs) of a harmonize-ab directory."""
    plan = json.loads((directory / "plan.json").read_text())
    return (plan, *runner.collect(directory, plan))


def points_of(directory):
    """{side: the library's collective points} of a harmonize-ab directory, and its failed runs."""
    plan, ok_runs, failed = runs_of(directory)
    points = {}
    for side in plan["sides"]:
        reports = [run["report"] for run in ok_runs if run["status"]["side"] == side and run["report"]]
        if reports:
            points[side] = stats.collective_points(reports)
    return points, failed


def ratio_text(comparison):
    if not comparison:
        return "-"
    mark = "" if comparison["decided"] else "?"
    return f"{comparison['delta']:.3f} [{comparison['delta_low']:.3f}, {comparison['delta_high']:.3f}]{mark}"


def table_text(rows, names):
    lines = []
    for row in rows:
        default = row["default_t_global"]
        lines.append(f"{row['operation']} P={row['processes']} {row['bytes']} B: default ({row['default']})"
                     + (f" t_global {default * 1e6:.2f} us" if default else ""))
        named = names.get(row["operation"], {})
        for algorithm, comparison in row["versus"].items():
            lines.append(f"    {algorithm:>4} {named.get(algorithm, ''):<40} {ratio_text(comparison)}")
        for algorithm in row.get("failed", []):
            lines.append(f"    {algorithm:>4} {named.get(algorithm, ''):<40} failed: no run measured this size")
        choice = row["choice"]
        if choice != row["default"]:
            ratio = row["versus"][choice]["delta"]
            verdict = f"{choice} {named.get(choice, '')}: {ratio:.3f} of the default's t_global"
        elif row["tie"]:
            verdict = "tie: the default stays (no algorithm decidedly faster)"
        else:
            verdict = "the default stays: every algorithm is decidedly slower"
        lines.append("    -> " + verdict)
    return "\n".join(lines) + "\n"


def decisions_csv(rows, names):
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["operation", "processes", "bytes", "algorithm", "name", "ratio_to_default",
                     "ratio_low95", "ratio_high95", "decided", "chosen", "tie", "failed"])
    for row in rows:
        compared = [(a, c, False) for a, c in row["versus"].items()] + \
            [(a, None, True) for a in row.get("failed", [])]
        for algorithm, comparison, failed in compared:
            writer.writerow([row["operation"], row["processes"], row["bytes"], algorithm,
                             names.get(row["operation"], {}).get(algorithm, ""),
                             *comparison_cells(comparison), str(row["choice"] == algorithm).lower(),
                             str(row["tie"]).lower(), str(failed).lower()])
    return buffer.getvalue()


class Tuning:
    """One pass of harmonize-ab runs over the collectives, every algorithm a side."""

    def __init__(self, args, script_dir, mpi, default, offered, commands, output):
        self.args, self.script_dir, self.mpi, self.default = args, script_dir, mpi, default
        self.offered, self.commands, self.output = offered, commands, output

    def pass_over(self, collectives, suffix, extra):
        """(rows, choices, any run failed) with `extra` harmonize-ab options for every side."""
        rows, choices, any_failed = [], {}, False
        for collective in collectives:
            values = [value for value, _ in self.offered[collective]]
            listed = ", ".join(f"{v} {n}" if v != n else v for v, n in self.offered[collective])
            directory = self.output / (collective + suffix)
            say(self.args, f"{collective}{' ' + ' '.join(extra[1:]) if extra else ''}: {len(values)} algorithms "
                           f"({listed}), {runs_text(self.args)} each, interleaved -> {directory}")
            decided, failed = measure(
                self.args, self.script_dir, directory, side_options(self.mpi, collective, values) + extra,
                self.commands[collective],
                lambda points: decide_module.decide(points, collective, self.default, values, self.args.size_range),
                decide_module.still_open, collective + suffix)
            any_failed |= failed
            if decided is None:
                continue
            rows += decided
            choices.update(decide_module.choices_of(decided, collective))
        return rows, choices, any_failed

    def usual(self, collectives):
        """The usual method: every algorithm once more in mode observe (the
        benchmark's native barrier), ranked by the benchmark's own averages.
        {collective: {(processes, bytes): (algorithm, average / default's)}}."""
        found = {}
        for collective in collectives:
            values = [value for value, _ in self.offered[collective]]
            directory = self.output / (collective + "-usual")
            say(self.args, f"{collective}: the usual way, mode observe: {len(values)} algorithms, "
                           f"{self.args.runs} runs each -> {directory}")
            status = run_sides(self.args, self.script_dir, directory,
                               side_options(self.mpi, collective, values, "observe"), self.commands[collective],
                               self.args.runs)
            if status not in (0, 1) or not (directory / "plan.json").exists():
                continue
            _, ok_runs, _ = runs_of(directory)
            averages = stats.collect_points([(run["status"]["side"], run["rows"]) for run in ok_runs])
            found[collective] = decide_module.usual_choices(averages, self.default, self.args.size_range)
        return found


def usual_choices_of(usual, collectives):
    """The usual method's choices in rules.py's shape."""
    choices = {}
    for collective in collectives:
        by_size = {}
        for (processes, size), (algorithm, _) in sorted((usual.get(collective) or {}).items()):
            by_size.setdefault(processes, []).append((size, algorithm))
        if by_size:
            choices[collective] = by_size
    return choices


def usual_text(rows, usual, names):
    """Per size: harmonize-tune's choice beside the usual method's, and whether they differ."""
    lines = ["choices: harmonized per-call t_global (decided) | the benchmark's averages after its native barrier"]
    for row in rows:
        found = (usual.get(row["operation"]) or {}).get((row["processes"], row["bytes"]))
        mine = row["choice"] if row["choice"] != row["default"] else f"{row['default']} (default)"
        theirs = "-" if not found else f"{found[0]} ({found[1]:.3f} of the default's average)"
        differ = found and found[0] != row["choice"]
        lines.append(f"  {row['operation']} P={row['processes']} {row['bytes']} B: {mine} | {theirs}"
                     + ("  <- differ" if differ else ""))
    return "\n".join(lines) + "\n"


def side_by_side(together, under, pattern, names):
    """Per size: the choice when all arrive together and under the pattern."""
    def verdict(row):
        if row["choice"] == row["default"]:
            return "default" + (" (tie)" if row["tie"] else "")
        named = names.get(row["operation"], {})
        return f"{row['choice']} {named.get(row['choice'], '')} ({row['versus'][row['choice']]['delta']:.3f})"

    later = {(r["operation"], r["processes"], r["bytes"]): r for r in under}
    lines = [f"choices: all arriving together | under {pattern}"]
    for row in together:
        other = later.get((row["operation"], row["processes"], row["bytes"]))
        lines.append(f"  {row['operation']} P={row['processes']} {row['bytes']} B: {verdict(row)} | "
                     f"{verdict(other) if other else '-'}")
    return "\n".join(lines) + "\n"


def run(args, script_dir):
    command = split_command(args.command)
    collectives = [c.strip() for c in args.collectives.split(",") if c.strip()]
    unknown = [c for c in collectives if c not in algorithms_module.COLLECTIVES]
    if unknown or not collectives:
        raise UsageError(f"--collectives: unknown {', '.join(unknown) or '(none)'}; of: "
                         f"{', '.join(algorithms_module.COLLECTIVES)}")
    if args.runs < 1:
        raise UsageError("--runs must be at least 1")
    if not args.timeout > 0:
        raise UsageError("--timeout must be a positive number of seconds")
    args.size_range = size_range(args.sizes)
    try:
        args.limits = ab_decide.budget(argparse.Namespace(
            until_decided=args.until_decided, max_runs=args.max_runs, max_time=args.max_time, runs=args.runs,
            aggregate=False))
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
    output = Path(args.output)
    output.mkdir(parents=True, exist_ok=True)
    default = algorithms_module.OMPI_DEFAULT if mpi == "openmpi" else algorithms_module.MPICH_DEFAULT
    # Per collective: Open MPI numbers each collective's algorithms on its own.
    names = {collective: dict(algorithms) for collective, algorithms in offered.items()}
    tuned = Tuning(args, script_dir, mpi, default, offered, commands, output)
    all_rows, choices, any_failed = tuned.pass_over(collectives, "", [])
    if not all_rows:
        print("harmonize-tune: error: no usable run: nothing to decide from", file=sys.stderr)
        return EXIT_NO_RUNS
    table = table_text(all_rows, names)
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
            write_rules(output / ARRIVAL_RULES_FILE[mpi], mpi, arrival_choices,
                        f"harmonize-tune {' '.join(command)}\nchosen under {args.arrival}", builtin)
    choices = kept_choices(default, choices)
    files, verified = {}, set(choices)
    if choices:
        files["tuned"] = output / RULES_FILE[mpi]
        write_rules(files["tuned"], mpi, choices, f"harmonize-tune {' '.join(command)}\nchosen from harmonized "
                    f"per-call t_global (valid calls), {runs_text(args)} per algorithm", builtin)
        path = files["tuned"].resolve()
        use = (f"{OMPI_DYNAMIC_RULES} OMPI_MCA_coll_tuned_dynamic_rules_filename={path}"
               if mpi == "openmpi" else f"MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE={path}")
        say(args, f"decision file {files['tuned']}; use it with {use}")
    else:
        print("no algorithm was decidedly faster than the default anywhere: no decision file written")
    if args.compare_usual:
        usual = tuned.usual(collectives)
        sys.stdout.write(usual_text(all_rows, usual, names))
        usual_kept = kept_choices(default, usual_choices_of(usual, collectives))
        if usual_kept:
            files["usual"] = output / USUAL_RULES_FILE[mpi]
            write_rules(files["usual"], mpi, usual_kept, f"harmonize-tune {' '.join(command)}\nthe usual "
                        "method: the benchmark's averages after its native barrier", builtin)
            verified |= set(usual_kept)
    if files and not args.no_verify:
        checked, failed = verify(args, script_dir, mpi, {c: commands[c] for c in collectives if c in verified},
                                 files, output)
        any_failed |= failed
        verification = verification_text(checked)
        (output / "verification.txt").write_text(verification)
        (output / "verification.csv").write_text(verification_csv(checked))
        sys.stdout.write(verification)
    return 1 if any_failed else 0


def runs_text(args):
    if not args.limits:
        return f"{args.runs} runs"
    return f"{args.runs} to {args.limits[0]} runs (until decided)"


def draw_heatmaps(args, rows, default, names, output, suffix):
    """heatmap-<collective>-P<processes><suffix>.png per collective and process count."""
    groups = {}
    for row in rows:
        groups.setdefault((row["operation"], row["processes"]), []).append(row)
    for (operation, processes), group in sorted(groups.items(), key=lambda item: str(item[0])):
        path = output / f"heatmap-{operation}-P{processes}{suffix}.png"
        title = f"{operation}, {processes} processes{' under ' + args.arrival if suffix else ''}: t_global / fastest"
        try:
            heatmap.draw(group, default, names.get(operation, {}), title, path)
        except plots.PlotsUnavailable as error:
            say(args, str(error))
            return


def kept_choices(default, choices):
    """A collective the default wins everywhere is left to the library: an
    Open MPI rule that only says 0 still costs its lookup in every call, and
    an MPICH subtree of ours adds levels to the library's search (both
    measured: docs/tuning.md); MPICH's file keeps the library's own subtree
    for it. With no collective left, no file."""
    return {c: sizes for c, sizes in choices.items()
            if any(algorithm != default for rules_ in sizes.values() for _, algorithm in rules_)}


def write_rules(path, mpi, choices, header, builtin=None):
    if mpi == "openmpi":
        path.write_text(rules.ompi_rules_text(choices, header))
    else:
        tuned = rules.mpich_tuning(choices, builtin)
        path.write_text(json.dumps(rules.merge_mpich_tuning(builtin, tuned), indent=2) + "\n")


def mpich_builtin(args):
    """MPICH's built-in MPIR selection tree, from the libmpich mpivars runs with."""
    path = args.mpich_library
    if not path:
        text = algorithms_module.run_text(["ldd", shutil.which(args.mpivars) or args.mpivars])
        found = [line.split("=>")[1].split()[0] for line in text.splitlines()
                 if "libmpich" in line and "=>" in line]
        if not found:
            raise UsageError(f"cannot find the libmpich {args.mpivars} runs with (ldd); its built-in "
                             "selection tree is needed to complete MPICH's file")
        path = found[0]
    try:
        tree = rules.mpich_builtin_tuning(Path(path).read_bytes())
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror}") from error
    if tree is None:
        raise UsageError(f"{path} holds no built-in MPIR selection tree to complete MPICH's file from")
    return tree


def main(argv=None, script_dir=None):
    argv = sys.argv[1:] if argv is None else argv
    script_dir = Path(script_dir) if script_dir is not None else tools_dir(__file__)
    args = build_parser().parse_args(argv)
    try:
        return run(args, script_dir)
    except (UsageError, algorithms_module.AlgorithmsUnknown) as error:
        print(f"harmonize-tune: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"\nharmonize-tune: interrupted; the runs so far are kept in {args.output}; "
              "the same command continues them", file=sys.stderr)
        return 130
