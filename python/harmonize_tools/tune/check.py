"""harmonize-tune --check FILE: does the MPI library run what an Open MPI
rules file says? Open MPI 4.1 falls back to its own choice, without a word
and with status 0, on a file it cannot read (truncated, text, a count that
does not match): the file is read here strictly first (rules.read_ompi_rules),
then every rule that has a witness is run.

The witness (signature/collective_signature.c, compiled with the launcher's
own mpicc) makes one call of the collective at a size inside the rule's
range on as many processes as the rule's communicator size, three times:
with the file, with the rule's algorithm forced (its fan-in/out and segment
size too; the file decides the other collectives that algorithm calls),
and with the library deciding alone. What a call does differs by
algorithm: which processes call a user-defined reduction and on how many
bytes, and (Open MPI's PML monitoring) which process sent how many bytes to
which. A rule is obeyed when the file's call does what the forced one does;
where the forced one does what the library does alone, the run cannot tell
them apart and says so. allreduce, reduce, bcast, allgather, alltoall,
gather and scatter have a witness; the other collectives' rules are listed
as not checked. A rule's size is in Open MPI's units (the bytes of all
processes for the gathers, alltoall and scatter: rules.ALL_PROCESSES_BYTES);
the witness is given the block of one process that falls inside it."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from .. import slurm_launch
from ..common import say, split_launcher
from . import algorithms
from .algorithms import label
from .benchmark import UsageError, benchmark_position, mpi_of
from .rules import process_bytes, read_ompi_rules, rule_bytes

WITNESSED = ("allreduce", "reduce", "bcast", "allgather", "alltoall", "gather", "scatter")
SOURCE = Path(__file__).resolve().parent / "signature" / "collective_signature.c"
DYNAMIC = {"OMPI_MCA_coll_tuned_use_dynamic_rules": "1"}
# Open MPI's PML monitoring: per process, the messages it sent inside collectives.
MONITORING = {"OMPI_MCA_pml_monitoring_enable": "2", "OMPI_MCA_pml_monitoring_enable_output": "3"}
LAUNCH_COUNT = re.compile(r"^(-n|-np|--n|--np|-c)$")


class CheckError(Exception):
    """The check cannot be made (no compiler, a run that fails): one line."""


def read_rules_file(path):
    """The rules of `path`, strictly (UsageError naming the file and what is wrong)."""
    try:
        text = Path(path).read_text(errors="replace")
    except OSError as error:
        raise UsageError(f"--check {path}: {error.strerror or error}") from error
    try:
        return read_ompi_rules(text)
    except ValueError as error:
        raise UsageError(f"--check {path}: not a rules file Open MPI reads: {error} "
                         "(Open MPI would ignore the whole file without a word)") from error


def cases(rules, offered):
    """[(collective, processes, bytes, (size, algorithm, fan-in/out, segment),
    why-not)] per rule: the bytes of one process to run it at, or why it is
    not checked. `offered` is {collective: [algorithm values]} of this Open
    MPI."""
    found = []
    for collective, sizes in rules.items():
        communicators = sorted(sizes)
        for index, communicator in enumerate(communicators):
            processes = max(communicator, 2)
            following = communicators[index + 1] if index + 1 < len(communicators) else None
            for position, rule in enumerate(sizes[communicator]):
                size, algorithm = rule[0], rule[1]
                after = sizes[communicator][position + 1][0] if position + 1 < len(sizes[communicator]) else None
                run_bytes = process_bytes(collective, processes, max(size, 1))
                why = None
                if algorithm not in offered.get(collective, [algorithm]):
                    why = (f"Open MPI's {collective} has no algorithm {algorithm} "
                           f"(it has {', '.join(offered[collective])})")
                elif collective not in WITNESSED:
                    why = "not checked: no witness for " + collective
                elif following is not None and processes >= following:
                    why = "not checked: no process count only this communicator rule covers"
                elif after is not None and rule_bytes(collective, processes, run_bytes) >= after:
                    why = "not checked: no message size only this rule covers"
                found.append((collective, processes, run_bytes, rule, why))
    return found


def launcher_head(command):
    """The launcher and its options of a command (a benchmark's, or the
    launcher alone), less its process count: the check gives its own."""
    position = benchmark_position(command)
    head, skip = [], False
    for word in command[:position] if position else command:
        if not skip and LAUNCH_COUNT.match(word):
            skip = True
        elif skip:
            skip = False
        else:
            head.append(word)
    return head


def compiler_for(launcher):
    """The mpicc of the launcher's MPI: beside it, else Open MPI's on PATH."""
    found = shutil.which(launcher) or launcher
    beside = Path(found).resolve().parent / "mpicc"
    for candidate in (str(beside), "mpicc.openmpi", "mpicc"):
        path = shutil.which(candidate)
        if path:
            return path
    raise CheckError(f"no mpicc beside {launcher} or on PATH to build the check's witness program")


def build_witness(launcher, directory):
    program = Path(directory) / "collective_signature"
    compiler = compiler_for(launcher)
    result = subprocess.run([compiler, "-O1", "-o", str(program), str(SOURCE)], capture_output=True,
                            text=True, timeout=300)
    if result.returncode != 0:
        raise CheckError(f"{compiler} cannot build the check's witness: {result.stderr.strip()[:300]}")
    return program


def launch_options(head, settings):
    """What Open MPI's launcher needs to start more processes than cores and
    hand `settings` to remote ones too; srun hands the environment on itself."""
    if Path(head[0]).name.startswith("srun"):
        # More witnesses than the allocation's tasks, on a site whose
        # default plugin may not start Open MPI's ranks.
        return ["--overcommit", *slurm_launch.plugin_arguments("openmpi", head[1:], os.environ, head[0])[0]]
    return ["--oversubscribe", *(option for name in settings for option in ("-x", name))]


def witness(head, program, processes, collective, size, env, directory, timeout=120):
    """What one call did: {"ops": per rank (op calls, lengths), "sent": the
    messages each process sent, sorted}."""
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    settings = {**MONITORING, "OMPI_MCA_pml_monitoring_filename": str(directory / "prof"), **env}
    argv = [*head, "-n", str(processes), *launch_options(head, settings), str(program), collective, str(size),
            str(directory)]
    try:
        result = subprocess.run(argv, env={**os.environ, **settings}, capture_output=True, text=True,
                                timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise CheckError(f"the witness run failed: {error}") from error
    if result.returncode != 0:
        said = [line.strip() for line in result.stderr.splitlines() if line.strip().strip("-")]
        raise CheckError(f"the witness run ({' '.join(argv[:3])} ...) exited with status {result.returncode}: "
                         f"{(said or ['no message'])[0][:200]}")
    ops = {}
    for rank in range(processes):
        try:
            ops[rank] = (directory / f"{rank}.json").read_text().strip()
        except OSError as error:
            raise CheckError(f"the witness wrote no result for rank {rank}") from error
    sent = []
    for profile in directory.glob("prof.*.prof"):
        for line in profile.read_text(errors="replace").splitlines():
            fields = line.split("\t")
            if fields[0] == "I" and len(fields) >= 5:
                sent.append(tuple(fields[1:5]))
    return {"ops": ops, "sent": sorted(sent)}


def forced_settings(collective, rule):
    _, algorithm, fanout, segment = rule
    if algorithm == "0":
        return dict(DYNAMIC)
    prefix = f"OMPI_MCA_coll_tuned_{collective}_algorithm"
    # A rule's fan-in/out is the one number Open MPI hands the algorithm;
    # forced, some collectives read it from the chain parameter (bcast,
    # reduce, scatter), others from the tree one (allgather, alltoall, gather).
    return {**DYNAMIC, prefix: algorithm, f"{prefix}_chain_fanout": str(fanout),
            f"{prefix}_tree_fanout": str(fanout), f"{prefix}_segmentsize": str(segment)}


def verdict(with_file, forced, alone):
    """What the three witnesses of one rule say."""
    if with_file != forced:
        return "NOT OBEYED" + (": the library's own choice ran" if with_file == alone else "")
    if forced == alone:
        return "obeyed (the rule's algorithm does here what the library's own choice does: not told apart)"
    return "obeyed"


def check(args, path, head):
    """Each rule of the rules file at `path` (read strictly) run with the
    launcher `head`: ([(collective, processes, bytes, rule, verdict)], the
    algorithms' names per collective, as this Open MPI lists them)."""
    rules = read_rules_file(path)
    listed = algorithms.list_algorithms("openmpi", list(rules), args.ompi_info, args.mpivars)
    offered = {collective: [value for value, _ in pairs] for collective, pairs in listed.items()}
    found = []
    say("harmonize-tune", f"check: {path}: each rule one call with the file, forced and alone ({head[0]})",
        args.quiet)
    with_file = {**DYNAMIC, "OMPI_MCA_coll_tuned_dynamic_rules_filename": str(Path(path).resolve())}
    with tempfile.TemporaryDirectory(prefix="harmonize-check-") as scratch:
        program = None
        for collective, processes, size, rule, why in cases(rules, offered):
            if why is None:
                if program is None:
                    program = build_witness(head[0], scratch)
                runs = {}
                # Forced with the file too: an algorithm made of other
                # collectives (allgather linear: a gather, then a bcast) runs
                # them as the file says in both calls. A forced algorithm goes
                # before the file's rules in Open MPI.
                for name, env in (("file", with_file), ("forced", {**with_file, **forced_settings(collective, rule)}),
                                  ("alone", {})):
                    runs[name] = witness(head, program, processes, collective, size, env, Path(scratch) / name)
                why = verdict(runs["file"], runs["forced"], runs["alone"])
            found.append((collective, processes, size, rule, why))
    return found, {collective: dict(pairs) for collective, pairs in listed.items()}


def check_text(found, names):
    lines = ["check: does Open MPI run what the file says (one call per rule: with the file, the rule's "
             "algorithm forced, the library alone)"]
    for collective, processes, size, rule, why in found:
        counted = rule_bytes(collective, processes, size)
        run = f"{size} B" if counted == size else f"{size} B a process, {counted} B in all"
        lines.append(f"  {collective} P={processes} rule from {rule[0]} B (run at {run}): "
                     f"{label(rule[1], names.get(collective, {}))}: {why}")
    return "\n".join(lines) + "\n"


def obeyed(found):
    """Whether no rule was found disobeyed or an unknown algorithm."""
    return not any(why.startswith(("NOT OBEYED", "Open MPI's")) for *_, why in found)


def run_check(args):
    """harmonize-tune --check FILE [-- LAUNCHER [OPTIONS]]: 0 every rule with
    a witness obeyed, 1 one is not (or names an algorithm the MPI has not),
    2 the file cannot be read as Open MPI reads it."""
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    command = command or (["srun"] if slurm_launch.allocation(os.environ) else ["mpiexec"])
    # srun serves either MPI; a rules file is Open MPI's.
    mpi = "openmpi" if Path(command[0]).name.startswith("srun") and not args.mpi else mpi_of(args, command)
    if mpi != "openmpi":
        raise UsageError("--check reads Open MPI's rules files (MPICH's JSON is read by MPICH itself, "
                         "which stops at MPI_Init on a file it cannot read)")
    try:
        found, names = check(args, args.check, launcher_head(command))
    except CheckError as error:
        print(f"harmonize-tune: error: --check {args.check}: {error}", file=sys.stderr)
        return 1
    sys.stdout.write(check_text(found, names))
    return 0 if obeyed(found) else 1


def check_written(args, path, command, output):
    """The written file read back strictly and run with the witness
    (check) on the tuning's own launcher; False when the MPI does not run
    what it says. Without a launcher (the program alone) it is not run."""
    command = slurm_launch.allocation_step(command, os.environ)
    head = launcher_head(command)
    if not split_launcher(command)[0]:
        say("harmonize-tune", f"no launcher in the command: check the file with harmonize-tune --check {path} "
            "-- LAUNCHER", args.quiet)
        return True
    try:
        found, names = check(args, path, head)
    except (CheckError, UsageError, algorithms.AlgorithmsUnknown) as error:
        say("harmonize-tune", f"the file could not be checked: {error}", args.quiet)
        return True
    text = check_text(found, names)
    (output / "check.txt").write_text(text)
    sys.stdout.write(text)
    if not obeyed(found):
        print(f"harmonize-tune: the MPI does not run {path} as written (check.txt)", file=sys.stderr)
        return False
    return True
