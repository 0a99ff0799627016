"""The decision files harmonize-tune writes (rules has their text): their
names, the choices worth a file (kept_choices), writing one, and MPICH's
built-in selection tree that completes MPICH's file (mpich_builtin)."""
import json
import shutil
from pathlib import Path

from . import algorithms as algorithms_module
from . import rules
from .benchmark import UsageError


RULES_FILE = {"openmpi": "ompi-coll-rules.conf", "mpich": "mpich-coll-selection.json"}


USUAL_RULES_FILE = {"openmpi": "ompi-coll-rules-usual.conf", "mpich": "mpich-coll-selection-usual.json"}


ARRIVAL_RULES_FILE = {"openmpi": "ompi-coll-rules-arrival.conf", "mpich": "mpich-coll-selection-arrival.json"}


def kept_choices(default, choices):
    """A collective the default wins everywhere is left to the library: an
    Open MPI rule that only says 0 still costs its lookup in every call, and
    an MPICH subtree of ours adds levels to the library's search (both
    measured: docs/tuning.md); MPICH's file keeps the library's own subtree
    for it. With no collective left, no file."""
    return {c: sizes for c, sizes in choices.items()
            if any(algorithm != default for rules_ in sizes.values() for _, algorithm in rules_)}


def write_rules(path, mpi, choices, header, builtin=None, parameters=None):
    """`builtin`: MPICH's own tree (mpich_builtin); `parameters`: Open MPI's
    forced fan-in/out and segment size per collective (list_rule_parameters)."""
    if mpi == "openmpi":
        path.write_text(rules.ompi_rules_text(choices, header, parameters))
    else:
        tuned = rules.mpich_tuning(choices, builtin)
        path.write_text(json.dumps(rules.merge_mpich_tuning(builtin, tuned), indent=2) + "\n")


def mpich_builtin(args):
    """MPICH's built-in MPIR selection tree, from the libmpich mpivars runs with."""
    path = args.mpich_library
    if not path:
        text = algorithms_module.run_text(["ldd", shutil.which(args.mpivars) or args.mpivars])
        found = [line.split("=>")[1].split()[0] for line in text.splitlines()
                 if "libmpich" in line and "=>" in line]
        if not found:
            raise UsageError(f"cannot find the libmpich {args.mpivars} runs with (ldd); its built-in "
                             "selection tree is needed to complete MPICH's file")
        path = found[0]
    try:
        tree = rules.mpich_builtin_tuning(Path(path).read_bytes())
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror}") from error
    if tree is None:
        raise UsageError(f"{path} holds no built-in MPIR selection tree to complete MPICH's file from")
    return tree
