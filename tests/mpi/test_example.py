"""harmonize-example, the OSU-style benchmark bundled as a stand-in for real ones."""
import re

import pytest

from conftest import BIN, LIBRARY, run_mpi

EXAMPLE = BIN / "harmonize-example"
SHORT = ["-i", "50", "-x", "5"]  # keep the runs short on a shared 2-core machine
ROW = re.compile(r"^(\d+)((?:\s+\d+(?:\.\d+)?)+)$")


def parse(stdout):
    """(header lines, rows as lists of numbers) of the benchmark's output."""
    headers = [line for line in stdout.splitlines() if line.startswith("#")]
    rows = []
    for line in stdout.splitlines():
        if not line or line.startswith("#"):
            continue
        match = ROW.match(line)
        assert match, f"unexpected output line {line!r} in:\n{stdout}"
        rows.append([int(match.group(1))] + [float(x) for x in match.group(2).split()])
    return headers, rows


@pytest.mark.parametrize("ranks", [2, 4])
def test_default_run_prints_one_row_per_size(ranks):
    result = run_mpi(ranks, [EXAMPLE, *SHORT], preload=False, check=True)
    headers, rows = parse(result.stdout)
    assert headers[0] == "# harmonize example benchmark: MPI_Allreduce (OSU-style)"
    assert headers[1].split() == ["#", "Size", "Avg", "Latency(us)"]
    assert [row[0] for row in rows] == [4, 8, 16, 32, 64, 128, 256, 512, 1024]
    assert all(len(row) == 2 and row[1] > 0 for row in rows)


def test_full_output_adds_min_max_and_iterations():
    result = run_mpi(2, [EXAMPLE, "-f", "-m", "8:32", *SHORT], preload=False, check=True)
    headers, rows = parse(result.stdout)
    assert headers[1].split() == ["#", "Size", "Avg", "Latency(us)", "Min", "Latency(us)",
                                  "Max", "Latency(us)", "Iterations"]
    assert [row[0] for row in rows] == [8, 16, 32]
    for size, avg, low, high, iterations in rows:
        assert 0 < low <= avg <= high
        assert iterations == 50


@pytest.mark.parametrize("collective,mpi_name", [
    ("bcast", "MPI_Bcast"), ("reduce", "MPI_Reduce"), ("alltoall", "MPI_Alltoall"),
    ("allgather", "MPI_Allgather"), ("barrier", "MPI_Barrier")])
def test_every_collective_runs(collective, mpi_name):
    result = run_mpi(2, [EXAMPLE, "--collective", collective, "--message-size", "4:16", *SHORT],
                     preload=False, check=True)
    headers, rows = parse(result.stdout)
    assert mpi_name in headers[0]
    expected_sizes = [0] if collective == "barrier" else [4, 8, 16]
    assert [row[0] for row in rows] == expected_sizes
    assert all(row[1] > 0 for row in rows)


@pytest.mark.parametrize("arguments", [["--bogus"], ["-c", "scatter"], ["-m", "64:8"],
                                       ["-i", "0"], ["-x", "abc"], ["extra"]])
def test_bad_arguments_print_usage_and_fail(arguments):
    result = run_mpi(2, [EXAMPLE, *arguments], preload=False)
    assert result.returncode != 0
    assert "usage: harmonize-example" in result.stderr
    assert result.stderr.count("usage:") == 1  # rank 0 only
    assert not [line for line in result.stdout.splitlines() if ROW.match(line)]


def test_help_goes_to_stdout_and_succeeds():
    result = run_mpi(1, [EXAMPLE, "--help"], preload=False, check=True)
    assert "usage: harmonize-example" in result.stdout


@pytest.mark.skipif(not LIBRARY.exists(), reason="libharmonize.so not built")
def test_preloaded_in_off_mode_gives_the_same_output_shape():
    command = [EXAMPLE, "-f", "-m", "4:64", *SHORT]
    native = run_mpi(2, command, preload=False, check=True)
    preloaded = run_mpi(2, command, preload=True, check=True)  # HARMONIZE_MODE unset: off
    native_headers, native_rows = parse(native.stdout)
    preloaded_headers, preloaded_rows = parse(preloaded.stdout)
    assert preloaded_headers == native_headers
    assert [row[0] for row in preloaded_rows] == [row[0] for row in native_rows]
    assert all(len(row) == 5 and row[1] > 0 for row in preloaded_rows)
