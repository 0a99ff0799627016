"""The library exports the MPI entry points it intercepts and the public API,
nothing else (src/shim/exports.map lets patterns through; this holds them to
the list the sources declare): an exported helper would override the
program's own symbol of that name."""
import re
import subprocess

from conftest import LIBRARY, SOURCE_DIR

FORTRAN_MANGLINGS = ("{}", "{}_", "{}__", "{}_f08_")
# The calls that complete, free or cancel a request (request_entry_points.cpp):
# where a non-blocking collective ends.
REQUEST_CALLS = ("wait", "test", "waitall", "testall", "waitany", "testany", "waitsome",
                 "testsome", "request_free", "cancel")


def collectives():
    """The timed collectives as collective_kind.hpp lists them: (lower,
    Mixed, UPPER) per line of HARMONIZE_TIMED_COLLECTIVES."""
    header = (SOURCE_DIR / "src" / "common" / "collective_kind.hpp").read_text()
    table = re.search(r"#define HARMONIZE_TIMED_COLLECTIVES\(X\)(.*?)\n\n", header, re.S).group(1)
    rows = re.findall(r"X\((\w+), (\w+), (\w+),", table)
    assert len(rows) == 16, rows
    return rows


def expected_exports():
    expected = {"MPIX_Harmonize", "MPIX_Harmonize_last_flag", "MPIX_Harmonize_gettime", "MPI_Comm_free",
                "MPI_Comm_get_attr", "MPI_Wtime", "MPI_WTIME", "MPI_Wtime_f08", "MPIX_HARMONIZE_GETTIME"}
    expected |= {mangling.format("mpi_wtime") for mangling in FORTRAN_MANGLINGS}
    expected |= {mangling.format("mpix_harmonize_gettime") for mangling in FORTRAN_MANGLINGS[:3]}
    for entry in ("init", "init_thread", "finalize", "barrier"):
        expected |= {f"MPI_{entry.capitalize()}", f"MPI_{entry.upper()}"}
        expected |= {mangling.format(f"mpi_{entry}") for mangling in FORTRAN_MANGLINGS}
    for lower, mixed, upper in collectives():
        assert mixed == lower.capitalize() and upper == lower.upper()
        expected |= {f"MPI_{mixed}", f"MPI_{upper}", f"mpi_{lower}_f08ts_"}
        expected |= {mangling.format(f"mpi_{lower}") for mangling in FORTRAN_MANGLINGS}
    # Their non-blocking forms (MPI_I<lower>) and MPI_Ibarrier, started here
    # and ended by the request calls.
    for lower in [row[0] for row in collectives()] + ["barrier"]:
        expected |= {f"MPI_I{lower}", f"MPI_I{lower.upper()}", f"mpi_i{lower}_f08ts_"}
        expected |= {mangling.format(f"mpi_i{lower}") for mangling in FORTRAN_MANGLINGS}
    for call in REQUEST_CALLS:
        expected |= {f"MPI_{call.capitalize()}", f"MPI_{call.upper()}", f"mpi_{call}_f08ts_"}
        expected |= {mangling.format(f"mpi_{call}") for mangling in FORTRAN_MANGLINGS}
    return expected


def test_only_the_entry_points_and_the_public_api_are_exported():
    symbols = subprocess.run(["nm", "-D", "--defined-only", str(LIBRARY)], capture_output=True,
                             text=True, check=True).stdout
    exported = {line.split()[-1] for line in symbols.splitlines() if line.strip()}
    expected = expected_exports()
    assert exported - expected == set(), "exported beyond the entry points and the API"
    assert expected - exported == set(), "an entry point is not exported"
