"""harmonize-tune (issue 27): the algorithms the MPI library lists (recorded
ompi_info and mpivars output of this machine's Open MPI 4.1.4 and MPICH
4.0.2), the decision files written and read back, and a tuning end to end on
the stand-in benchmark (tests/fixtures/sweep/fake-mpiexec) whose t_global per
algorithm and size is known exactly (FAKE_ALGORITHMS): the right algorithm
is chosen, one no faster than the default leaves a tie, and the files say so."""
import csv
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS))
from conftest import SOURCE_DIR, clean_environment  # noqa: E402
from harmonize_tools.tune import algorithms, check, decide, heatmap, measure, rule_files, rules, tables  # noqa: E402
from harmonize_tools.ab import per_call  # noqa: E402

TUNE = SOURCE_DIR / "scripts" / "harmonize-tune"
FAKE = TESTS / "fixtures" / "sweep" / "fake-mpiexec"
FIXTURES = TESTS / "fixtures" / "tune"


# ------------------------------------------------------------------ what the library offers

def test_open_mpi_lists_its_algorithms_with_their_numbers():
    text = (FIXTURES / "ompi_info-4.1.4.txt").read_text()
    assert algorithms.parse_ompi_info(text, "allreduce") == [
        ("0", "ignore"), ("1", "basic_linear"), ("2", "nonoverlapping"), ("3", "recursive_doubling"),
        ("4", "ring"), ("5", "segmented_ring"), ("6", "rabenseifner")]
    assert [name for _, name in algorithms.parse_ompi_info(text, "bcast")][:3] == \
        ["ignore", "basic_linear", "chain"]
    assert algorithms.parse_ompi_info(text, "scan") == []


def test_mpich_choices_are_read_from_the_joined_description():
    text = (FIXTURES / "mpivars-4.0.2.txt").read_text()
    choices = {c: [v for v, _ in algorithms.parse_mpivars(text, c)]
               for c in ("allreduce", "bcast", "alltoall", "barrier")}
    assert choices == {
        "allreduce": ["auto", "nb", "smp", "recursive_doubling", "reduce_scatter_allgather"],
        "bcast": ["auto", "binomial", "nb", "smp", "scatter_recursive_doubling_allgather",
                  "scatter_ring_allgather"],
        "alltoall": ["auto", "brucks", "nb", "pairwise", "pairwise_sendrecv_replace", "scattered"],
        "barrier": ["auto", "nb", "smp", "dissemination"]}
    # Without the padding the first choice gives, nothing is guessed.
    assert algorithms.split_choices("auto - Internal selectionnb - Force nonblocking algorithm") == []


def test_the_default_comes_first_and_a_library_without_a_list_is_an_error():
    listed = algorithms.list_algorithms("openmpi", ["allreduce"], ompi_info=str(FIXTURES / "ompi_info"))
    assert listed["allreduce"][0] == ("0", "ignore")
    listed = algorithms.list_algorithms("mpich", ["bcast"], mpivars=str(FIXTURES / "mpivars"))
    assert listed["bcast"][0] == ("auto", "auto")
    with pytest.raises(algorithms.AlgorithmsUnknown, match="scan: the library lists no algorithms"):
        algorithms.list_algorithms("openmpi", ["scan"], ompi_info=str(FIXTURES / "ompi_info"))
    with pytest.raises(algorithms.AlgorithmsUnknown, match="cannot run"):
        algorithms.list_algorithms("openmpi", ["allreduce"], ompi_info="/nonexistent/ompi_info")


# ------------------------------------------------------------------ the decision files

CHOICES = {"allreduce": {4: [(8, "3"), (64, "3"), (1024, "4"), (65536, "0")], 16: [(8, "6")]},
           "bcast": {4: [(8, "0"), (4096, "6")]}}


def test_open_mpi_rules_read_back_to_the_choices():
    text = rules.ompi_rules_text(CHOICES, "harmonize-tune 2026-11-26\n4 ranks")
    assert text.startswith("# harmonize-tune 2026-11-26\n# 4 ranks\n2  # collectives\n2  # allreduce\n")
    assert rules.parse_ompi_rules(text) == {
        "allreduce": {4: [(0, "3"), (1024, "4"), (65536, "0")], 16: [(0, "6")]},
        "bcast": {4: [(0, "0"), (4096, "6")]}}


def test_open_mpi_rules_of_the_gathers_count_the_bytes_of_all_processes():
    """Open MPI 4.1 compares allgather, alltoall, gather and scatter rules
    with a process's block times the communicator size: a choice from 256 B
    a process is written from 1024 B on 4 processes and read back as 256."""
    choices = {"allgather": {4: [(8, "1"), (256, "4")], 16: [(8, "2"), (100, "4")]},
               "bcast": {4: [(8, "1"), (256, "6")]}}
    text = rules.ompi_rules_text(choices)
    assert "\n4  # communicator size\n2  # message sizes\n0 1 0 0\n1024 4 0 0\n" in text
    assert "\n16  # communicator size\n2  # message sizes\n0 2 0 0\n1600 4 0 0\n" in text
    assert text.endswith("0 1 0 0\n256 6 0 0\n")  # bcast: a process's bytes
    assert rules.parse_ompi_rules(text) == {"allgather": {4: [(0, "1"), (256, "4")], 16: [(0, "2"), (100, "4")]},
                                            "bcast": {4: [(0, "1"), (256, "6")]}}
    # A hand-written threshold between two blocks: the first block it covers.
    assert rules.parse_ompi_rules("1\n0\n1\n4\n2\n0 1 0 0\n1001 4 0 0\n") == {"allgather": {4: [(0, "1"), (251, "4")]}}


def test_open_mpi_rules_carry_the_forced_fan_out_and_segment_size():
    """A rule's fan-in/out and segment size are what forcing the algorithm
    uses (ompi_info's), not 0 (issue 46.6; the MPI's side:
    tests/mpi/test_decision_files.py)."""
    text = (FIXTURES / "ompi_info-4.1.4.txt").read_text()
    assert algorithms.parse_ompi_rule_parameters(text, "reduce") == (4, 0)
    assert algorithms.parse_ompi_rule_parameters(text, "reduce_scatter_block") == (4, 0)  # the component's
    assert algorithms.parse_ompi_rule_parameters("", "bcast") == (0, 0)
    assert algorithms.parse_ompi_rule_parameters(
        "mca:coll:tuned:param:coll_tuned_bcast_algorithm_chain_fanout:value:8\n"
        "mca:coll:tuned:param:coll_tuned_bcast_algorithm_segmentsize:value:8192\n", "bcast") == (8, 8192)
    written = rules.ompi_rules_text({"bcast": {4: [(0, "2"), (4096, "6")]}}, "", {"bcast": (4, 8192)})
    assert written.endswith("0 2 4 8192\n4096 6 4 8192\n")
    assert rules.parse_ompi_rules(written) == {"bcast": {4: [(0, "2"), (4096, "6")]}}


@pytest.mark.parametrize("text, message", [
    ("", "no rules"),
    ("1\n7\n1\n4\n1\n0 6 4", "ends early: a segment size expected"),
    ("1\n7\n1\n4\n2\n0 6 4 0\n0 1 4 0\n", "line 7: message size 0 not above the one before"),
    ("1\n77\n", "line 2: 77 is no collective id"),
    ("1\n7\n2\n4\n1\n0 6 4 0\n4\n1\n0 6 4 0\n", "communicator size 4 not above"),
    ("1 # one\n7\n1\n4\n1\n0 6 4 0\n9\n", "1 numbers left over after the last rule (line 7)"),
    ("1\n7\n1\n4\n1\n0 six 4 0\n", "line 6: 'six' is not a number"),
])
def test_a_rules_file_is_read_strictly(text, message):
    """Open MPI 4.1 ignores a file it cannot read, without a word: harmonize-tune says what is wrong."""
    with pytest.raises(ValueError, match=re.escape(message)):
        rules.read_ompi_rules(text)
    assert rules.read_ompi_rules("1 # one\n7\n1\n4\n1\n0 6 4 8192\n") == {"bcast": {4: [(0, "6", 4, 8192)]}}


def test_the_check_runs_each_rule_inside_its_own_range():
    found = check.cases({"bcast": {2: [(0, "6", 4, 0), (1, "1", 4, 0), (64, "42", 4, 0)], 4: [(0, "5", 4, 0)]},
                         "reduce_scatter": {4: [(0, "1", 0, 0)]},
                         # A rule's size counts every process's block (4 here).
                         "gather": {4: [(0, "1", 0, 0), (1024, "2", 0, 0)], 8: [(0, "1", 0, 0), (4, "2", 0, 0)]}},
                        {"bcast": ["0", "1", "5", "6"], "gather": ["0", "1", "2"], "reduce_scatter": ["0", "1"]})
    assert [(c, p, b, r[1], why) for c, p, b, r, why in found] == [
        ("bcast", 2, 1, "6", "not checked: no message size only this rule covers"),
        ("bcast", 2, 1, "1", None),
        ("bcast", 2, 64, "42", "Open MPI's bcast has no algorithm 42 (it has 0, 1, 5, 6)"),
        ("bcast", 4, 1, "5", None),
        ("reduce_scatter", 4, 1, "1", "not checked: no witness for reduce_scatter"),
        ("gather", 4, 1, "1", None),
        ("gather", 4, 256, "2", None),
        ("gather", 8, 1, "1", "not checked: no message size only this rule covers"),
        ("gather", 8, 1, "2", None)]
    assert check.verdict("a", "a", "b") == "obeyed"
    assert check.verdict("a", "b", "a") == "NOT OBEYED: the library's own choice ran"
    assert check.verdict("c", "b", "a") == "NOT OBEYED"
    assert check.verdict("a", "a", "a").startswith("obeyed (")
    assert check.launcher_head(["mpirun", "-np", "2", "--mca", "btl", "self,tcp", "/bin/true", "-x"]) == \
        ["mpirun", "--mca", "btl", "self,tcp"]
    assert check.launcher_head(["mpiexec", "-n", "4"]) == ["mpiexec"]


def test_mpich_tuning_names_the_functions_and_ends_with_any():
    parsed = rules.parse_mpich_tuning(rules.mpich_tuning_text(
        {"allreduce": {2: [(8, "recursive_doubling"), (1024, "nb")], 4: [(8, "smp")]}}))
    assert parsed == {"allreduce": [
        (2, [(1023, "MPIR_Allreduce_intra_recursive_doubling"), (None, "MPIR_Allreduce_allcomm_nb")]),
        (None, [(None, "MPIR_Allreduce_intra_smp")])]}


def test_mpich_tuning_uses_the_size_mpich_knows_for_each_collective():
    """MPICH 4.0 knows avg_msg_size for allreduce, bcast, reduce and alltoall
    only and aborts on it for the others ("avg_msg_size not defined for
    coll_type 0" at the first MPI_Allgather of a tuned allgather): theirs is
    total_msg_size, a process's block times the communicator size for the
    gathers and scatter, the whole buffer (OSU's size) for reduce_scatter."""
    choices = {collective: {4: [(0, "a"), (256, "b")]}
               for collective in ("allgather", "alltoall", "bcast", "gather", "reduce_scatter", "scatter")}
    tree = rules.mpich_tuning(choices)
    ranges = {key.split("=")[1]: list(value["comm_type=intra"]["comm_size=any"]) for key, value in tree.items()}
    assert ranges == {"allgather": ["total_msg_size<=1023", "total_msg_size=any"],
                      "alltoall": ["avg_msg_size<=255", "avg_msg_size=any"],
                      "bcast": ["avg_msg_size<=255", "avg_msg_size=any"],
                      "gather": ["total_msg_size<=1023", "total_msg_size=any"],
                      "reduce_scatter": ["total_msg_size<=255", "total_msg_size=any"],
                      "scatter": ["total_msg_size<=1023", "total_msg_size=any"]}
    parsed = rules.parse_mpich_tuning(json.dumps(tree), comm_size=4)
    assert parsed["allgather"] == [(None, [(255, "MPIR_Allgather_intra_a"), (None, "MPIR_Allgather_intra_b")])]
    assert parsed["reduce_scatter"][0][1][0] == (255, "MPIR_Reduce_scatter_intra_a")


# ------------------------------------------------------------------ end to end on the stand-in

def tune(output, *arguments, algorithms_model="", native_model="", quiet=True, command=None):
    env = {k: v for k, v in clean_environment().items()
           if not k.startswith(("HARMONIZE_", "OMPI_MCA_", "MPIR_CVAR_"))}
    env.pop("LD_PRELOAD", None)
    env["FAKE_ALGORITHMS"] = algorithms_model
    env["FAKE_NATIVE_ALGORITHMS"] = native_model
    library = next((p for p in ("/lib/x86_64-linux-gnu/libm.so.6", "/usr/lib64/libm.so.6",
                                "/lib/aarch64-linux-gnu/libm.so.6") if Path(p).exists()), None)
    if library is None:
        pytest.skip("no libm to preload as a stand-in")
    return subprocess.run([str(TUNE), "-o", str(output), "--library", library, *(["-q"] if quiet else []),
                           "--runs", "3", "--collectives", "allreduce", *arguments, "--",
                           *(command or [str(FAKE), "-n", "4", "osu_allreduce"])],
                          env=env, capture_output=True, text=True, timeout=600)


def test_open_mpi_tuning_chooses_the_decidedly_faster_algorithm(tmp_path):
    # 3 takes half the default's time everywhere, 4 0.4 of it at 1 KiB, 1 twice it,
    # 2 exactly as long: 3 at 4 and 64 bytes, 4 at 1024.
    result = tune(tmp_path / "out", "--mpi", "openmpi", "--ompi-info", str(FIXTURES / "ompi_info"),
                  algorithms_model="3:0.5,4:1024=0.4,1:2,2:1.0")
    assert result.returncode == 0, result.stdout + result.stderr
    written = rules.parse_ompi_rules((tmp_path / "out" / "ompi-coll-rules.conf").read_text())
    assert written == {"allreduce": {4: [(0, "3"), (1024, "4")]}}
    rows = list(csv.DictReader((tmp_path / "out" / "decisions.csv").open()))
    chosen = {(row["bytes"], row["algorithm"]) for row in rows if row["chosen"] == "true"}
    assert chosen == {("4", "3"), ("64", "3"), ("1024", "4")}
    by = {(row["bytes"], row["algorithm"]): row for row in rows}
    assert float(by["4", "3"]["ratio_to_default"]) == pytest.approx(0.5, rel=0.02)
    assert float(by["4", "1"]["ratio_to_default"]) == pytest.approx(2.0, rel=0.02)
    assert by["4", "2"]["decided"] == "false" and float(by["4", "2"]["ratio_to_default"]) == 1.0
    # Every algorithm ran as a side of its own, the default among them, interleaved.
    plan = json.loads((tmp_path / "out" / "allreduce" / "plan.json").read_text())
    assert plan["sides"] == ["0", "1", "2", "3", "4", "5", "6"]
    assert plan["settings"]["all"] == ["OMPI_MCA_coll_tuned_use_dynamic_rules=1"]
    assert "-> 3 recursive_doubling: 0.500 of the default's t_global" in result.stdout
    # The heat map: size x algorithm relative to the fastest (matplotlib is a test dependency).
    assert (tmp_path / "out" / "heatmap-allreduce-P4.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    points, _ = measure.points_of(tmp_path / "out" / "allreduce")
    rows = decide.decide(points, "allreduce", "0", [str(a) for a in range(7)])
    sizes, columns, cells = heatmap.relative_table(rows, "0")
    assert sizes == [4, 64, 1024] and columns[0] == "0"
    assert cells[4, "3"] == (1.0, True) and cells[4, "0"][0] == pytest.approx(2.0, rel=0.02)
    assert cells[1024, "4"] == (1.0, True)


def test_imb_is_tuned_on_its_own_communicator_within_the_sizes_asked(tmp_path, monkeypatch):
    # IMB-MPI1 measures on a communicator of its own, and makes calls of its
    # own (a 2-byte allreduce, none valid, that another algorithm makes
    # faster) on it and on MPI_COMM_WORLD. Tuned on MPI_COMM_WORLD alone, a
    # real IMB run had only IMB's own size to decide.
    monkeypatch.setenv("FAKE_IMB", "1")
    result = tune(tmp_path / "out", "--mpi", "openmpi", "--ompi-info", str(FIXTURES / "ompi_info"),
                  "--sizes", "4:1024", algorithms_model="3:0.5,4:1024=0.4,1:2.0,2:1.0")
    assert result.returncode == 0, result.stdout + result.stderr
    rows = list(csv.DictReader((tmp_path / "out" / "decisions.csv").open()))
    assert {row["bytes"] for row in rows} == {"4", "64", "1024"}
    assert {(row["bytes"], row["algorithm"]) for row in rows if row["chosen"] == "true"} == \
        {("4", "3"), ("64", "3"), ("1024", "4")}
    # Without --sizes IMB's own calls are a size like any other.
    result = tune(tmp_path / "all", "--mpi", "openmpi", "--ompi-info", str(FIXTURES / "ompi_info"),
                  "--no-verify", algorithms_model="3:0.5,4:1024=0.4,1:2.0,2:1.0")
    assert result.returncode == 0, result.stdout + result.stderr
    assert {row["bytes"] for row in csv.DictReader((tmp_path / "all" / "decisions.csv").open())} == \
        {"2", "4", "64", "1024"}


def test_the_usual_method_ranks_averages_within_the_sizes_asked():
    averages = {("allreduce", 2, 0): {"0": [1.0], "3": [0.5]},  # IMB prints 0 bytes whatever
                ("allreduce", 2, 8): {"0": [10.0, 12.0, 11.0], "3": [9.0, 9.5, 30.0], "4": [11.0]},
                ("allreduce", 2, 16): {"0": [10.0], "4": [10.0]}}
    assert decide.usual_choices(averages, "0") == {(2, 0): ("3", 0.5), (2, 8): ("3", 9.5 / 11.0),
                                                   (2, 16): ("0", 1.0)}
    assert decide.usual_choices(averages, "0", (8, 65536)) == {(2, 8): ("3", 9.5 / 11.0),
                                                               (2, 16): ("0", 1.0)}


@pytest.mark.parametrize("fault", ["FAKE_CRASH", "FAKE_HANG"])
def test_an_algorithm_that_crashes_or_hangs_is_failed_and_the_others_decide(tmp_path, monkeypatch, fault):
    # 3 would win everywhere, but its runs die (or hang) after the first size.
    monkeypatch.setenv(fault, "3")
    result = tune(tmp_path / "out", "--mpi", "openmpi", "--ompi-info", str(FIXTURES / "ompi_info"),
                  "--timeout", "3", "--no-verify", algorithms_model="3:0.5,4:1024=0.4,1:2.0,2:1.0")
    assert result.returncode == 1, result.stdout + result.stderr  # some runs failed
    rows = list(csv.DictReader((tmp_path / "out" / "decisions.csv").open()))
    assert {row["bytes"] for row in rows if row["algorithm"] == "3" and row["failed"] == "true"} == \
        {"4", "64", "1024"}
    assert {(row["bytes"], row["algorithm"]) for row in rows if row["chosen"] == "true"} == {("1024", "4")}
    table = (tmp_path / "out" / "table.txt").read_text()
    assert table.count("failed: no run measured this size") == 3


def test_no_valid_call_decides_nothing(tmp_path, monkeypatch):
    """With every call flagged, all calls' t_global (which holds the late
    rank's wait) once decided: docs/tuning.md says no valid calls, no decision."""
    monkeypatch.setenv("FAKE_NO_VALID", "1")
    result = tune(tmp_path / "out", "--mpi", "openmpi", "--ompi-info", str(FIXTURES / "ompi_info"),
                  "--until-decided", algorithms_model="3:0.5")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("no valid call of the default: no decision, the default stays") == 3
    assert re.search(r"3 recursive_doubling +no valid call", result.stdout)
    assert "no valid call anywhere: nothing decided, no decision file written" in result.stdout
    assert not (tmp_path / "out" / "ompi-coll-rules.conf").exists()
    # More runs cannot make a call valid: --until-decided stops at the first round.
    assert json.loads((tmp_path / "out" / "allreduce" / "plan.json").read_text())["runs"] == 3
    rows = list(csv.DictReader((tmp_path / "out" / "decisions.csv").open()))
    assert {row["no_valid_calls"] for row in rows} == {"true"} and not any(row["decided"] for row in rows)


def test_a_program_that_prints_no_size_is_run_once(tmp_path):
    """`-- mpirun -np 2 /bin/true` was run once per algorithm (7 failed runs)
    before "no usable run": the first run that ends well and prints no size
    shows that no run will."""
    result = tune(tmp_path / "out", "--mpi", "openmpi", "--ompi-info", str(FIXTURES / "ompi_info"),
                  command=["/bin/true"])
    assert result.returncode == 3, result.stdout + result.stderr
    assert "no usable run" in result.stderr
    assert [p.name for p in (tmp_path / "out" / "allreduce" / "runs").iterdir()] == ["001-0"]


def test_sizes_must_be_a_range(tmp_path):
    result = tune(tmp_path / "out", "--mpi", "openmpi", "--ompi-info", str(FIXTURES / "ompi_info"),
                  "--sizes", "1024:4")
    assert result.returncode == 2 and "--sizes" in result.stderr, result.stderr
    assert not (tmp_path / "out").exists()


def test_no_faster_algorithm_leaves_the_default_and_says_tie(tmp_path):
    result = tune(tmp_path / "out", "--mpi", "openmpi", "--ompi-info", str(FIXTURES / "ompi_info"))
    assert result.returncode == 0, result.stdout + result.stderr
    # Nothing to change: no file (a rule of 0 alone would still cost its lookup in every call).
    assert not (tmp_path / "out" / "ompi-coll-rules.conf").exists()
    assert "no decision file written" in result.stdout
    assert result.stdout.count("tie: the default stays") == 3


def test_a_default_faster_than_every_algorithm_is_no_tie(tmp_path):
    result = tune(tmp_path / "out", "--mpi", "openmpi", "--ompi-info", str(FIXTURES / "ompi_info"),
                  algorithms_model="1:2,2:2,3:1.5,4:2,5:3,6:2")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("the default stays: every algorithm is decidedly slower") == 3
    rows = list(csv.DictReader((tmp_path / "out" / "decisions.csv").open()))
    assert {row["tie"] for row in rows} == {"false"} and {row["chosen"] for row in rows} == {"false"}


def test_arrival_chooses_again_under_the_pattern_and_shows_both(tmp_path):
    """Rank 0 20 us late: the stand-in hides up to half an algorithm's own time
    of the delay, so 3 (half the default's time) gains less: at 4 bytes
    (t0 10 us) 5 + 17.5 against 10 + 15 us, 0.9 of the default."""
    result = tune(tmp_path / "out", "--mpi", "openmpi", "--ompi-info", str(FIXTURES / "ompi_info"),
                  "--no-verify", "--arrival", "rank:0:20us", algorithms_model="3:0.5")
    assert result.returncode == 0, result.stdout + result.stderr
    late = {row["bytes"]: row for row in csv.DictReader((tmp_path / "out" / "decisions-arrival.csv").open())
            if row["algorithm"] == "3"}
    assert float(late["4"]["ratio_to_default"]) == pytest.approx(22.5 / 25.0, rel=0.03)
    assert late["4"]["chosen"] == "true"
    plan = json.loads((tmp_path / "out" / "allreduce-arrival" / "plan.json").read_text())
    assert "HARMONIZE_ARRIVAL=rank:0:20us" in plan["settings"]["all"]
    assert "choices: all arriving together | under rank:0:20us" in result.stdout
    assert "allreduce P=4 4 B: 3 recursive_doubling (0.500) | 3 recursive_doubling (0.90" in result.stdout
    assert rules.parse_ompi_rules((tmp_path / "out" / "ompi-coll-rules-arrival.conf").read_text()) == \
        {"allreduce": {4: [(0, "3")]}}


def test_the_usual_method_is_ranked_and_verified_beside(tmp_path):
    """After the native barrier the benchmark's averages make 5 look fastest
    (FAKE_NATIVE_ALGORITHMS), while harmonized per call 3 is: the choices
    differ, both files are written, and the verification shows what each is
    worth (the usual one nothing: 5 is as fast as the default per call)."""
    result = tune(tmp_path / "out", "--mpi", "openmpi", "--ompi-info", str(FIXTURES / "ompi_info"),
                  "--compare-usual", algorithms_model="3:0.5", native_model="5:0.3")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "allreduce P=4 4 B: 3 | 5 (0.300 of the default's average)  <- differ" in result.stdout
    assert rules.parse_ompi_rules((tmp_path / "out" / "ompi-coll-rules-usual.conf").read_text()) == \
        {"allreduce": {4: [(0, "5")]}}
    plan = json.loads((tmp_path / "out" / "allreduce-usual" / "plan.json").read_text())
    assert {plan["modes"][side] for side in plan["sides"]} == {"observe"} and len(plan["sides"]) == 7
    verified = {(row["bytes"], row["file"]): row
                for row in csv.DictReader((tmp_path / "out" / "verification.csv").open())}
    assert float(verified["4", "tuned"]["over_default"]) == pytest.approx(0.5, rel=0.02)
    assert float(verified["4", "usual"]["over_default"]) == pytest.approx(1.0, rel=0.02)
    assert verified["4", "usual"]["decided"] == "false"


def stand_in_osu(tmp_path, *collectives):
    """An OSU directory whose osu_<collective> are the stand-in measuring that collective."""
    directory = tmp_path / "osu"
    directory.mkdir()
    for collective in collectives:
        (directory / f"osu_{collective}").symlink_to(FAKE)
    return directory


def test_a_collective_the_file_has_no_rule_for_is_not_changed(tmp_path, monkeypatch):
    """Outside check (issue 46.1): a tuning of allreduce and bcast whose file
    held only a bcast rule verified "tuned" on allreduce too (the usual
    method's file had allreduce rules) and reported decided gains there.
    Each file is verified on its own rules; elsewhere it is "not changed"."""
    monkeypatch.setenv("FAKE_ALGORITHMS_BCAST", "3:0.5")
    result = tune(tmp_path / "out", "--mpi", "openmpi", "--ompi-info", str(FIXTURES / "ompi_info"),
                  "--collectives", "allreduce,bcast", "--compare-usual", native_model="5:0.3",
                  command=[str(stand_in_osu(tmp_path, "allreduce", "bcast"))])
    assert result.returncode == 0, result.stdout + result.stderr
    assert rules.parse_ompi_rules((tmp_path / "out" / "ompi-coll-rules.conf").read_text()) == \
        {"bcast": {4: [(0, "3")]}}
    assert set(rules.parse_ompi_rules((tmp_path / "out" / "ompi-coll-rules-usual.conf").read_text())) == \
        {"allreduce", "bcast"}
    # The tuned file is no side of allreduce's verification.
    plan = json.loads((tmp_path / "out" / "verify" / "allreduce" / "plan.json").read_text())
    assert plan["sides"] == ["default", "usual"]
    verified = {(row["operation"], row["bytes"], row["file"]): row
                for row in csv.DictReader((tmp_path / "out" / "verification.csv").open())}
    for size in ("4", "64", "1024"):
        assert verified["allreduce", size, "tuned"]["verdict"] == "not changed"
        assert verified["allreduce", size, "tuned"]["over_default"] == ""
        assert verified["allreduce", size, "tuned"]["rule"] == ""
        assert verified["allreduce", size, "usual"]["rule"] == "5"
        assert verified["bcast", size, "tuned"]["verdict"] == "confirmed"
        assert verified["bcast", size, "tuned"]["rule"] == "3"
    assert "allreduce P=4 4 B: tuned: not changed (no allreduce rule)" in result.stdout


def test_a_rule_its_verification_does_not_confirm_is_dropped(tmp_path, monkeypatch):
    """Outside check (issue 46.2): bcast binary_tree at 64 B was "decidedly"
    0.842 from 3 runs, then verified at 1.092 [0.915, 1.331], and stayed in
    the file. Here the MPI runs the file's rule for 3 slower than 3 forced
    (FAKE_FILE_ALGORITHMS): contradicted at 4 B, as fast as the default
    (undecided) at 64 B; only 1024 B keeps its rule."""
    monkeypatch.setenv("FAKE_FILE_ALGORITHMS", "3:0.5,3:4=1.2,3:64=1.0")
    result = tune(tmp_path / "out", "--mpi", "openmpi", "--ompi-info", str(FIXTURES / "ompi_info"),
                  algorithms_model="3:0.5")
    assert result.returncode == 0, result.stdout + result.stderr
    written = (tmp_path / "out" / "ompi-coll-rules.conf").read_text()
    assert rules.parse_ompi_rules(written) == {"allreduce": {4: [(0, "0"), (1024, "3")]}}
    assert "2 rule(s) it did not confirm handed back to the library" in written
    assert "allreduce P=4 4 B 3 (contradicted)" in result.stdout
    assert "allreduce P=4 64 B 3 (undecided)" in result.stdout
    verdicts = {row["bytes"]: row["verdict"] for row in csv.DictReader((tmp_path / "out" / "verification.csv").open())}
    assert verdicts == {"4": "contradicted", "64": "undecided", "1024": "confirmed"}
    # None confirmed: no file at all.
    monkeypatch.setenv("FAKE_FILE_ALGORITHMS", "3:1.2")
    result = tune(tmp_path / "none", "--mpi", "openmpi", "--ompi-info", str(FIXTURES / "ompi_info"),
                  algorithms_model="3:0.5")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "the verification confirmed no rule: no decision file written" in result.stdout
    assert not (tmp_path / "none" / "ompi-coll-rules.conf").exists()


def test_until_decided_adds_runs_while_a_choice_could_change(tmp_path):
    # One run decides nothing (3 a side do): two more rounds, then the
    # verification likewise; 2 as fast as the default never could be chosen.
    result = tune(tmp_path / "out", "--mpi", "openmpi", "--ompi-info", str(FIXTURES / "ompi_info"),
                  "--runs", "1", "--until-decided", algorithms_model="3:0.5,2:1.0", quiet=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert json.loads((tmp_path / "out" / "allreduce" / "plan.json").read_text())["runs"] == 3
    assert json.loads((tmp_path / "out" / "verify" / "allreduce" / "plan.json").read_text())["runs"] == 3
    assert "allreduce: until decided: 3 of 3 sizes undecided after 1 runs per side" in result.stderr
    assert "allreduce: until decided: every size decided after 3 runs per side" in result.stderr
    assert "allreduce verification: until decided: every size decided after 3 runs" in result.stderr
    assert "chosen from harmonized per-call t_global (valid calls), 1 to 20 runs (until decided)" in \
        (tmp_path / "out" / "ompi-coll-rules.conf").read_text()
    assert rules.parse_ompi_rules((tmp_path / "out" / "ompi-coll-rules.conf").read_text()) == \
        {"allreduce": {4: [(0, "3")]}}


def test_until_decided_stops_at_its_budget_and_names_what_is_open(tmp_path):
    result = tune(tmp_path / "out", "--mpi", "openmpi", "--ompi-info", str(FIXTURES / "ompi_info"),
                  "--runs", "1", "--until-decided", "--max-time", "0.01s", "--no-verify",
                  algorithms_model="3:0.5", quiet=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert json.loads((tmp_path / "out" / "allreduce" / "plan.json").read_text())["runs"] == 1
    assert ("allreduce: until decided: --max-time 0.01 s would be exceeded, undecided: P=4 4 B, P=4 64 B, "
            "P=4 1024 B after 1 runs per side") in result.stderr
    assert result.stdout.count("tie: the default stays") == 3


def test_decisions_stay_open_only_while_a_faster_algorithm_is_undecided():
    def row(choice, **versus):
        return {"choice": choice, "default": "0",
                "versus": {a: {"delta": d, "decided": decided} for a, (d, decided) in versus.items()}}
    assert decide.still_open(row("0", a=(0.9, False)))
    assert not decide.still_open(row("0", a=(1.0, False), b=(1.2, False)))  # a tie at 1 never decides
    assert not decide.still_open(row("a", a=(0.5, True), b=(0.6, False)))   # b measured slower than a
    assert decide.still_open(row("a", a=(0.5, True), b=(0.4, False)))
    assert decide.verification_open(row("0", tuned=(0.5, False)))
    assert not decide.verification_open(row("0", tuned=(1.1, True)))


BUILTIN = {"collective=barrier": {"comm_type=intra": {"algorithm=MPIR_Barrier_intra_dissemination": {}}},
           "collective=allreduce": {"comm_type=intra": {"algorithm=MPIR_Allreduce_intra_recursive_doubling": {}},
                                    "comm_type=inter": {"algorithm=MPIR_Allreduce_inter_reduce_exchange_bcast": {}}}}


def stand_in_libmpich(tmp_path):
    """A file holding a selection tree as a string constant, as libmpich does."""
    path = tmp_path / "libmpich-stand-in.so"
    path.write_bytes(b"\x7fELF\x00{\"collective=oops\x00" + json.dumps(BUILTIN).encode() + b"\x00tail")
    return path


def test_mpich_files_are_the_librarys_own_tree_with_the_tuned_subtrees():
    """MPICH's file replaces its whole tree: a collective missing from it
    aborts the program (MPICH 4.0.2: mpir_coll.c:283 'cnt')."""
    data = b"junk\x00" + json.dumps(BUILTIN).encode() + b"\x00" + b'{"collective=x": {"comm_type=intra": ' \
        b'{"composition=MPIDI_X": {}}}}\x00'
    assert rules.embedded_json_trees(data)[0] == BUILTIN
    assert rules.mpich_builtin_tuning(data) == BUILTIN  # the MPIR-level one, not the composition
    merged = rules.merge_mpich_tuning(BUILTIN, rules.mpich_tuning({"allreduce": {4: [(0, "smp")]}}))
    assert merged["collective=barrier"] == BUILTIN["collective=barrier"]
    assert merged["collective=allreduce"]["comm_type=inter"] == BUILTIN["collective=allreduce"]["comm_type=inter"]
    assert merged["collective=allreduce"]["comm_type=intra"] == {
        "comm_size=any": {"avg_msg_size=any": {"algorithm=MPIR_Allreduce_intra_smp": {}}}}
    libmpich = Path("/usr/lib/x86_64-linux-gnu/libmpich.so.12")
    if libmpich.exists():
        builtin = rules.mpich_builtin_tuning(libmpich.read_bytes())
        assert "collective=barrier" in builtin and "collective=allreduce" in builtin


def test_mpich_tuning_writes_the_selection_json(tmp_path):
    result = tune(tmp_path / "out", "--mpi", "mpich", "--mpivars", str(FIXTURES / "mpivars"),
                  "--mpich-library", str(stand_in_libmpich(tmp_path)),
                  algorithms_model="recursive_doubling:0.5,smp:64=0.25,nb:1.0")
    assert result.returncode == 0, result.stdout + result.stderr
    written = json.loads((tmp_path / "out" / "mpich-coll-selection.json").read_text())
    assert written["collective=barrier"] == BUILTIN["collective=barrier"]  # the library's own, kept
    assert "comm_type=inter" in written["collective=allreduce"]
    parsed = rules.parse_mpich_tuning(json.dumps(written), only=("allreduce",))
    assert parsed == {"allreduce": [(None, [(63, "MPIR_Allreduce_intra_recursive_doubling"),
                                            (1023, "MPIR_Allreduce_intra_smp"),
                                            (None, "MPIR_Allreduce_intra_recursive_doubling")])]}


RD, RSAG, SMP = ({f"algorithm=MPIR_Allreduce_intra_{name}": {}}
                 for name in ("recursive_doubling", "reduce_scatter_allgather", "smp"))
# MPICH 4.0.2's own allreduce subtree (libmpich's built-in tree).
LIBRARY_ALLREDUCE = {"avg_msg_size<=0": {"is_commutative=yes": SMP, "is_commutative=no": RD},
                     "avg_msg_size<=8": RD,
                     "avg_msg_size=any": {"is_op_built_in=no": RD,
                                          "is_op_built_in=yes": {"count<pow2": RD, "count=any": RSAG}}}


def test_mpich_choices_keep_the_conditions_the_library_uses_them_under():
    """MPICH calls a file's algorithm unchecked: a bare reduce_scatter_allgather
    stopped a program whose allreduce used its own operation, and "auto"
    stopped MPI_Init. A choice keeps the library's conditions for it and hands
    the other calls back to the library's own subtree; the sizes are ours."""
    guarded = rules.guarded_choice
    assert guarded("allreduce", "reduce_scatter_allgather", LIBRARY_ALLREDUCE) == {
        "is_op_built_in=no": LIBRARY_ALLREDUCE,
        "is_op_built_in=yes": {"count<pow2": LIBRARY_ALLREDUCE, "count=any": RSAG}}
    assert guarded("allreduce", "smp", LIBRARY_ALLREDUCE) == {
        "is_commutative=yes": SMP, "is_commutative=no": LIBRARY_ALLREDUCE}
    # Unconditional somewhere (up to 8 bytes): unconditional.
    assert guarded("allreduce", "recursive_doubling", LIBRARY_ALLREDUCE) == RD
    # Never in the library's tree: no conditions known.
    assert guarded("allreduce", "nb", LIBRARY_ALLREDUCE) == {"algorithm=MPIR_Allreduce_allcomm_nb": {}}
    assert guarded("allreduce", "auto", LIBRARY_ALLREDUCE) == LIBRARY_ALLREDUCE
    # A size beside a condition is the library's preference, not a condition.
    bcast = {"comm_size<8": {"algorithm=MPIR_Bcast_intra_binomial": {}},
             "comm_size=pow2": {"avg_msg_size<=524288": {"algorithm=MPIR_Bcast_intra_scatter_ring_allgather": {}},
                                "avg_msg_size=any": {"algorithm=MPIR_Bcast_intra_binomial": {}}},
             "comm_size=any": {"algorithm=MPIR_Bcast_intra_binomial": {}}}
    assert guarded("bcast", "scatter_ring_allgather", bcast) == {
        "comm_size=pow2": {"algorithm=MPIR_Bcast_intra_scatter_ring_allgather": {}}, "comm_size=any": bcast}
    # Read back as a benchmark's call gets it (built-in commutative operation).
    tree = rules.mpich_tuning({"allreduce": {4: [(0, "auto"), (1024, "reduce_scatter_allgather"),
                                                 (65536, "smp")]}},
                              {"collective=allreduce": {"comm_type=intra": LIBRARY_ALLREDUCE}})
    assert rules.parse_mpich_tuning(json.dumps(tree)) == {"allreduce": [(None, [
        (1023, "auto"), (65535, "MPIR_Allreduce_intra_reduce_scatter_allgather"),
        (None, "MPIR_Allreduce_intra_smp")])]}
    with pytest.raises(ValueError, match="the library's own tree"):
        rules.mpich_tuning({"allreduce": {4: [(0, "auto")]}})


@pytest.mark.parametrize("arguments, message", [
    (["--mpi", "openmpi", "--collectives", "allreduce,scan2"], "--collectives: unknown scan2"),
    (["--collectives", "allreduce"], "cannot tell the MPI library from the launcher"),
    (["--mpi", "openmpi", "--ompi-info", "/nonexistent/ompi_info"], "cannot run"),
    (["--mpi", "openmpi", "--collectives", "allreduce,bcast"], "give one collective"),
    (["--mpi", "openmpi", "--arrival", "rank:0"], "--arrival:"),
    (["--mpi", "openmpi", "--max-runs", "9"], "--max-runs needs --until-decided"),
    (["--mpi", "openmpi", "--until-decided", "--max-time", "soon"], "--max-time 'soon'"),
    (["--mpi", "openmpi", "--timeout", "0"], "--timeout must be a positive"),
    (["--mpi", "openmpi", "--interleave", "--arrival", "rank:0:10us"], "--arrival with --interleave"),
    (["--mpi", "openmpi", "--interleave", "--interleave-run", "0"], "--interleave-run must be from 1"),
    (["--mpi", "openmpi", "--interleave", "--until-decided", "--max-runs", "0"],
     "--max-runs 0: deciding needs at least 1 run"),
])
def test_usage_errors_say_what_before_any_run(tmp_path, arguments, message):
    result = tune(tmp_path / "out", *arguments)
    assert result.returncode == 2, result.stdout + result.stderr
    assert message in result.stderr
    assert not (tmp_path / "out" / "allreduce").exists()


@pytest.mark.parametrize("where, message", [
    ("under-a-file", "cannot make the output directory"),
    ("proc", "cannot make the output directory"),
    ("table-a-directory", "table.txt is in the way"),
    ("collective-a-file", "allreduce is in the way"),
])
def test_an_unusable_output_directory_is_a_usage_error_before_any_run(tmp_path, where, message):
    """Once a traceback with status 1 (documented as "some runs failed"), after the runs."""
    output = tmp_path / "out"
    if where == "under-a-file":
        (tmp_path / "file").write_text("x")
        output = tmp_path / "file" / "out"
    elif where == "proc":
        output = Path("/proc/harmonize-tune-test")
    elif where == "table-a-directory":
        (output / "table.txt").mkdir(parents=True)
    else:
        output.mkdir()
        (output / "allreduce").write_text("x")
    result = tune(output, "--mpi", "openmpi", "--ompi-info", str(FIXTURES / "ompi_info"))
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.startswith("harmonize-tune: error: -o ") and message in result.stderr
    assert len(result.stderr.splitlines()) == 1 and "Traceback" not in result.stderr
    assert not (tmp_path / "out" / "allreduce" / "runs").exists()


def test_algorithm_names_are_each_collectives_own():
    """Open MPI numbers each collective's algorithms on its own (allreduce 2 is
    nonoverlapping, bcast 2 chain): a tuning of both once named allreduce's
    after bcast's in its table and CSV."""
    text = (FIXTURES / "ompi_info-4.1.4.txt").read_text()
    names = {c: dict(algorithms.parse_ompi_info(text, c)) for c in ("allreduce", "bcast")}
    comparison = {"delta": 1.2, "delta_low": 1.1, "delta_high": 1.3, "decided": True}
    rows = [{"operation": c, "processes": 2, "bytes": 8, "default": "0", "default_t_global": 1e-6,
             "versus": {"2": comparison}, "choice": "0", "tie": False} for c in ("allreduce", "bcast")]
    table = tables.table_text(rows, names)
    assert "2 nonoverlapping" in table.split("bcast")[0] and "2 chain" in table.split("bcast")[1]
    assert [line.split(",")[4] for line in tables.decisions_csv(rows, names).splitlines()[1:]] == \
        ["nonoverlapping", "chain"]


def test_mpich_tables_name_each_algorithm_once_in_aligned_columns():
    """MPICH's values are their names: the table printed each twice ("smp
    smp") and a long one broke the columns (issue 46.8)."""
    names = {"allreduce": {"auto": "auto", "smp": "smp", "recursive_doubling": "recursive_doubling"}}
    comparison = {"delta": 0.5, "delta_low": 0.4, "delta_high": 0.6, "decided": True}
    rows = [{"operation": "allreduce", "processes": 2, "bytes": 8, "default": "auto", "default_t_global": 1e-6,
             "versus": {"smp": comparison, "recursive_doubling": comparison}, "choice": "smp", "tie": False}]
    lines = tables.table_text(rows, names).splitlines()
    assert lines[1].split() == ["smp", "0.500", "[0.400,", "0.600]"]
    assert lines[2].split()[0] == "recursive_doubling" and lines[1].index("0.500") == lines[2].index("0.500")
    assert lines[3] == "    -> smp: 0.500 of the default's t_global"
    assert algorithms.label("3", {"3": "recursive_doubling"}) == "3 recursive_doubling"


def test_a_size_names_a_winner_by_chance_at_most_one_time_in_twenty():
    """Nine algorithms each compared at 95 % name a false winner at about one
    size in five; the comparisons of one size share the 5 % (Bonferroni)."""
    assert decide.family_level(1) == 0.95
    assert decide.family_level(9) == pytest.approx(1 - 0.05 / 9)
    assert decide.family_level(0) == 0.95
    assert per_call.z_of(0.95) == 1.96 and per_call.z_of(1 - 0.05 / 9) == pytest.approx(2.77, abs=0.01)


def test_a_collective_the_default_wins_everywhere_is_left_to_the_library():
    """Open MPI (0) and MPICH (auto) alike: a file's subtree that only says
    "the default" still costs every call its lookup (MPICH: bcast 1.19-1.30x
    per call where the file named the library's own subtree)."""
    for default in ("0", "auto"):
        choices = {"allreduce": {2: [(0, default)]}, "bcast": {2: [(0, default), (1024, "7")]}}
        assert rule_files.kept_choices(default, choices) == {"bcast": choices["bcast"]}
        assert rule_files.kept_choices(default, {"allreduce": choices["allreduce"]}) == {}
