"""Why a run failed, in one line: the crashed rank's signal, else the
program's or the library's error, else the launcher's notice; and how its
exit status reads ('status 139 (128 + 11: SIGSEGV, Segmentation fault)')."""
import re
import signal
from pathlib import Path

from .files import DamagedFile, read_json
from .parsing import ParseError, parse_output


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


# slurmstepd's line when Slurm ends a step or a job: "*** STEP 12.3 ON node4
# CANCELLED AT 2026-11-29T06:02:51 DUE TO TIME LIMIT ***" (no DUE TO: scancel).
SLURM_CANCELLED = re.compile(r"\*\*\* (STEP|JOB) (\S+) ON (\S+) CANCELLED AT \S+(?: DUE TO ([A-Z ]+?))? \*\*\*")
SLURM_CAUSES = {"TIME LIMIT": "at its time limit", "NODE FAILURE": "because a node failed",
                "PREEMPTION": "preempted"}


# srun when the node of a step goes down: it says so and exits with status 0.
SLURM_NODE_LOST = re.compile(r"^srun: error: Node failure on (\S+)")
LOST_NODE = "Slurm lost node"


# srun in an allocation that has ended (its node failed, it was cancelled).
ALLOCATION_GONE = re.compile(r"srun: error: (Slurm job \S+ has expired|Unable to confirm allocation for job \S+)")


def allocation_gone(statuses):
    """Whether these runs failed because their Slurm allocation is gone."""
    return any(ALLOCATION_GONE.search(error) or error.startswith(LOST_NODE)
               for status in statuses for error in status.get("errors", []))


def lost_node(stderr):
    """'Slurm lost node vm during the run (srun: error: Node failure on vm)', or None."""
    for line in (raw.strip() for raw in stderr.splitlines()):
        found = SLURM_NODE_LOST.search(line)
        if found:
            return f"{LOST_NODE} {found.group(1)} during the run ({line})"
    return None


def slurm_reason(lines):
    """'Slurm cancelled step 12.3 (node4) at its time limit', or None."""
    for line in lines:
        found = SLURM_CANCELLED.search(line)
        if found:
            what, ident, node, cause = found.groups()
            why = SLURM_CAUSES.get(cause, f"due to {cause.lower()}") if cause else \
                "(scancel, or an administrator)"
            return f"Slurm cancelled {what.lower()} {ident} ({node}) {why}"
    return None


def failure_reason(stderr, stdout_end=""):
    """The line of a failed run's output that says why: a crashed rank's
    signal, else the program's (or the library's error), else a launcher's
    notice, else whatever there is. `stdout_end` is the end of its stdout,
    where MPICH's launcher prints its banner (the rest is the benchmark's)."""
    program, launcher, asides = classify_lines(stderr)
    out_program, out_launcher, _ = classify_lines(stdout_end)
    notices = launcher + out_launcher
    # Slurm ended the step: the ranks' signals that follow are its doing.
    cancelled = slurm_reason(program + notices + asides)
    if cancelled:
        return cancelled
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
    stderr_head = head(run_dir / "stderr.txt", lines=200)
    lost = lost_node(stderr_head)
    if lost:
        errors.append(f"{lost}; srun exited with {describe_exit(exit_code or 0)}")
    if exit_code is not None and exit_code != 0:
        last = tail(run_dir / "stderr.txt", lines=12)
        # The first line is what the progress line and the table show.
        reason = failure_reason(stderr_head, tail(run_dir / "stdout.txt", lines=40))
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
