"""Which algorithms the MPI library offers for a collective, asked of the
library itself (never a list kept here, which would go stale).

Open MPI: `ompi_info --param coll tuned --level 9 --parsable` lists every
`coll_tuned_<collective>_algorithm` with its enumerators (0 "ignore" is the
library's own decision: the default side).

MPICH: `mpivars` prints each `MPIR_CVAR_<COLLECTIVE>_INTRA_ALGORITHM` with its
description, whose lines ("auto - Internal algorithm selection ...",
"binomial    - Force Binomial Tree", ...) arrive joined without a separator:
"...Force Binomial Treenb    - Force nonblocking algorithm...". The choices
after "auto" are padded to one width, which the first of them (whole, after
"...JSON_FILE)") gives: each choice is that many characters, less its
padding, before its " - " (split_choices). "auto" is the default.
"""
import re
import subprocess

COLLECTIVES = ("allgather", "allreduce", "alltoall", "barrier", "bcast", "gather", "reduce",
               "reduce_scatter", "scatter")
OMPI_DEFAULT = "0"
MPICH_DEFAULT = "auto"
CHOICE = re.compile(r"[a-z0-9_]+$")
# The environment's names of mpich_variable and ompi_parameter.
FORCED_MPICH = re.compile(r"MPIR_CVAR_([A-Z0-9_]+)_INTRA_ALGORITHM")
FORCED_OMPI = re.compile(r"OMPI_MCA_coll_tuned_([a-z0-9_]+)_algorithm")


class AlgorithmsUnknown(Exception):
    """The library's algorithms cannot be listed: one clear line, exit before any run."""


def ompi_parameter(collective):
    return f"coll_tuned_{collective}_algorithm"


def mpich_variable(collective):
    return f"MPIR_CVAR_{collective.upper()}_INTRA_ALGORITHM"


def forced_collective(variable):
    """The collective whose algorithm the environment variable `variable`
    forces (MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM, OMPI_MCA_coll_tuned_allreduce_algorithm:
    "allreduce"; any collective, not only COLLECTIVES), or None."""
    if match := FORCED_MPICH.fullmatch(variable):
        return match.group(1).lower()
    if match := FORCED_OMPI.fullmatch(variable):
        return match.group(1)
    return None


def is_ompi_forced(variable):
    """Whether `variable` forces an Open MPI algorithm (read only with its dynamic rules on)."""
    return variable.startswith("OMPI_MCA_") and forced_collective(variable) is not None


def label(algorithm, named):
    """An algorithm as a table shows it: its value and name (Open MPI's "3
    recursive_doubling"), once where they are the same word (MPICH's)."""
    name = named.get(algorithm, "")
    return algorithm if name in ("", algorithm) else f"{algorithm} {name}"


def parse_ompi_info(text, collective):
    """[(value, name)] of `coll_tuned_<collective>_algorithm`, in the order listed."""
    prefix = f"mca:coll:tuned:param:{ompi_parameter(collective)}:enumerator:value:"
    found = []
    for line in text.splitlines():
        if line.startswith(prefix):
            value, _, name = line[len(prefix):].partition(":")
            if value.strip().isdigit():
                found.append((value.strip(), name.strip()))
    return found


def split_choices(description):
    """The choices of an MPICH algorithm CVAR from its joined description
    (after "Variable to select <collective> algorithm"); [] when it cannot
    be read. The lines after "auto - ..." pad every choice to one width; the
    one after "...JSON_FILE)" is whole, and gives that width."""
    matches = list(re.finditer(r"([A-Za-z0-9_]*)( +)- ", description))
    if not matches or matches[0].start() != 0:
        return []
    width = next((len(m.group(1)) + len(m.group(2)) for m in matches[1:]
                  if m.start(1) > 0 and description[m.start(1) - 1] == ")"), None)
    if width is None:
        return []
    choices = [matches[0].group(1)]
    for match in matches[1:]:
        length = width - len(match.group(2))
        token = match.group(1)
        if not 1 <= length <= len(token) or not CHOICE.fullmatch(token[-length:]):
            return []
        choices.append(token[-length:])
    return choices


def parse_mpivars(text, collective):
    """[(choice, choice)] of MPIR_CVAR_<COLLECTIVE>_INTRA_ALGORITHM."""
    variable = mpich_variable(collective)
    header = f"Variable to select {collective} algorithm"
    for line in text.splitlines():
        fields = line.strip().split("\t")
        if len(fields) >= 6 and fields[0].split("=")[0].strip() == variable and \
                fields[5].startswith(header):
            return [(choice, choice) for choice in split_choices(fields[5][len(header):])]
    return []


def run_text(command):
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise AlgorithmsUnknown(f"cannot run {' '.join(command)}: {error}") from error
    if result.returncode != 0:
        raise AlgorithmsUnknown(f"{' '.join(command)} failed (exit {result.returncode}): "
                                f"{result.stderr.strip()[:200]}")
    return result.stdout


def parse_ompi_rule_parameters(text, collective):
    """(fan-in/out, segment size) Open MPI uses when `collective`'s algorithm
    is forced (coll_tuned_<collective>_algorithm_chain_fanout and
    _segmentsize; the component's coll_tuned_init_chain_fanout, else 0, where
    the collective has none): what a rules file must say for its rule to run
    the algorithm the tuning measured. A rule's 0 fan-out made reduce's chain
    one chain of fan-out 1 (4 ranks, Open MPI 4.1.4) where forcing it ran 4."""
    values = {}
    for line in text.splitlines():
        name, _, value = line.removeprefix("mca:coll:tuned:param:").partition(":value:")
        if value.strip().lstrip("-").isdigit() and not line.count(":enumerator:"):
            values[name] = int(value)
    fanout = values.get(f"coll_tuned_{collective}_algorithm_chain_fanout",
                        values.get("coll_tuned_init_chain_fanout", 0))
    return fanout, values.get(f"coll_tuned_{collective}_algorithm_segmentsize", 0)


def list_rule_parameters(mpi, collectives, ompi_info="ompi_info"):
    """{collective: (fan-in/out, segment size)} for Open MPI's rules file; {} for MPICH."""
    if mpi != "openmpi":
        return {}
    text = run_text([ompi_info, "--param", "coll", "tuned", "--level", "9", "--parsable"])
    return {collective: parse_ompi_rule_parameters(text, collective) for collective in collectives}


def list_algorithms(mpi, collectives, ompi_info="ompi_info", mpivars="mpivars"):
    """{collective: [(value, name)]} with the default first, for `mpi`."""
    found = {}
    if mpi == "openmpi":
        text = run_text([ompi_info, "--param", "coll", "tuned", "--level", "9", "--parsable"])
        for collective in collectives:
            found[collective] = parse_ompi_info(text, collective)
    elif mpi == "mpich":
        text = run_text([mpivars])
        for collective in collectives:
            found[collective] = parse_mpivars(text, collective)
    else:
        raise AlgorithmsUnknown(f"cannot list the algorithms of {mpi!r}: only Open MPI and MPICH")
    default = OMPI_DEFAULT if mpi == "openmpi" else MPICH_DEFAULT
    for collective, algorithms in found.items():
        values = [value for value, _ in algorithms]
        if default not in values or len(values) < 2:
            raise AlgorithmsUnknown(f"{collective}: the library lists no algorithms to choose from "
                                    f"({'ompi_info' if mpi == 'openmpi' else 'mpivars'} gave "
                                    f"{', '.join(values) or 'none'})")
        found[collective] = sorted(algorithms, key=lambda item: item[0] != default)
    return found
