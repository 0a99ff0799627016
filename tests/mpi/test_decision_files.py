"""The MPI library obeys the decision file harmonize-tune writes (issue 27,
item 3). Neither library says which algorithm it ran (Open MPI 4.1's release
build names the component only, MPICH 4.0 prints nothing), so the program
tells (allreduce_signature.c): the calls an allreduce makes to a
user-defined operation differ by algorithm, deterministically, whatever the
load. On 2 processes and 8 ints: recursive doubling calls it once per
process on all 8; a ring (Open MPI 4) on halves of 4; a reduce-and-broadcast
(Open MPI 1, MPICH smp) only at the root.

The files are the ones harmonize-tune writes (cli.write_rules), MPICH's
completed from the libmpich the program runs with. MPICH calls a file's
algorithm without the checks it makes when a CVAR forces one: a bare
reduce_scatter_allgather on a user-defined operation stopped the program
(an assertion), and the default's name ("auto") stopped MPI_Init; the
written file keeps the library's conditions and hands those calls back."""
import json
import subprocess

import pytest

from conftest import MPI_FLAVOR, PROGRAMS, run_mpi
from harmonize_tools.tune import cli, rules

SIGNATURE = PROGRAMS / "allreduce_signature"
WHOLE = [8]  # one call on the whole vector
HALF = [4]


def calls_per_rank(env, count=8):
    result = run_mpi(2, [SIGNATURE, str(count)], preload=False, env=env, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    return {line["rank"]: line["lengths"] for line in sorted(lines, key=lambda line: line["rank"])}


def written(tmp_path, mpi, choices, builtin=None):
    path = tmp_path / ("rules.conf" if mpi == "openmpi" else "selection.json")
    cli.write_rules(path, mpi, choices, "test_decision_files", builtin)
    return path


@pytest.mark.skipif(MPI_FLAVOR != "openmpi", reason="Open MPI's rules file")
def test_open_mpi_obeys_the_written_rules_file(tmp_path):
    def with_file(algorithm):
        path = written(tmp_path, "openmpi", {"allreduce": {2: [(0, algorithm)]}})
        return calls_per_rank({"OMPI_MCA_coll_tuned_use_dynamic_rules": "1",
                               "OMPI_MCA_coll_tuned_dynamic_rules_filename": str(path)})

    assert calls_per_rank({}) == {0: WHOLE, 1: WHOLE}  # the library's own: recursive doubling
    assert with_file("1") == {0: WHOLE, 1: []}  # basic_linear: reduce to 0, broadcast
    assert with_file("4") == {0: HALF, 1: HALF}  # ring


def libmpich_of(program):
    text = subprocess.run(["ldd", str(program)], capture_output=True, text=True, check=True).stdout
    return next(line.split("=>")[1].split()[0] for line in text.splitlines() if "libmpich" in line)


@pytest.mark.skipif(MPI_FLAVOR != "mpich", reason="MPICH's selection JSON")
def test_mpich_obeys_the_written_selection_file(tmp_path):
    with open(libmpich_of(SIGNATURE), "rb") as library:
        builtin = rules.mpich_builtin_tuning(library.read())
    assert builtin is not None

    def with_file(rules_of_size, count=8):
        path = written(tmp_path, "mpich", {"allreduce": {2: rules_of_size}}, builtin)
        return calls_per_rank({"MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE": str(path)}, count)

    assert calls_per_rank({}) == {0: WHOLE, 1: WHOLE}  # the library's own: recursive doubling
    assert with_file([(0, "smp")]) == {0: WHOLE, 1: []}  # reduce on the node, broadcast
    # Not applicable to a user-defined operation: the library's own choice,
    # not an assertion.
    assert with_file([(0, "reduce_scatter_allgather")]) == {0: WHOLE, 1: WHOLE}
    # The default kept up to 1 KiB, smp above: 32 bytes get the library's
    # own, 2 KiB smp's.
    assert with_file([(0, "auto"), (1024, "smp")]) == {0: WHOLE, 1: WHOLE}
    assert with_file([(0, "auto"), (1024, "smp")], count=512) == {0: [512], 1: []}
