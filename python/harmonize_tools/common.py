"""What several tools need, written once: which MPI a launcher or a library
belongs to, durations, and the delay delta an arrival pattern imposes.

Launchers and MPIs
    split_launcher(command)        (launcher, rest) of a command line
    kind_from_version_text(text)   'openmpi' | 'mpich' | 'srun' | None
    detect_kind(launcher)          the same, from `<launcher> --version`
    library_mpi(path)              ('openmpi' | 'mpich', needed libmpi) of a shared object
Settings of a run
    setting_variable(key)          'slack' -> 'HARMONIZE_SLACK'; MPI library settings
                                   (OMPI_MCA_*, MPIR_CVAR_*) kept as they are
    setting_mpi(variable)          'openmpi' | 'mpich' | None: whose setting it is
Durations
    parse_duration(text, ...)      '2.5us' -> 2.5e-06 seconds
Messages and names
    say(tool, text, quiet)         'tool: text' on stderr, unless quiet
    slug(text, empty)              text made a file name ('rank:0:5us' -> 'rank_0_5us')
Arrival patterns (HARMONIZE_ARRIVAL)
    pattern_delta(pattern)         the delay delta it imposes, in seconds
    communicator_delta(...)        the same on a communicator of a given size

The library computes delta itself (arrival_delta in
src/harmonize/arrival/arrival_delays.cpp) and states it in its report for
MPI_COMM_WORLD; the tools need it before any run (to name and check sides)
and for the other communicators, and the test stand-in
(tests/fixtures/sweep/fake-mpiexec) to write a report as the library would.

`python3 -m harmonize_tools.common launcher-kind LAUNCHER` prints the kind of
a launcher (openmpi, mpich, srun; 'unknown' and status 1 when it cannot be
told), for scripts/demo and the test set-up (tests/mpi_launch.cmake).
"""
import os
import re
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

from . import elf

# ------------------------------------------------------------------ launchers and MPIs

# A command starting with one of these runs under a launcher (mpiexec.hydra,
# mpirun.openmpi, srun ...); anything else is a program on its own (a singleton).
LAUNCHER_NAME = re.compile(r"^(mpirun|mpiexec|orterun|prterun|srun)([.\-_].*)?$")
MPI_NAMES = {"openmpi": "Open MPI", "mpich": "MPICH"}
# The libmpi a library needs tells its MPI: Open MPI 2-5 ship libmpi.so.20/40
# (with libopen-pal/-rte), MPICH libmpich.so.12 (Debian) or libmpi.so.12
# (upstream, Intel MPI: Hydra-launched like MPICH).
MPI_OF_NEEDED = ((re.compile(r"^libmpich"), "mpich"),
                 (re.compile(r"^libmpi\.so\.12$"), "mpich"),
                 (re.compile(r"^libmpi\.so\.(20|40)$|^libopen-(pal|rte)\."), "openmpi"))


class UnknownLauncher(ValueError):
    """A launcher whose MPI cannot be told; the message says what it printed."""


LIBRARY_PREFIX = "HARMONIZE_"
# The MPI libraries' own settings a run may carry besides the library's
# (harmonize-ab's sides, harmonize-run --set): Open MPI's MCA parameters,
# whose names after the prefix are lower case and kept as given, and MPICH's
# control variables, upper case.
MPI_SETTING_PREFIXES = {"OMPI_MCA_": "openmpi", "MPIR_CVAR_": "mpich"}


def setting_variable(key):
    """The environment variable a setting's KEY names: `slack` and
    `HARMONIZE_SLACK` (any case) -> 'HARMONIZE_SLACK';
    `OMPI_MCA_coll_tuned_use_dynamic_rules` as it is (the prefix in any
    case); `mpir_cvar_allreduce_intra_algorithm` -> upper case."""
    upper = key.upper()
    if upper.startswith("OMPI_MCA_"):
        return "OMPI_MCA_" + key[len("OMPI_MCA_"):]
    if upper.startswith("MPIR_CVAR_"):
        return upper
    return upper if upper.startswith(LIBRARY_PREFIX) else LIBRARY_PREFIX + upper


def setting_mpi(variable):
    """'openmpi' or 'mpich' for an MPI library's setting, None for the library's own."""
    return next((mpi for prefix, mpi in MPI_SETTING_PREFIXES.items() if variable.startswith(prefix)), None)


def split_launcher(command):
    """(launcher, rest) when the command starts with an MPI launcher, else (None, command)."""
    if command and LAUNCHER_NAME.match(Path(command[0]).name):
        return command[0], command[1:]
    return None, command


def launcher_options_end(args):
    """Where a launcher's options end in `args` (options, then the program): a word
    not starting with '-' is an option's value when it follows an option
    without '=' (`-n 2`), else the program."""
    for position, word in enumerate(args):
        if word.startswith("-"):
            continue
        previous = args[position - 1] if position else ""
        if not (previous.startswith("-") and "=" not in previous):
            return position
    return len(args)


def kind_from_version_text(text):
    """Launcher kind from its `--version` output, or None."""
    if re.search(r"Open MPI|OpenRTE|Open RTE|PRRTE", text):
        return "openmpi"
    if re.search(r"HYDRA|Hydra", text):
        return "mpich"
    if re.search(r"^slurm\b", text, re.MULTILINE | re.IGNORECASE):
        return "srun"
    return None


def detect_kind(launcher):
    """'openmpi' | 'mpich' | 'srun' of a launcher (a path or a name on PATH):
    a name starting with srun is Slurm's, any other is asked `--version`.
    UnknownLauncher when the answer names no MPI."""
    if Path(launcher).name.startswith("srun"):
        return "srun"
    try:
        probe = subprocess.run([launcher, "--version"], capture_output=True, text=True,
                               timeout=30, stdin=subprocess.DEVNULL)
        text = probe.stdout + probe.stderr
    except (OSError, subprocess.TimeoutExpired) as error:
        text = str(error)
    kind = kind_from_version_text(text)
    if kind is None:
        first = text.strip().splitlines()[0] if text.strip() else "(no output)"
        raise UnknownLauncher(f"cannot tell which MPI {launcher} belongs to (`--version` said: {first}); "
                              "pass --launcher-kind openmpi|mpich|srun")
    return kind


def library_mpi(library):
    """('openmpi'|'mpich', the libmpi it needs), or (None, None) when it cannot be told."""
    for name in elf.guarded(library, elf.Image.needed, []):
        for pattern, mpi in MPI_OF_NEEDED:
            if pattern.search(name):
                return mpi, name
    return None, None


# ------------------------------------------------------------------ durations

NUMBER = r"[0-9]+(?:\.[0-9]*)?|\.[0-9]+"
# The library's units (HARMONIZE_SLACK, HARMONIZE_ARRIVAL's delays), as powers of ten.
SI_UNITS = {"ns": "1e-9", "us": "1e-6", "ms": "1e-3", "s": "1"}
# Wall-clock budgets (harmonize-ab --max-time).
CLOCK_UNITS = {"s": "1", "m": "60", "h": "3600"}


def parse_duration(text, units=None, bare=None, exponent=False):
    """A duration in seconds: '2.5us' -> 2.5e-06 with the library's units
    (ns, us, ms, s), or those of `units` (name -> seconds, as a decimal
    string). The float is the decimal's own (so '5us' is exactly 5e-06, as
    the library reports it). A number without a unit is in `bare` (a unit's
    name); with bare None only 0 may go without one. `exponent` allows a
    number such as 1e-6. ValueError otherwise (the caller names its option)."""
    units = SI_UNITS if units is None else units
    number = f"(?:{NUMBER})(?:[eE][+-]?[0-9]+)?" if exponent else f"(?:{NUMBER})"
    alternatives = "|".join(sorted(units, key=len, reverse=True))
    names = list(units)
    wrong = f"{text!r} is not a duration (a number with {', '.join(names[:-1])} or {names[-1]})"
    match = re.fullmatch(f"({number})({alternatives})?", text.strip())
    if match is None:
        raise ValueError(wrong)
    value, unit = Decimal(match.group(1)), match.group(2)
    if unit is None:
        if bare is None and value != 0:
            raise ValueError(wrong)
        unit = bare or next(name for name, scale in units.items() if Decimal(scale) == 1)
    return float(value * Decimal(units[unit]))


# ------------------------------------------------------------------ messages and names

def signal_group(process, signum):
    """`signum` to the process group `process` leads, while it runs (it may
    end meanwhile: no error then)."""
    if process.poll() is None:
        try:
            os.killpg(process.pid, signum)
        except ProcessLookupError:
            pass


def say(tool, text, quiet=False):
    """A progress line of `tool` on stderr ('harmonize-ab: ...'), none when quiet."""
    if not quiet:
        print(f"{tool}: {text}", file=sys.stderr, flush=True)


def slug(text, empty):
    """`text` (any value) made safe as a file name: every run of other
    characters than letters, digits, '_', '.' and '-' becomes '_'; `empty`
    when nothing is left."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", str(text)).strip("_") or empty


# ------------------------------------------------------------------ arrival patterns

def pattern_delta(pattern):
    """The delay delta an arrival pattern (HARMONIZE_ARRIVAL) imposes, in seconds:
    the late processes' delay for rank/ranks/node, the largest for linear
    and random, 0 for none; None for file (the file's content decides).
    ValueError for a text that is no pattern."""
    kind, _, rest = pattern.strip().partition(":")
    fields = rest.split(":") if rest else []
    if kind == "none" and not fields:
        return 0.0
    if kind == "file" and rest:
        return None
    if kind in ("rank", "ranks", "node") and len(fields) == 2 and fields[0]:
        return parse_duration(fields[1])
    if (kind == "linear" and len(fields) == 1) or (kind == "random" and len(fields) in (1, 2)):
        return parse_duration(fields[0])
    raise ValueError(f"{pattern!r} is not an arrival pattern (none, rank:R:DELAY, "
                     "ranks:R1,R2:DELAY, node:N:DELAY, linear:MAX, random:MAX[:SEED], file:PATH)")


def communicator_delta(pattern, size, world_delta):
    """The delay delta a pattern imposes on a communicator of `size` processes,
    where the report states it for MPI_COMM_WORLD only (`world_delta`): the
    pattern's ranks are the communicator's, so `rank:5:10us` delays nobody
    on 4 processes, and all processes late is nobody late (as the library's
    arrival_delta). node: the world's (the communicator's nodes are not in
    the report); file: None (its delays are not either)."""
    kind, _, rest = (pattern or "none").partition(":")
    if kind == "node" or size is None:
        return world_delta
    if kind in ("rank", "ranks"):
        ranks = {int(r) for r in rest.rpartition(":")[0].split(",") if r.strip().isdigit()}
        late = sum(1 for r in ranks if r < size)
        return pattern_delta(pattern) if 0 < late < size else 0.0
    if kind in ("linear", "random"):
        return pattern_delta(pattern) if size > 1 else 0.0
    return pattern_delta(pattern)  # none: 0; file: None


# ------------------------------------------------------------------ where the tools are

def tools_dir(package_file):
    """The directory of the harmonize-* launchers, from a module of this
    package: scripts/ beside python/ in the source tree, bin/ of the install
    prefix (the package in share/harmonize/python); else the directory of the
    running program (an entry point of an installed wheel)."""
    package = Path(package_file).resolve().parent
    while package.name != "harmonize_tools" and package != package.parent:
        package = package.parent
    root = package.parent
    for candidate in (root.parent / "scripts", root.parent.parent.parent / "bin"):
        if (candidate / "harmonize-run").is_file():
            return candidate
    return Path(sys.argv[0]).resolve().parent


def main(argv):
    if len(argv) == 2 and argv[0] == "launcher-kind":
        try:
            print(detect_kind(argv[1]))
            return 0
        except UnknownLauncher:
            print("unknown")
            return 1
    print("usage: python3 -m harmonize_tools.common launcher-kind LAUNCHER", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
