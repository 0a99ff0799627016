"""Running the interleaved runs of every side and keeping everything on disk.

Layout of an output directory:
    plan.json                  what was asked (command, sides in order, each
                               side's mode, preset and settings)
    runs/<NNN>-<side>/         one directory per run, written as the run goes:
        command.txt            the exact command line (reproducible by hand)
        stdout.txt stderr.txt  raw output of the run
        report.json            the library's report (written as report-<attempt>.json,
                               a name of this attempt's own, renamed when the run ends)
        status.json            written last: exit code, duration, errors
    runs/<NNN>-<side>.failed-<k>/   earlier attempts kept when --resume reruns
A run without status.json was interrupted; --resume runs it again, as it
does a run whose status.json, output or report was damaged afterwards.
"""
import os
import shlex
import shutil
import subprocess
import uuid
from datetime import datetime, timezone

from ..common import UnknownLauncher, detect_kind, say, split_launcher
from .failures import LOST_NODE, allocation_gone, check_run
from .files import OutputError, write_json, write_text
from .jobs import check_stale_jobs, execute, record_job
from .plan import PlanError
from .results import completed_ok


def run_id(index, side):
    return f"{index:03d}-{side}"


def schedule(runs, sides):
    """Interleaved order A B A B ... so that machine drift hits every side alike."""
    return [(index, side) for index in range(1, runs + 1) for side in sides]


# The timeline of each side's first run: a few calls at each end of every
# communicator, for the picture of the side (docs/ab.md, "Timelines").
TIMELINE_WINDOW = 16


def wants_timeline(plan, side, index):
    """The first run of a side that measures (not mode off), unless the user
    asked for a timeline of their own."""
    settings = plan["settings"].get("all", []) + plan["settings"].get(side, [])
    return index == 1 and plan["modes"][side] != "off" and \
        not any(s.startswith("HARMONIZE_TRACE=") for s in settings)


def side_command(plan, side, report_path, harmonize_run, launcher_kind, trace_path=None):
    """The harmonize-run command line for one run of `side` (with a timeline
    written to `trace_path`, if given)."""
    argv = [str(harmonize_run), "--mode", plan["modes"][side]]
    if plan.get("library"):
        argv += ["--library", plan["library"]]
    if plan["configs"].get(side):
        argv += ["--config", plan["configs"][side]]
    for setting in plan["settings"].get("all", []) + plan["settings"].get(side, []):
        argv += ["--set", setting]
    argv += ["--set", f"HARMONIZE_REPORT={report_path}"]
    if trace_path is not None:
        argv += ["--set", f"HARMONIZE_TRACE={trace_path}", "--set", f"HARMONIZE_TRACE_WINDOW={TIMELINE_WINDOW}"]
    launcher, rest = split_launcher(plan["command"])
    if launcher is None:
        return argv + ["--launcher-kind", "direct", "--"] + rest
    argv += ["--launcher", launcher]
    if launcher_kind:
        argv += ["--launcher-kind", launcher_kind]
    return argv + list(plan.get("launcher_args", [])) + ["--"] + rest


def keep_failed_attempt(run_dir):
    """Move an earlier failed or interrupted attempt aside (its logs stay)."""
    attempt = 1
    while run_dir.with_name(f"{run_dir.name}.failed-{attempt}").exists():
        attempt += 1
    run_dir.rename(run_dir.with_name(f"{run_dir.name}.failed-{attempt}"))


def disk_is_full(directory):
    try:
        return os.statvfs(directory).f_bavail == 0
    except OSError:
        return False


def take_report(directory, report_path, name="report.json"):
    """The attempt's own report (or timeline) becomes `name` (a stale job's never does)."""
    if report_path.exists():
        try:
            os.replace(report_path, directory / name)
        except OSError as error:
            raise OutputError(f"cannot rename {report_path} to {name}: {error.strerror}") from error


def run_one(plan, output, index, side, harmonize_run, launcher_kind, timeout):
    directory = output / "runs" / run_id(index, side)
    directory.mkdir(parents=True)
    # A report name of this attempt's own: a job of an earlier attempt that
    # survived (a rank outside the launcher's process group, a harmonize-ab
    # killed with SIGKILL) writes to the name it was given, never to ours.
    attempt = uuid.uuid4().hex[:12]
    report_path = (directory / f"report-{attempt}.json").resolve()
    trace_path = (directory / f"timeline-{attempt}.json").resolve() if wants_timeline(plan, side, index) else None
    argv = side_command(plan, side, report_path, harmonize_run, launcher_kind, trace_path)
    write_text(directory / "command.txt", " ".join(shlex.quote(a) for a in argv) + "\n")
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    code, seconds, timed_out = execute(argv, directory, timeout,
                                       lambda process: record_job(directory, process, attempt))
    take_report(directory, report_path)
    if trace_path is not None:
        take_report(directory, trace_path, "timeline.json")
    mode = plan["modes"][side]
    errors, rows = check_run(directory, mode, code)
    if timed_out:
        errors.insert(0, f"timed out after {timeout} s and was killed")
    if disk_is_full(directory):
        errors.insert(0, f"the disk holding {directory} is full: the run's output may be cut short")
    status = {"id": run_id(index, side), "index": index, "side": side, "mode": mode,
              "attempt": attempt, "started": started, "seconds": round(seconds, 3), "exit_code": code,
              "rows": rows, "ok": not errors, "errors": errors,
              # Ran to its end and printed nothing we read: no other side or run will.
              "no_sizes": code == 0 and not timed_out and not rows and
              not any(error.startswith(LOST_NODE) for error in errors)}
    write_json(directory / "status.json", status)
    return status


class Progress:
    def __init__(self, total, quiet):
        self.total = total
        self.done = 0
        self.quiet = quiet

    def say(self, text):
        say("harmonize-ab", text, self.quiet)

    def started(self, index, side, mode):
        self.say(f"[{self.done + 1}/{self.total}] run {run_id(index, side)} ({mode}) ...")

    def finished(self, status):
        self.done += 1
        if status["ok"]:
            self.say(f"[{self.done}/{self.total}] run {status['id']} ok in {status['seconds']:.1f} s "
                     f"({status['rows']} rows)")
        else:
            first = status["errors"][0].splitlines()[0]
            self.say(f"[{self.done}/{self.total}] run {status['id']} FAILED in {status['seconds']:.1f} s: "
                     f"{first} (logs kept in runs/{status['id']}/)")

    def skipped(self, count):
        if count:
            self.say(f"{count} run(s) already complete in the output directory, not run again")


def preflight(plan, output, harmonize_run, launcher_kind, side):
    """harmonize-run --dry-run once: a missing library or launcher is one clear
    error before any run, not the same failure in every run. Returns its notes
    (e.g. which MPI's build it took), worth saying once rather than per run."""
    argv = side_command(plan, side, (output / "preflight.json").resolve(), harmonize_run, launcher_kind)
    argv.insert(1, "--dry-run")
    try:
        check = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    except OSError as error:
        raise PlanError(f"cannot run {harmonize_run}: {error}") from error
    if check.returncode != 0:
        raise PlanError(check.stderr.strip().removeprefix("harmonize-run: ").removeprefix("error: ") or
                        f"harmonize-run --dry-run exited with status {check.returncode}")
    return [line.removeprefix("harmonize-run: ") for line in check.stderr.splitlines()
            if line.startswith("harmonize-run: note:")]


def run_all(plan, output, harmonize_run, timeout, quiet=False, fail_fast=False, stop_stale=False,
            say_skipped=True):
    """Run every scheduled run that is not complete yet; returns the new statuses."""
    check_stale_jobs(output, stop_stale, Progress(0, quiet).say)
    todo = []
    skipped = 0
    for index, side in schedule(plan["runs"], plan["sides"]):
        directory = output / "runs" / run_id(index, side)
        if completed_ok(directory):
            skipped += 1
            continue
        if directory.exists():
            keep_failed_attempt(directory)
        todo.append((index, side))
    progress = Progress(len(todo), quiet)
    if say_skipped:
        progress.skipped(skipped)
    launcher, _ = split_launcher(plan["command"])
    launcher_kind = None
    if launcher is not None:
        found = shutil.which(launcher)
        if found is None:
            raise PlanError(f"launcher {launcher!r} not found")
        try:
            launcher_kind = detect_kind(found)
        except UnknownLauncher as error:
            raise PlanError(str(error)) from error
    if todo:
        for note in preflight(plan, output, harmonize_run, launcher_kind, todo[0][1]):
            progress.say(note)
    statuses = []
    for index, side in todo:
        progress.started(index, side, plan["modes"][side])
        status = run_one(plan, output, index, side, harmonize_run, launcher_kind, timeout)
        progress.finished(status)
        statuses.append(status)
        if status["no_sizes"]:
            progress.say(f"run {status['id']} ended with status 0 and printed no benchmark size: the "
                         "command is not a benchmark harmonize-ab reads; not running the rest")
            break
        if fail_fast and not status["ok"]:
            progress.say("stopping at the first failed run (--fail-fast)")
            break
        first_round = statuses[:len(plan["sides"])]
        if len(statuses) == len(plan["sides"]) == len(first_round) and not any(s["ok"] for s in first_round):
            progress.say("every side failed its first run; not running the rest " +
                         ("(the Slurm allocation has ended: continue with --resume in a new one)"
                          if allocation_gone(first_round) else
                          "(fix the command, then continue with --resume)"))
            break
    return statuses
