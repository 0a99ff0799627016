"""harmonize-tune's output directory, checked before any run: a directory
that cannot be made or written, or one of our names taken by something else
(table.txt a directory, allreduce/ a file), is a usage error naming it, not
a traceback after the runs."""
import tempfile
from pathlib import Path

from .benchmark import UsageError
from .rule_files import ARRIVAL_RULES_FILE, RULES_FILE, USUAL_RULES_FILE

TABLES = ("table.txt", "decisions.csv", "table-arrival.txt", "decisions-arrival.csv", "verification.txt",
          "verification.csv", "check.txt")


def planned(mpi, collectives):
    """(files, directories) harmonize-tune may write in its output directory."""
    files = [*TABLES, RULES_FILE[mpi], USUAL_RULES_FILE[mpi], ARRIVAL_RULES_FILE[mpi]]
    directories = ["verify", *(c + suffix for c in collectives for suffix in ("", "-arrival", "-usual"))]
    return files, directories


def prepare_output(output, mpi, collectives):
    """Makes `output` (UsageError when it cannot be made, written, or holds
    something else under one of our names)."""
    output = Path(output)
    try:
        output.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UsageError(f"-o {output}: cannot make the output directory: {error.strerror or error}") from error
    if not output.is_dir():
        raise UsageError(f"-o {output}: not a directory")
    try:
        with tempfile.TemporaryFile(dir=output):
            pass
    except OSError as error:
        raise UsageError(f"-o {output}: cannot write in it: {error.strerror or error}") from error
    files, directories = planned(mpi, collectives)
    for name in files:
        if (output / name).exists() and not (output / name).is_file():
            raise UsageError(f"-o {output}: {output / name} is in the way: harmonize-tune writes a file there")
    for name in directories:
        if (output / name).exists() and not (output / name).is_dir():
            raise UsageError(f"-o {output}: {output / name} is in the way: harmonize-tune writes a "
                             "directory there")
