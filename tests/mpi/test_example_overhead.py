"""harmonize-bench-overhead: the driver launches its own workers through mpiexec."""
import re
import subprocess

import pytest

from conftest import BIN, LIBRARY, MPIEXEC, clean_environment

BENCH = BIN / "harmonize-bench-overhead"


def run_bench(*arguments):
    return subprocess.run([str(BENCH), "--mpiexec", MPIEXEC, *arguments],
                          env=clean_environment(), capture_output=True, text=True, timeout=300)


def test_bad_option_prints_usage():
    result = run_bench("--frobnicate", "1")
    assert result.returncode == 2
    assert "usage: harmonize-bench-overhead" in result.stderr


def test_missing_library_is_named():
    result = run_bench("--library", "/nonexistent/libharmonize.so")
    assert result.returncode == 2
    assert "/nonexistent/libharmonize.so" in result.stderr


@pytest.mark.skipif(not LIBRARY.exists(), reason="libharmonize.so not built")
def test_table_has_both_cases_and_numbers():
    result = run_bench("--library", str(LIBRARY), "--rounds", "1",
                       "--self-calls", "20000", "--pair-calls", "2000")
    assert result.returncode == 0, result.stderr
    rows = {}
    for line in result.stdout.splitlines():
        cells = [cell.strip() for cell in line.split("|")]
        if len(cells) == 4 and cells[0].startswith("MPI_COMM"):
            rows[cells[0]] = [float(cell) for cell in cells[1:]]
    assert set(rows) == {"MPI_COMM_SELF, 1 rank", "MPI_COMM_WORLD, 2 ranks"}
    for native, preloaded, added in rows.values():
        assert native > 0 and preloaded > 0
        assert added == pytest.approx(preloaded - native, abs=0.11)
    assert re.search(r"^# reproduce: \S+harmonize-bench-overhead ", result.stdout, re.M)
