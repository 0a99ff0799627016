"""Measuring the algorithms: one harmonize-ab side per algorithm (or per
decision file, to verify one), run through harmonize-ab as a library
(ab.cli.run_sides), interleaved; with --until-decided one more run per side
at a time while a choice could still change."""
import time

from ..ab import cli as ab_cli
from ..ab import interleaved as ab_interleaved
from ..ab import stats
from ..ab.results import collect, read_plan, side_points, side_reports, side_rows
from ..common import say
from . import algorithms as algorithms_module
from . import decide as decide_module
from . import interleaved, rules


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


def run_sides(args, script_dir, directory, sides, command, runs):
    """harmonize-ab's runs of `sides` (its options) into `directory`, continued
    when it holds some; its tables in harmonize-ab.txt there. Its exit status."""
    argv = ["-n", str(runs), "-o", str(directory), "--no-plots", "--timeout", f"{args.timeout:g}", *sides]
    if args.interleave:
        # One job holds every side. --until-decided is harmonize-tune's own
        # (until_decided): harmonize-ab's would add runs until every
        # algorithm is told from the default, where a choice that can no
        # longer change is enough.
        argv += ["--interleave", "--decide-on", "t_global", "--set", f"HARMONIZE_INTERLEAVE_RUN={args.interleave_run}"]
    if (directory / "plan.json").exists():
        argv.append("--resume")
    if args.library:
        argv += ["--library", args.library]
    if args.quiet:
        argv.append("-q")
    directory.mkdir(parents=True, exist_ok=True)
    # harmonize-ab's own tables go to its directory; its progress (stderr) shows.
    with open(directory / "harmonize-ab.txt", "w") as table:
        return ab_cli.run_sides(argv + ["--"] + command, script_dir, table)


def until_decided(args, label, look, is_open):
    """`look(runs)` (rows or None when nothing could be measured, any run
    failed, the runs per side now held) once, and with --until-decided again
    with one more run per side while `is_open` holds for a row and the budget
    allows. Each look's verdicts are taken at the level the budget shares
    among all of them (--max-runs looks), so stopping at any look keeps it.
    (rows or None, any run failed)."""
    runs, started = args.runs, time.monotonic()
    while True:
        round_started = time.monotonic()
        rows, failed, runs = look(runs)
        if rows is None or not args.limits:
            return rows, failed
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
            say("harmonize-tune", f"{label}: until decided: {stopped} after {runs} runs per side", args.quiet)
            return rows, failed
        say("harmonize-tune", f"{label}: until decided: {len(undecided)} of {len(rows)} sizes undecided after "
            f"{runs} runs per side ({', '.join(undecided[:3])}{', ...' if len(undecided) > 3 else ''}); one more "
            "run per side", args.quiet)
        runs += 1


def measure(args, script_dir, directory, sides, command, rows_of, is_open, label):
    """harmonize-ab runs of `sides`, and the rows `rows_of` decides from
    their points, until decided (until_decided)."""
    def look(runs):
        status = run_sides(args, script_dir, directory, sides, command, runs)
        if status not in (0, 1):
            say("harmonize-tune", f"{label}: harmonize-ab ended with status {status}; skipped", args.quiet)
            return None, True, runs
        points, failed = points_of(directory)
        # A resumed directory may hold more runs than asked.
        return rows_of(points), bool(failed) or status == 1, read_plan(directory)["runs"]
    return until_decided(args, label, look, is_open)


def measure_interleaved_until_decided(args, script_dir, directory, mpi, collective, values, command, rows_of,
                                      is_open, label):
    """measure_interleaved, and the rows `rows_of` decides from its runs,
    until decided (until_decided)."""
    def look(runs):
        found, failed = measure_interleaved(args, script_dir, directory, mpi, collective, values, command, label,
                                            runs)
        if not any(found):
            say("harmonize-tune", f"{label}: no interleaved run succeeded; skipped", args.quiet)
            return None, True, runs
        return rows_of(found), failed, runs
    return until_decided(args, label, look, is_open)


def interleaved_runs(directory):
    """The library's "interleave" of each successful run in a harmonize-ab
    --interleave directory (none when harmonize-ab made no plan there)."""
    if not (directory / "plan.json").exists():
        return []
    _, ok_runs, _ = runs_of(directory)
    return ab_interleaved.run_comparisons(side_reports(ok_runs, ab_interleaved.SIDE))


def measure_interleaved(args, script_dir, directory, mpi, collective, values, command, label, runs):
    """Every algorithm of `values` (the default first) a side of `runs`
    interleaved runs, at most eight sides a job (tune/interleaved.side_groups):
    a list per group of its runs' "interleave", and whether any run failed. A job
    that fails takes all its sides with it, so a group none of whose runs
    succeeded is run again one algorithm at a time beside the default: the
    one that crashes is failed alone, the others decide."""
    groups = interleaved.side_groups(values, values[0])
    found, any_failed = [], False
    for index, group in enumerate(groups, 1):
        where = directory if len(groups) == 1 else directory / f"sides-{index}"
        status = run_sides(args, script_dir, where, side_options(mpi, collective, group), command, runs)
        succeeded = interleaved_runs(where)
        any_failed |= status != 0
        if succeeded or len(group) <= 2:
            found.append(succeeded)
            continue
        say("harmonize-tune", f"{label}: no interleaved run of {', '.join(group)} succeeded; each algorithm "
            "again beside the default alone", args.quiet)
        for algorithm in group[1:]:
            alone = where / f"alone-{algorithm}"
            run_sides(args, script_dir, alone, side_options(mpi, collective, [group[0], algorithm]), command,
                      runs)
            found.append(interleaved_runs(alone))
    return found, any_failed


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


def verify(args, script_dir, mpi, commands, files, files_choices, default, output):
    """The library's default against each written file ({side: path}, the
    choices it holds in `files_choices`), per call, interleaved like the
    tuning, on the collectives the file has rules for: (rows, any run
    failed), each row with the rule each file names at its size and the
    verdict (decide.with_rules)."""
    rows, failed_any = [], False
    for collective, command in commands.items():
        sides = {side: path.resolve() for side, path in files.items() if collective in files_choices[side]}
        if not sides:
            continue
        directory = output / "verify" / collective
        say("harmonize-tune", f"{collective}: verifying: default against {', '.join(sides)}, {runs_text(args)} "
            f"-> {directory}", args.quiet)

        if args.interleave:
            checked, failed = verify_interleaved(args, script_dir, directory, mpi, collective, command,
                                                 {side: files_choices[side] for side in sides}, default)
            failed_any |= failed
            rows += checked or []
            continue

        def rows_of(points, collective=collective, sides=sides):
            decided = decide_module.decide(points, collective, "default", list(sides), args.size_range)
            return decide_module.with_rules(decided, files_choices, default)

        checked, failed = measure(args, script_dir, directory, verify_sides(mpi, collective, sides), command,
                                  rows_of, decide_module.verification_open, f"{collective} verification")
        failed_any |= failed
        rows += checked or []
    return rows, failed_any


def verify_interleaved(args, script_dir, directory, mpi, collective, command, files_choices, default):
    """The verification interleaved: no MPI reads a decision file per call,
    so each file is verified through what it switches, the algorithm its
    rule names at each size, against the default, in fresh interleaved runs
    of every algorithm the files name (whether the MPI obeys the file
    itself is --check's and test_decision_files'). (rows, any run failed)."""
    named = sorted({algorithm for choices in files_choices.values()
                    for entries in choices.get(collective, {}).values() for _, algorithm in entries} - {default})
    if not named:
        return [], False
    values = [default, *named]

    def rows_of(found):
        rows = interleaved.decide(found, collective, default, values, args.size_range, looks(args))
        for row in rows:
            by_algorithm = row["versus"]
            row["versus"] = {}
            for side, choices in files_choices.items():
                rule = rules.rule_at(choices, row["operation"], row["processes"], row["bytes"])
                if rule in by_algorithm:
                    row["versus"][side] = by_algorithm[rule]
        return decide_module.with_rules(rows, files_choices, default)

    return measure_interleaved_until_decided(args, script_dir, directory, mpi, collective, values, command, rows_of,
                                             decide_module.verification_open, f"{collective} verification")


def runs_of(directory):
    """(plan, successful runs, failed runs) of a harmonize-ab directory."""
    plan = read_plan(directory)
    return (plan, *collect(directory, plan))


def points_of(directory):
    """{side: the library's collective points} of a harmonize-ab directory, and its failed runs."""
    plan, ok_runs, failed = runs_of(directory)
    return side_points(plan, ok_runs), failed


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
            say("harmonize-tune", f"{collective}{' ' + ' '.join(extra[1:]) if extra else ''}: {len(values)} "
                f"algorithms ({listed}), {runs_text(self.args)}{'' if self.args.interleave else ', interleaved'} "
                f"-> {directory}", self.args.quiet)
            if self.args.interleave:
                decided, failed = self.interleaved(collective, values, directory, collective + suffix)
            else:
                decided, failed = measure(
                    self.args, self.script_dir, directory, side_options(self.mpi, collective, values) + extra,
                    self.commands[collective],
                    lambda points: decide_module.decide(points, collective, self.default, values,
                                                        self.args.size_range),
                    decide_module.still_open, collective + suffix)
            any_failed |= failed
            if decided is None:
                continue
            rows += decided
            choices.update(decide_module.choices_of(decided, collective))
        return rows, choices, any_failed

    def interleaved(self, collective, values, directory, label):
        """(rows, any run failed) of `values` interleaved (measure_interleaved)."""
        return measure_interleaved_until_decided(
            self.args, self.script_dir, directory, self.mpi, collective, values, self.commands[collective],
            lambda found: interleaved.decide(found, collective, self.default, values, self.args.size_range,
                                             looks(self.args)),
            decide_module.still_open, label)

    def usual(self, collectives):
        """The usual method: every algorithm once more in mode observe (the
        benchmark's native barrier), ranked by the benchmark's own averages.
        {collective: {(processes, bytes): (algorithm, average / default's)}}."""
        found = {}
        for collective in collectives:
            values = [value for value, _ in self.offered[collective]]
            directory = self.output / (collective + "-usual")
            say("harmonize-tune", f"{collective}: the usual way, mode observe: {len(values)} algorithms, "
                f"{self.args.runs} runs each -> {directory}", self.args.quiet)
            status = run_sides(self.args, self.script_dir, directory,
                               side_options(self.mpi, collective, values, "observe"), self.commands[collective],
                               self.args.runs)
            if status not in (0, 1) or not (directory / "plan.json").exists():
                continue
            _, ok_runs, _ = runs_of(directory)
            averages = stats.collect_points(side_rows(ok_runs))
            found[collective] = decide_module.usual_choices(averages, self.default, self.args.size_range)
        return found


def looks(args):
    """The runs an interleaved comparison may pool: the level is shared among them."""
    return args.limits[0] if args.limits else args.runs


def runs_text(args):
    """How many runs each algorithm gets, as the progress lines say it."""
    runs = f"{args.runs} to {args.limits[0]}" if args.limits else f"{args.runs}"
    if args.interleave:
        return f"{runs} interleaved run(s) of all of them together"
    return f"{runs} runs" + (" (until decided)" if args.limits else "") + " each"
