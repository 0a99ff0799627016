"""The benchmark job of a run: started in a session of its own, stopped with
all its ranks (on a timeout or an interrupt), recorded in job.json so that a
later --resume finds one an earlier harmonize-ab left running (/proc, Linux)."""
import os
import signal
import socket
import subprocess
import time
from datetime import datetime, timezone
from pathlib import Path

from .files import DamagedFile, read_json, write_json
from .plan import PlanError


def proc_stat(pid):
    """(state, process group, session, start time in clock ticks after boot)
    of a process, from /proc (Linux); None when it is gone or unreadable."""
    try:
        # After "pid (command)": state, ppid, process group, session, ... field 22 start time.
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return fields[0], int(fields[2]), int(fields[3]), int(fields[19])
    except (OSError, IndexError, ValueError):
        return None


def parent_of(pid):
    """The parent pid of a process (None when it is gone)."""
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def session_members(session, started_since=0):
    """Live processes of a session, from /proc (Linux; [] elsewhere), and
    their descendants in sessions of their own (MPICH's hydra starts each
    rank with setsid); with `started_since`, only those started at or after
    that tick."""
    live = {}
    for entry in Path("/proc").glob("[0-9]*"):
        stat = proc_stat(entry.name)
        if stat and stat[0] not in ("Z", "X") and stat[3] >= started_since:
            live[int(entry.name)] = stat[2]
    members = {pid for pid, sid in live.items() if sid == session}
    parents = {pid: parent_of(pid) for pid in live if pid not in members}
    grew = True
    while grew:
        found = {pid for pid, parent in parents.items() if parent in members and pid not in members}
        members |= found
        grew = bool(found)
    return sorted(members)


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
                f"beside it would be disturbed. Add --stop-stale to let harmonize-ab stop it, or stop it "
                f"yourself: `kill -- -{job['pgid']}`, then `kill -9 {' '.join(map(str, processes))}` for "
                "any left (its ranks may run in groups and sessions of their own)")
        elif processes:
            stop_stale_job(job)
            say(f"stopped the job of {name} ({where}, {len(processes)} process(es)) left running by "
                "an earlier harmonize-ab (--stop-stale)")
