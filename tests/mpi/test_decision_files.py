"""The MPI library obeys the decision file harmonize-tune writes (issue 27,
item 3). Neither library says which algorithm it ran (Open MPI 4.1's release
build names the component only, MPICH 4.0 prints nothing), so the program
tells (reduction_signature.c): the calls an allreduce makes to a
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
from harmonize_tools.tune import algorithms, cli, rule_files, rules

SIGNATURE = PROGRAMS / "reduction_signature"
WHOLE = [8]  # one call on the whole vector
HALF = [4]


def signature_lines(env, count=8, processes=2, operation="allreduce"):
    result = run_mpi(processes, [SIGNATURE, str(count), operation], preload=False, env=env, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    return sorted((json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")),
                  key=lambda line: line["rank"])


def calls_per_rank(env, count=8):
    return {line["rank"]: line["lengths"] for line in signature_lines(env, count)}


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


@pytest.mark.skipif(MPI_FLAVOR != "openmpi", reason="Open MPI's rules file")
def test_open_mpi_runs_a_files_algorithm_as_forcing_it_does(tmp_path):
    """Outside check (issue 46.6): every rule was written with fan-in/out 0,
    and Open MPI then ran reduce's chain as one chain of fan-out 1 where
    forcing the algorithm (what the tuning measured) runs its MCA default of
    4. The file now carries the forced values (ompi_info's), and on 4
    processes each reduce algorithm calls the operation on the same ranks
    from the file as forced."""
    dynamic = {"OMPI_MCA_coll_tuned_use_dynamic_rules": "1"}
    parameters = algorithms.list_rule_parameters("openmpi", ["reduce"])
    assert parameters["reduce"][0] > 1  # else this test could not tell a chain's fan-out

    def op_calls(env, path=None):
        files = {"OMPI_MCA_coll_tuned_dynamic_rules_filename": str(path)} if path else {}
        return [line["op_calls"] for line in signature_lines({**dynamic, **env, **files}, 64, 4, "reduce")]

    for algorithm in ("1", "2", "3", "4", "5", "6", "7"):
        path = tmp_path / f"rules-{algorithm}.conf"
        rule_files.write_rules(path, "openmpi", {"reduce": {4: [(0, algorithm)]}}, "test", None, parameters)
        forced = op_calls({"OMPI_MCA_coll_tuned_reduce_algorithm": algorithm})
        assert op_calls({}, path) == forced, f"reduce algorithm {algorithm}"
    # The chain as forced: fan-out 4 from the root; a 0 in the file makes it one chain.
    assert forced_chain_is_a_fan(op_calls({"OMPI_MCA_coll_tuned_reduce_algorithm": "2"}))
    zero = tmp_path / "rules-zero.conf"
    rule_files.write_rules(zero, "openmpi", {"reduce": {4: [(0, "2")]}}, "test", None, {"reduce": (0, 0)})
    assert not forced_chain_is_a_fan(op_calls({}, zero))


def forced_chain_is_a_fan(calls):
    """Root calls the operation once per other process, the others never."""
    return calls[0] == len(calls) - 1 and not any(calls[1:])


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


@pytest.mark.skipif(MPI_FLAVOR != "mpich", reason="MPICH's selection JSON")
def test_mpich_runs_a_file_tuning_every_collective_harmonize_tune_measures(tmp_path):
    """MPICH 4.0 aborts on avg_msg_size for any collective but allreduce,
    bcast, reduce and alltoall ("avg_msg_size not defined for coll_type 0"):
    a tuned allgather stopped the program at its first MPI_Allgather. Every
    collective harmonize-tune measures, tuned below and above 64 B a process,
    runs through every_collective's calls."""
    with open(libmpich_of(PROGRAMS / "every_collective"), "rb") as library:
        builtin = rules.mpich_builtin_tuning(library.read())
    offered = algorithms.list_algorithms("mpich", list(algorithms.COLLECTIVES))
    choices = {}
    for collective in algorithms.COLLECTIVES:
        named = [value for value, _ in offered[collective] if value not in (rules.MPICH_DEFAULT, "nb")]
        if collective != "barrier" and named:
            choices[collective] = {3: [(0, named[0]), (64, rules.MPICH_DEFAULT)]}
    assert {"allgather", "gather", "scatter", "reduce_scatter"} <= set(choices)
    path = written(tmp_path, "mpich", choices, builtin)
    result = run_mpi(3, [PROGRAMS / "every_collective"], preload=False,
                     env={"MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE": str(path)}, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "not defined" not in result.stderr
