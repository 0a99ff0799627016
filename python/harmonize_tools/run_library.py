"""harmonize-run's library: where libharmonize.so is looked for, and the
swap of a library built against the other MPI than the launcher's for the
build that matches it (or an error that says how to get one)."""
import os
import re
import sys
from pathlib import Path

from .common import MPI_NAMES, library_mpi

LIBRARY_NAME = "libharmonize.so"
# How to build for each MPI (README "Building against MPICH").
BUILD_FOR = {
    "mpich": ("build-mpich", "-DMPI_C_COMPILER=mpicc.mpich -DMPI_CXX_COMPILER=mpicxx.mpich "
                             "-DMPI_Fortran_COMPILER=mpif90.mpich -DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.mpich"),
    "openmpi": ("build-openmpi", "-DMPI_C_COMPILER=mpicc.openmpi -DMPI_CXX_COMPILER=mpicxx.openmpi "
                                 "-DMPI_Fortran_COMPILER=mpif90.openmpi -DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.openmpi"),
}
LAUNCHER_OF_MPI = {"openmpi": "mpiexec.openmpi", "mpich": "mpiexec.mpich"}


class UsageError(Exception):
    """Bad command line: exit status 2."""


class NotFound(Exception):
    """Launcher or library missing: exit status 127."""


def library_candidates(script_dir, environ):
    """Where to look for the library, in order, as (why, path) pairs."""
    candidates = []
    if environ.get("HARMONIZE_LIBRARY"):
        candidates.append(("$HARMONIZE_LIBRARY", Path(environ["HARMONIZE_LIBRARY"])))
    root = script_dir.parent
    candidates.append(("build tree", root / "build" / "lib" / LIBRARY_NAME))
    for libdir in ("lib", "lib64"):
        candidates.append(("install prefix", root / libdir / LIBRARY_NAME))
    for multiarch in sorted((root / "lib").glob("*-linux-gnu*")):
        candidates.append(("install prefix", multiarch / LIBRARY_NAME))
    return candidates


def other_builds(script_dir):
    """Further build trees beside the sources (build-mpich, ...): only ever taken
    in place of a library of the wrong MPI, never as a silent default."""
    return [("build tree", tree / "lib" / LIBRARY_NAME)
            for tree in sorted(script_dir.parent.glob("build?*")) if tree.name != "build"]


def find_library(explicit, script_dir, environ):
    """(absolute path, where it came from)."""
    if explicit:
        path = Path(explicit)
        if not path.is_file():
            raise NotFound(f"--library {explicit}: no such file")
        return Path(os.path.abspath(path)), "--library"
    candidates = library_candidates(script_dir, environ)
    for why, path in candidates:
        if path.is_file():
            # Absolute but not symlink-resolved: the name users see stays theirs.
            return Path(os.path.abspath(path)), why
    looked = "\n".join(f"  {path}  ({why})" for why, path in candidates)
    raise NotFound(f"cannot find {LIBRARY_NAME}; looked in:\n{looked}\n"
                   "build the project (cmake --build build) or pass --library PATH")


def check_preloadable(library, origin):
    """ld.so splits LD_PRELOAD at spaces and colons: such a path would preload
    nothing, and the program would run (and succeed) without the library."""
    bad = re.search(r"[\s:]", str(library))
    if bad:
        what = "a colon" if bad.group() == ":" else "a space"
        raise UsageError(f"{library} ({origin}) holds {what}, and the loader splits LD_PRELOAD at "
                         "spaces and colons, so the program would run without the library; "
                         "copy or symlink it to a path without spaces or colons and pass that")


def build_hint(mpi, script_dir):
    """One line's worth of how to build the library for `mpi`."""
    root = script_dir.parent
    sources = root if (root / "CMakeLists.txt").is_file() else Path("<harmonize sources>")
    tree, flags = BUILD_FOR[mpi]
    build = (root if sources == root else Path(".")) / tree
    return f"cmake -S {sources} -B {build} {flags} && cmake --build {build}"


def match_launcher_mpi(library, origin, kind, launcher, script_dir, environ):
    """(library, origin) to preload for a launcher of `kind`: a library of the
    other MPI aborts the program ('Invalid communicator' and the like)."""
    wanted = kind if kind in MPI_NAMES else None  # srun and singletons: any MPI
    have, needs = library_mpi(library)
    if wanted is None or have is None or have == wanted:
        return library, origin
    who = f"{Path(launcher).name} is {MPI_NAMES[wanted]}'s launcher" if launcher else \
        f"the launcher is {MPI_NAMES[wanted]}'s"
    mismatch = f"{library} ({origin}) is built against {MPI_NAMES[have]} (needs {needs}) but {who}"
    candidates = [c for c in library_candidates(script_dir, environ) + other_builds(script_dir)
                  if c[0] != "$HARMONIZE_LIBRARY"]
    matching, found_in = next(((Path(os.path.abspath(path)), why) for why, path in candidates
                               if path.is_file() and library_mpi(path)[0] == wanted), (None, None))
    if origin in ("--library", "$HARMONIZE_LIBRARY"):
        # The user named this file: say what to use instead rather than swap it.
        instead = f"pass --library {matching}" if matching else \
            f"build one for {MPI_NAMES[wanted]} ({build_hint(wanted, script_dir)})"
        raise UsageError(f"{mismatch}; {instead}, or run with {LAUNCHER_OF_MPI[have]}")
    if matching is None:
        raise NotFound(f"{mismatch}, and no {MPI_NAMES[wanted]} build was found; build one with: "
                       f"{build_hint(wanted, script_dir)} (or run with {LAUNCHER_OF_MPI[have]})")
    print(f"harmonize-run: note: {mismatch}: using the {MPI_NAMES[wanted]} build {matching}",
          file=sys.stderr, flush=True)
    return matching, found_in
