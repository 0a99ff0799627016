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
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path

from ..common import UnknownLauncher, detect_kind, split_launcher
from .parsing import ParseError, parse_output

SIDE_MODES = {"A": "observe", "B": "harmonize", "C": "off"}
PLAN_KEYS_THAT_MUST_MATCH = ("command", "modes", "configs", "settings", "launcher_args", "library")


class PlanError(Exception):
    """The output directory cannot be used as asked."""


class OutputError(Exception):
    """A file of the output directory cannot be written (full disk, permissions)."""


class DamagedFile(ValueError):
    """A file harmonize-ab wrote earlier is missing or unreadable; the message names it."""


def write_text(path, text):
    # A failed write.write() names no file: add it, so the user knows which one.
    try:
        Path(path).write_text(text)
    except OSError as error:
        raise OutputError(f"cannot write {path}: {error.strerror or error}") from error


def write_json(path, data):
    """Write JSON atomically: a reader never sees half a file, and a failed
    write (full disk) leaves neither a half file nor the temporary one."""
    temporary = path.with_name(path.name + ".tmp")
    try:
        write_text(temporary, json.dumps(data, indent=2, sort_keys=False) + "\n")
        os.replace(temporary, path)
    except BaseException as error:
        # A signal's exception too (harmonize-ab stops on SIGTERM): never
        # leave the temporary file behind, whatever interrupted the write.
        try:
            temporary.unlink()
        except OSError:
            pass
        if not isinstance(error, (OutputError, OSError)):
            raise
        cause = error.__cause__ if isinstance(error, OutputError) else error
        raise OutputError(f"cannot write {path}: {getattr(cause, 'strerror', None) or cause}") from error


def read_text(path):
    try:
        return Path(path).read_text(errors="replace")
    except OSError as error:
        raise DamagedFile(f"cannot read {path}: {error.strerror or error}") from error


def read_json(path, required=()):
    """A JSON object from one of our files; DamagedFile naming the file otherwise."""
    text = read_text(path)
    try:
        data = json.loads(text)
    except ValueError as error:
        raise DamagedFile(f"{path} is not valid JSON ({error})") from error
    if not isinstance(data, dict):
        raise DamagedFile(f"{path} is damaged: not a JSON object")
    missing = [key for key in required if key not in data]
    if missing:
        raise DamagedFile(f"{path} is damaged: {', '.join(missing)} missing")
    return data


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


def side_definition(plan, side):
    """What runs a side: its mode, preset and own settings (besides --set's)."""
    return {"mode": plan["modes"].get(side), "config": (plan.get("configs") or {}).get(side),
            "settings": list((plan.get("settings") or {}).get(side, []))}


def describe_side(plan, side):
    """'late = harmonize HARMONIZE_ARRIVAL=rank:0:5us' for messages."""
    definition = side_definition(plan, side)
    extra = definition["settings"] + ([f"preset {definition['config']}"] if definition["config"] else [])
    return f"{side} = {definition['mode']}" + (" " + " ".join(extra) if extra else "")


def check_same_sides(existing, plan, plan_path):
    """Named sides must be the same on --resume (the same names, modes and
    settings). Runs of the predefined A, B, C only may add one of them, as
    before named sides existed."""
    if set(existing["sides"]) | set(plan["sides"]) <= set(SIDE_MODES):
        return
    if set(existing["sides"]) != set(plan["sides"]) or any(
            side_definition(existing, side) != side_definition(plan, side) for side in plan["sides"]):
        raise PlanError(f"--resume: the sides differ from those in {plan_path}, which has "
                        f"{'; '.join(describe_side(existing, s) for s in existing['sides'])}; this command "
                        f"has {'; '.join(describe_side(plan, s) for s in plan['sides'])}. Give the same "
                        "--side/--sweep options, or use another --output")


def prepare_directory(output, plan, resume, aggregate_only):
    """Create or check the output directory; returns the plan in force."""
    plan_path = output / "plan.json"
    runs_dir = output / "runs"
    nothing_run_yet = not runs_dir.is_dir() or not any(runs_dir.iterdir())
    if plan_path.exists() and not (nothing_run_yet and not aggregate_only):
        try:
            existing = read_json(plan_path, required=("command", "runs", "sides", "modes"))
        except DamagedFile as error:
            raise PlanError(f"{error}; it records how the runs were made: restore it, "
                            "or start again with another --output") from error
        if aggregate_only:
            return existing
        if not resume:
            raise PlanError(f"{output} already holds runs (plan.json); use --resume to continue them, "
                            "--aggregate to recompute the results from them, or another --output")
        check_same_sides(existing, plan, plan_path)
        differences = [key for key in PLAN_KEYS_THAT_MUST_MATCH if existing.get(key) != plan.get(key)]
        if differences:
            raise PlanError(f"--resume: this command differs from the one in {plan_path} in "
                            f"{', '.join(differences)}; use another --output")
        merged = dict(existing)
        merged["runs"] = max(existing.get("runs", 0), plan["runs"])
        merged["sides"] = list(dict.fromkeys(existing["sides"] + plan["sides"]))
        write_json(plan_path, merged)
        return merged
    if aggregate_only:
        raise PlanError(f"--aggregate: {plan_path} not found; nothing to aggregate")
    (output / "runs").mkdir(parents=True, exist_ok=True)
    write_json(plan_path, plan)
    return plan


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


def keep_failed_attempt(run_dir):
    """Move an earlier failed or interrupted attempt aside (its logs stay)."""
    attempt = 1
    while run_dir.with_name(f"{run_dir.name}.failed-{attempt}").exists():
        attempt += 1
    run_dir.rename(run_dir.with_name(f"{run_dir.name}.failed-{attempt}"))


def tail(path, lines=5):
    try:
        text = Path(path).read_text(errors="replace")
    except OSError:
        return ""
    return "\n".join(text.strip().splitlines()[-lines:])


def head(path, lines=20):
    try:
        with open(path, errors="replace") as stream:
            return "".join(stream.readline() for _ in range(lines))
    except OSError:
        return ""


BOX_EDGE = re.compile(r"^([-=*])\1{9,}$")  # Open MPI's ---- boxes, MPICH's ==== banners
# A crashed rank: "exited on signal 11 (Segmentation fault)" (Open MPI), "KILLED
# BY SIGNAL: 11" and "(signal 11)" (MPICH), "Caught signal 11" (UCX), "Signal:
# Segmentation fault (11)" (Open MPI's backtrace), or a signal's name.
SIGNAL_WORDS = re.compile(r"\bsignal:?\s*\d+|\bSignal: "
                          r"|\bSIG(SEGV|BUS|ABRT|FPE|ILL|KILL|TERM|INT|HUP|PIPE|QUIT|TRAP|SYS)\b", re.IGNORECASE)
RANK_WORDS = re.compile(r"\brank\s+\d+", re.IGNORECASE)
# A crash handler's backtrace (Open MPI's "[host:pid] [ 3] ./prog(+0x11c3)",
# UCX's " 3  ./prog(+0x11be) [0x55...]"): says where, never why.
BACKTRACE = re.compile(r"^\[[^\]]+\]\s*(\*\*\*|\[\s*\d+\]|Signal code:|Failing at address:)"
                       r"|^\d+\s+\S.*\[0x[0-9a-f]+\]$|^=+ backtrace\b")


def is_library_aside(line):
    """The library's summary and warnings, harmonize-run's notes: printed by
    runs that fail for other reasons (rank 0 finalizes, then another rank
    fails), so never the reason itself. The library's errors are."""
    return line.startswith("harmonize-run: note:") or (
        line.startswith("harmonize:") and not line.startswith("harmonize: error:"))


def classify_lines(text):
    """(program's lines, launcher notices, asides) of a run's output."""
    program, launcher, asides = [], [], []
    in_box = False
    for line in (raw.strip() for raw in text.splitlines()):
        if BOX_EDGE.match(line):
            in_box = not in_box
        elif not line.strip("-*= "):
            continue
        elif is_library_aside(line) or BACKTRACE.search(line):
            asides.append(line)
        elif in_box or line.startswith("="):
            launcher.append(line.lstrip("= "))
        else:
            program.append(line)
    return program, launcher, asides


def informative(line):
    """How much a line says about a crash: its signal counts most, then the rank."""
    return 2 * bool(SIGNAL_WORDS.search(line)) + bool(RANK_WORDS.search(line))


def crash_reason(lines, notices):
    """The line that best names a crash (signal, then rank; the first of
    equals), joined with a notice naming the rank when it does not (MPICH
    says RANK and KILLED BY SIGNAL on lines of their own); None without one."""
    crashes = [line for line in lines if SIGNAL_WORDS.search(line)]
    if not crashes:
        return None
    best = max(crashes, key=informative)  # max keeps the first of equals
    rank = next((line for line in notices if RANK_WORDS.search(line)), None)
    return best if RANK_WORDS.search(best) or rank is None else f"{rank}: {best}"


def failure_reason(stderr, stdout_end=""):
    """The line of a failed run's output that says why: a crashed rank's
    signal, else the program's (or the library's error), else a launcher's
    notice, else whatever there is. `stdout_end` is the end of its stdout,
    where MPICH's launcher prints its banner (the rest is the benchmark's)."""
    program, launcher, asides = classify_lines(stderr)
    out_program, out_launcher, _ = classify_lines(stdout_end)
    notices = launcher + out_launcher
    # Open MPI's first box ("Primary job terminated normally, but 1 process
    # returned") says nothing; the one naming the rank and signal follows.
    crash = crash_reason(program + notices + out_program, notices)
    if crash:
        return crash
    if program or notices:
        return (program or sorted(notices, key=informative, reverse=True))[0]
    return asides[0] if asides else ""


def signal_text(number):
    """'SIGSEGV, Segmentation fault' for 11; None for no such signal."""
    try:
        return f"{signal.Signals(number).name}, {signal.strsignal(number)}"
    except ValueError:
        return None


def describe_exit(code):
    """'status 139 (128 + 11: SIGSEGV, Segmentation fault)': a shell, mpiexec
    and srun exit with 128 + N for a process killed by signal N; Popen's -N
    means the command itself was killed."""
    if code < 0:
        return f"killed by signal {-code}" + (f" ({signal_text(-code)})" if signal_text(-code) else "")
    named = signal_text(code - 128) if 128 < code < 128 + 65 else None
    return f"status {code}" + (f" (128 + {code - 128}: {named})" if named else "")


def check_run(run_dir, mode, exit_code):
    """Errors of a finished run (empty when it is usable) and its row count."""
    errors = []
    rows = 0
    if exit_code is not None and exit_code != 0:
        last = tail(run_dir / "stderr.txt", lines=12)
        # The first line is what the progress line and the table show.
        reason = failure_reason(head(run_dir / "stderr.txt", lines=200), tail(run_dir / "stdout.txt", lines=40))
        summary = f": {reason}" if reason else ""
        how = "was " if exit_code < 0 else "exited with "
        errors.append(f"command {how}{describe_exit(exit_code)}{summary} (see stderr.txt)"
                      + (f"\nstderr ends:\n{last}" if last else ""))
    try:
        rows = len(parse_output((run_dir / "stdout.txt").read_text(errors="replace")).rows)
    except ParseError as error:
        errors.append(f"benchmark output: {error}")
    report = run_dir / "report.json"
    if mode != "off":
        if not report.exists():
            errors.append(f"no library report at {report} (was libharmonize preloaded and "
                          "did the program reach MPI_Finalize? see stderr.txt)")
        else:
            try:
                read_json(report)
            except DamagedFile as error:
                errors.append(f"library report: {error}")
    return errors, rows


def proc_stat(pid):
    """(state, process group, session, start time in clock ticks after boot)
    of a process, from /proc (Linux); None when it is gone or unreadable."""
    try:
        # After "pid (command)": state, ppid, process group, session, ... field 22 start time.
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return fields[0], int(fields[2]), int(fields[3]), int(fields[19])
    except (OSError, IndexError, ValueError):
        return None


def session_members(session, started_since=0):
    """Live processes of a session, from /proc (Linux; [] elsewhere); with
    `started_since`, only those started at or after that tick."""
    members = []
    for entry in Path("/proc").glob("[0-9]*"):
        stat = proc_stat(entry.name)
        if stat and stat[2] == session and stat[0] not in ("Z", "X") and stat[3] >= started_since:
            members.append(int(entry.name))
    return members


def signal_job(process, signum):
    """The launcher's process group, and with SIGKILL every process left in the
    job's session: Open MPI puts each rank in a process group of its own."""
    # Once the launcher is reaped its group id may be reused by another job:
    # then only the ranks left in the session are ours.
    group = [-process.pid] if process.returncode is None else []
    targets = group + (session_members(process.pid) if signum == signal.SIGKILL else [])
    for target in targets:
        try:
            os.kill(target, signum)
        except OSError:
            pass


def stop_job(process, grace=10):
    """Stop a job started in a session of its own (see execute): SIGTERM lets
    the launcher take its ranks down; after `grace` seconds (or at once on a
    second Ctrl-C) SIGKILL for whatever is left. No rank outlives the run."""
    signal_job(process, signal.SIGTERM)
    try:
        process.wait(timeout=grace)
    except (subprocess.TimeoutExpired, KeyboardInterrupt):
        pass
    signal_job(process, signal.SIGKILL)
    while process.poll() is None:
        try:
            process.wait()
        except KeyboardInterrupt:
            continue  # keep reaping: the job is being killed already


def execute(argv, run_dir, timeout, on_start=None):
    """Run argv with output into the run directory; (exit code or None, seconds, timed out).
    `on_start(process)` is called once the job runs."""
    started = time.monotonic()
    with open(run_dir / "stdout.txt", "wb") as out, open(run_dir / "stderr.txt", "wb") as err:
        try:
            # Its own session: a Ctrl-C meant for harmonize-ab does not hit the
            # ranks mid-run; harmonize-ab stops the job itself (stop_job).
            process = subprocess.Popen(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                                       start_new_session=True)
        except OSError as error:
            err.write(f"harmonize-ab: cannot start {argv[0]}: {error}\n".encode())
            return 127, time.monotonic() - started, False
        finished = False
        try:
            if on_start:
                on_start(process)
            code = process.wait(timeout=timeout)
            finished = True
            return code, time.monotonic() - started, False
        except subprocess.TimeoutExpired:
            stop_job(process)
            finished = True
            return None, time.monotonic() - started, True
        finally:
            if not finished:
                # Interrupted (Ctrl-C, SIGTERM, SIGHUP) or failing: the job must
                # not run on beside a later --resume.
                stop_job(process)


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


def boot_id():
    """This boot's id: process start times count from it (None off Linux)."""
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return None


def record_job(directory, process, attempt):
    """job.json: where the job runs, so that a later --resume can tell whether
    it outlived its harmonize-ab (killed with SIGKILL: nobody stopped it)."""
    stat = proc_stat(process.pid)
    write_json(directory / "job.json", {
        "attempt": attempt, "pid": process.pid, "pgid": stat[1] if stat else process.pid,
        "sid": stat[2] if stat else process.pid, "start_ticks": stat[3] if stat else 0,
        "host": socket.gethostname(), "boot_id": boot_id(),
        "started": datetime.now(timezone.utc).isoformat(timespec="seconds")})


def job_processes(job):
    """Live processes of a recorded job on this host: its session's members
    started no earlier than it (a session id is not reused while a member
    lives). None when the job ran on another host (nothing to look at)."""
    if job.get("host") != socket.gethostname():
        return None
    if job.get("boot_id") and job["boot_id"] != boot_id():
        return []  # the machine rebooted since
    leader = proc_stat(job["pid"])
    if leader and leader[3] != job.get("start_ticks"):
        return []  # its pid belongs to another process now: the job is gone
    return session_members(job["sid"], job.get("start_ticks") or 0)


def unfinished_jobs(output):
    """[(run directory, job record)] of attempts whose job started and whose
    run never ended (job.json without status.json): their harmonize-ab died."""
    runs_dir = output / "runs"
    found = []
    for directory in sorted(runs_dir.iterdir()) if runs_dir.is_dir() else []:
        if (directory / "job.json").exists() and not (directory / "status.json").exists():
            try:
                found.append((directory, read_json(directory / "job.json", required=("pid", "sid"))))
            except DamagedFile:
                continue  # a job.json cut short by SIGKILL: nothing known to check
    return found


def stop_stale_job(job, grace=10):
    """SIGTERM to the job's process group (the launcher takes its ranks down),
    SIGKILL after `grace` seconds to whatever is left of its session (Open
    MPI's ranks have groups of their own). Not our child: poll, do not wait."""
    try:
        os.kill(-job["pgid"], signal.SIGTERM)
    except OSError:
        pass
    deadline = time.monotonic() + grace
    while job_processes(job) and time.monotonic() < deadline:
        time.sleep(0.1)
    for pid in job_processes(job) or []:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    while job_processes(job):
        time.sleep(0.05)


def check_stale_jobs(output, stop, say):
    """Refuse to run beside a job an earlier harmonize-ab left running (or,
    with `stop`, stop it): both would measure each other's noise, and it
    may still write a report into the rerun's directory."""
    for directory, job in unfinished_jobs(output):
        name = f"run {directory.name}"
        processes = job_processes(job)
        where = f"process group {job['pgid']} (pid {job['pid']}, host {job.get('host')})"
        if processes is None:
            say(f"note: the job of {name} ran on host {job.get('host')}; whether it still runs cannot "
                f"be checked from {socket.gethostname()}: make sure {where} is gone")
        elif processes and not stop:
            raise PlanError(
                f"--resume: the job of {name} is still running: {where}, {len(processes)} process(es), "
                f"left by a harmonize-ab that was killed (e.g. kill -9) before it could stop it; new runs "
                f"beside it would be disturbed. Stop it with `kill -- -{job['pgid']}` (ranks in groups "
                f"of their own: `pkill -s {job['sid']}`), or add --stop-stale to let harmonize-ab stop it")
        elif processes:
            stop_stale_job(job)
            say(f"stopped the job of {name} ({where}, {len(processes)} process(es)) left running by "
                "an earlier harmonize-ab (--stop-stale)")


# Files a run directory holds; any other was left by a job of an earlier
# attempt (its report name), i.e. one that ran beside this run.
RUN_FILES = ("command.txt", "stdout.txt", "stderr.txt", "report.json", "status.json", "job.json", "timeline.json")


def stray_files(directory, attempt):
    own = (f"report-{attempt}.json", f"timeline-{attempt}.json")
    try:
        return sorted(path.name for path in directory.iterdir() if path.name not in RUN_FILES + own)
    except OSError:
        return []


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
              "rows": rows, "ok": not errors, "errors": errors}
    write_json(directory / "status.json", status)
    return status


class Progress:
    def __init__(self, total, quiet):
        self.total = total
        self.done = 0
        self.quiet = quiet

    def say(self, text):
        if not self.quiet:
            print(f"harmonize-ab: {text}", file=sys.stderr, flush=True)

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
        if fail_fast and not status["ok"]:
            progress.say("stopping at the first failed run (--fail-fast)")
            break
        first_round = statuses[:len(plan["sides"])]
        if len(statuses) == len(plan["sides"]) == len(first_round) and not any(s["ok"] for s in first_round):
            progress.say("every side failed its first run; not running the rest "
                         "(fix the command, then continue with --resume)")
            break
    return statuses


def load_run(directory):
    """(status, rows, report) of one run directory; rows and report only for a
    run that counts (ok, not an attempt set aside). DamagedFile names the file."""
    superseded = ".failed-" in directory.name  # moved aside by --resume: listed, never counted
    if not (directory / "status.json").exists():
        return {"id": directory.name, "ok": False, "superseded": superseded,
                "errors": ["interrupted: no status.json (run again with --resume)"]}, None, None
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
    for position, word in enumerate(rest):
        name, eq, inline = word.partition("=")
        if name in ("-n", "-np", "--np", "--n", "--ntasks"):
            value = inline if eq else (rest[position + 1] if position + 1 < len(rest) else "")
            if value.isdigit():
                return int(value)
        if not word.startswith("-") and position > 0 and not rest[position - 1].startswith("-"):
            break  # the program started: its own flags are not the launcher's
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
