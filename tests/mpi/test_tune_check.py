"""harmonize-tune --check FILE (issue 46.5): Open MPI 4.1 falls back to its
own choice, silently and with status 0, on a rules file it cannot read
(truncated, text, a wrong count, missing). The check reads the file
strictly, then runs each rule with a witness program (one call with the
file, forced, alone) and says whether the MPI runs what the file says."""
import os
import shutil
import stat
import subprocess

import pytest

from conftest import MPI_FLAVOR, MPIEXEC, SOURCE_DIR, clean_environment

pytestmark = pytest.mark.skipif(MPI_FLAVOR != "openmpi", reason="Open MPI's rules files")
TUNE = SOURCE_DIR / "scripts" / "harmonize-tune"
# reduce (11): chain from 0 B, binomial from 1 KiB; bcast (7): basic_linear from 0 B.
GOOD = "2\n11\n1\n4\n2\n0 2 4 0\n1024 5 4 0\n7\n1\n4\n1\n0 1 4 0\n"


def check(path, launcher=MPIEXEC):
    env = clean_environment()
    return subprocess.run([str(TUNE), "--mpi", "openmpi", "--check", str(path), "--", str(launcher)], env=env,
                          capture_output=True, text=True, timeout=600)


def test_a_file_the_mpi_obeys_is_said_so_rule_by_rule(tmp_path):
    (tmp_path / "rules.conf").write_text(GOOD)
    result = check(tmp_path / "rules.conf")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "reduce P=4 rule from 0 B (run at 1 B): 2 chain: obeyed\n" in result.stdout
    assert "reduce P=4 rule from 1024 B (run at 1024 B): 5 binomial: obeyed\n" in result.stdout
    assert "bcast P=4 rule from 0 B (run at 1 B): 1 basic_linear: obeyed\n" in result.stdout


@pytest.mark.parametrize("text, message", [
    (GOOD[:-9], "ends early"),                              # truncated
    ("use binomial for bcast\n", "'use' is not a number"),  # text
    ("3" + GOOD[1:], "ends early"),                         # 3 collectives said, 2 given
    ("1" + GOOD[1:], "numbers left over"),                  # 1 said, 2 given
    (None, "No such file"),
])
def test_a_file_open_mpi_would_ignore_is_a_usage_error(tmp_path, text, message):
    path = tmp_path / "rules.conf"
    if text is not None:
        path.write_text(text)
    result = check(path)
    assert result.returncode == 2, result.stdout + result.stderr
    assert message in result.stderr and len(result.stderr.splitlines()) == 1


def test_an_algorithm_the_mpi_has_not_fails_the_check(tmp_path):
    (tmp_path / "rules.conf").write_text("1\n7\n1\n4\n1\n0 42 4 0\n")
    result = check(tmp_path / "rules.conf")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Open MPI's bcast has no algorithm 42" in result.stdout


def test_a_file_the_mpi_does_not_read_is_not_obeyed(tmp_path):
    """A launcher that loses the file's name on the way (as a wrong path,
    or a library without dynamic rules, would): the calls with the file do
    what the library does alone, and the check fails."""
    wrapper = tmp_path / "mpiexec-losing-the-file"
    launcher = shutil.which(str(MPIEXEC))
    wrapper.write_text(f"""#!/usr/bin/python3
import os, sys
name = "OMPI_MCA_coll_tuned_dynamic_rules_filename"
os.environ.pop(name, None)
argv, words = [], iter(sys.argv[1:])
for word in words:
    following = next(words, None) if word == "-x" else None
    if word == "-x" and following != name:
        argv += [word, following]
    elif word != "-x":
        argv.append(word)
os.execv({launcher!r}, [{launcher!r}, *argv])
""")
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    (tmp_path / "rules.conf").write_text("1\n11\n1\n4\n1\n0 2 4 0\n")
    result = check(tmp_path / "rules.conf", wrapper)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "2 chain: NOT OBEYED: the library's own choice ran" in result.stdout
    assert os.path.exists(tmp_path / "rules.conf")


def test_a_tuning_checks_the_file_it_wrote_with_its_own_launcher(tmp_path, monkeypatch):
    """At the end of a tuning the written file is read back and checked on
    the benchmark's launcher, less its process count (check.check_written)."""
    import argparse
    from harmonize_tools.tune import check as check_module, rule_files
    for name, value in clean_environment().items():
        monkeypatch.setenv(name, value)
    path = tmp_path / "ompi-coll-rules.conf"
    rule_files.write_rules(path, "openmpi", {"reduce": {4: [(0, "2"), (64, "0")]}}, "test", None,
                           {"reduce": (4, 0)})
    args = argparse.Namespace(ompi_info="ompi_info", mpivars="mpivars", quiet=True)
    assert check_module.check_written(args, path, [str(MPIEXEC), "-n", "2", "/bin/true", "-m", "4:64"], tmp_path)
    text = (tmp_path / "check.txt").read_text()
    assert "reduce P=4 rule from 0 B (run at 1 B): 2 chain: obeyed\n" in text
    assert "reduce P=4 rule from 64 B (run at 64 B): 0 ignore: obeyed (" in text


def test_the_gathers_alltoall_and_scatter_are_checked_in_open_mpis_units(tmp_path, monkeypatch):
    """Open MPI compares these collectives' rules with the bytes of all
    processes (a process's block times the communicator size), while
    harmonize-tune's choices, like OSU's sizes, are a process's: a tuned
    ring from 256 B a process must be written from 1024 B on 4 processes, or
    it starts 4x too late. The witness runs each rule at a process's block
    inside it; allgather linear is a gather then a bcast, whose own
    algorithms the file decides (basic_linear gather here, not the library's
    binomial) when it is forced too."""
    from harmonize_tools.tune import rule_files
    path = tmp_path / "ompi-coll-rules.conf"
    choices = {"allgather": {4: [(0, "1"), (256, "4")]}, "alltoall": {4: [(0, "1")]},
               "gather": {4: [(0, "1")]}, "scatter": {4: [(0, "1")]}}
    rule_files.write_rules(path, "openmpi", choices, "test", None, {})
    assert "\n1024 4 0 0\n" in path.read_text()
    result = check(path)
    assert result.returncode == 0, result.stdout + result.stderr
    for line in ["allgather P=4 rule from 0 B (run at 1 B a process, 4 B in all): 1 linear: obeyed\n",
                 "allgather P=4 rule from 1024 B (run at 256 B a process, 1024 B in all): 4 ring: obeyed\n",
                 "alltoall P=4 rule from 0 B (run at 1 B a process, 4 B in all): 1 linear: obeyed\n",
                 "gather P=4 rule from 0 B (run at 1 B a process, 4 B in all): 1 basic_linear: obeyed\n",
                 "scatter P=4 rule from 0 B (run at 1 B a process, 4 B in all): 1 basic_linear: obeyed\n"]:
        assert line in result.stdout, result.stdout
