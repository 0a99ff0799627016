"""Reading an output directory back: each run's status, benchmark rows and
library report (a file damaged since is a DamagedFile naming it), the runs
that count, and the library's per-call points of each side.

    read_plan(output)              plan.json
    collect(output, plan)          (ok runs, failed run statuses)
    side_rows(ok_runs)             [(side, benchmark rows)] of the ok runs
    side_reports(ok_runs, side)    the library reports of a side's ok runs
    side_points(plan, ok_runs)     {side: per_call.collective_points of its reports}
"""
from ..common import launcher_options_end, split_launcher
from .per_call import collective_points
from .failures import head, slurm_reason
from .files import DamagedFile, read_json, read_text
from .parsing import ParseError, parse_output


def read_plan(output):
    """plan.json of an output directory (DamagedFile naming it when unreadable)."""
    return read_json(output / "plan.json")


def read_status(run_dir):
    return read_json(run_dir / "status.json", required=("id", "side", "ok"))


def read_results(run_dir, status):
    """(rows, report) of a run that ended ok; DamagedFile naming the file when
    one has gone missing or been damaged since."""
    stdout = run_dir / "stdout.txt"
    try:
        rows = parse_output(read_text(stdout)).rows
    except ParseError as error:
        raise DamagedFile(f"{stdout}: {error}") from error
    report = run_dir / "report.json"
    if status.get("mode") == "off" and not report.exists():
        return rows, None
    return rows, read_json(report)


def completed_ok(run_dir):
    """Ended ok and everything it left is still readable (else --resume reruns it)."""
    try:
        status = read_status(run_dir)
        if not status.get("ok"):
            return False
        read_results(run_dir, status)
        return True
    except DamagedFile:
        return False


# Files a run directory holds; any other was left by a job of an earlier
# attempt (its report name), i.e. one that ran beside this run.
RUN_FILES = ("command.txt", "stdout.txt", "stderr.txt", "report.json", "status.json", "job.json", "timeline.json")


def stray_files(directory, attempt):
    own = (f"report-{attempt}.json", f"timeline-{attempt}.json")
    try:
        return sorted(path.name for path in directory.iterdir() if path.name not in RUN_FILES + own)
    except OSError:
        return []


def load_run(directory):
    """(status, rows, report) of one run directory; rows and report only for a
    run that counts (ok, not an attempt set aside). DamagedFile names the file."""
    superseded = ".failed-" in directory.name  # moved aside by --resume: listed, never counted
    if not (directory / "status.json").exists():
        # harmonize-ab was stopped during the run; Slurm may have said why.
        cancelled = slurm_reason(head(directory / "stderr.txt", lines=200).splitlines())
        why = f"interrupted: {cancelled}" if cancelled else "interrupted"
        return {"id": directory.name, "ok": False, "superseded": superseded,
                "errors": [f"{why}: no status.json (run again with --resume)"]}, None, None
    status = read_status(directory)
    status["superseded"] = superseded
    if superseded:
        status["id"] = directory.name
        return status, None, None
    if not status["ok"]:
        return status, None, None
    rows, report = read_results(directory, status)
    return status, rows, report


def collect(output, plan):
    """Everything on disk: (ok runs as dicts, failed run statuses)."""
    ok_runs = []
    failed = []
    runs_dir = output / "runs"
    for directory in sorted(runs_dir.iterdir()) if runs_dir.exists() else []:
        if not directory.is_dir():
            continue
        try:
            status, rows, report = load_run(directory)
        except DamagedFile as error:
            # One damaged run is listed, not fatal: the others still count.
            superseded = ".failed-" in directory.name
            status = {"id": directory.name, "ok": False, "superseded": superseded,
                      "errors": [str(error) + ("" if superseded else "; rerun it with --resume")]}
            rows = None
        status["log"] = str(directory)
        if rows is None:
            failed.append(status)
            continue
        if status["side"] not in plan["sides"]:
            continue
        status["stray_files"] = stray_files(directory, status.get("attempt"))
        ranks = ((report or {}).get("job") or {}).get("ranks")
        for row in rows:
            if row.processes is None and ranks:
                row.processes = ranks
        ok_runs.append({"status": status, "rows": rows, "report": report})
    fill_missing_processes(ok_runs, processes_from_command(plan["command"]))
    return ok_runs, failed


def processes_from_command(command):
    """The process count a launcher command line asks for (-n/-np/--ntasks), or None."""
    launcher, rest = split_launcher(command)
    if launcher is None:
        return 1 if command else None  # a singleton
    options = rest[:launcher_options_end(rest)]  # the program's own flags are not the launcher's
    for position, word in enumerate(options):
        name, eq, inline = word.partition("=")
        if name in ("-n", "-np", "--np", "--n", "--ntasks"):
            value = inline if eq else (options[position + 1] if position + 1 < len(options) else "")
            if value.isdigit():
                return int(value)
    return None


def fill_missing_processes(ok_runs, from_command=None):
    """OSU output does not say how many processes ran; runs without a report
    (mode off) take the count the other runs of the same benchmark reported,
    else the one the launcher command asked for."""
    known = {}
    for run in ok_runs:
        for row in run["rows"]:
            if row.processes is not None:
                known.setdefault(row.benchmark, set()).add(row.processes)
    for run in ok_runs:
        for row in run["rows"]:
            if row.processes is None and len(known.get(row.benchmark, ())) == 1:
                row.processes = next(iter(known[row.benchmark]))
            elif row.processes is None and not known.get(row.benchmark):
                row.processes = from_command


def side_rows(ok_runs):
    """[(side, benchmark rows)] of the ok runs, for stats.collect_points."""
    return [(run["status"]["side"], run["rows"]) for run in ok_runs]


def side_reports(ok_runs, side):
    """The library reports of `side`'s ok runs (a run in mode off has none)."""
    return [run["report"] for run in ok_runs if run["status"]["side"] == side and run["report"]]


def side_points(plan, ok_runs):
    """{side: the library's per-call points of its reports} of the plan's sides with a report."""
    points = {}
    for side in plan["sides"]:
        reports = side_reports(ok_runs, side)
        if reports:
            points[side] = collective_points(reports)
    return points
