"""The benchmark command that measures one collective (an OSU directory's
osu_<collective>, IMB-MPI1 told the collective, or the program itself), the
--sizes it is given, and the MPI library the launcher belongs to."""
import os
from pathlib import Path

from ..common import UnknownLauncher, detect_kind, library_mpi, split_launcher


IMB_NAMES = {"allgather": "Allgather", "allreduce": "Allreduce", "alltoall": "Alltoall",
             "barrier": "Barrier", "bcast": "Bcast", "gather": "Gather", "reduce": "Reduce",
             "reduce_scatter": "Reduce_scatter", "scatter": "Scatter"}


class UsageError(Exception):
    pass


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
    """The MPI library: --mpi, else the launcher's, else (srun, a command
    without a launcher) the one the benchmark program needs."""
    if args.mpi:
        return args.mpi
    launcher, _ = split_launcher(command)
    try:
        kind = detect_kind(launcher) if launcher else None
    except UnknownLauncher:
        kind = None
    if kind in ("openmpi", "mpich"):
        return kind
    program_mpi = benchmark_mpi(command)
    if program_mpi is None:
        raise UsageError("cannot tell the MPI library from the launcher or the benchmark: "
                         "give --mpi openmpi|mpich")
    return program_mpi


def benchmark_mpi(command):
    """'openmpi' | 'mpich' that the benchmark (or an OSU directory's first
    osu_* program) is linked against, or None."""
    launcher, _ = split_launcher(command)
    position = benchmark_position(command) if launcher else 0
    if position is None:
        return None
    program = Path(command[position])
    if program.is_dir():
        program = next((p for p in sorted(program.rglob("osu_*"))
                        if p.is_file() and os.access(p, os.X_OK)), None)
    return library_mpi(program)[0] if program is not None and program.is_file() else None
