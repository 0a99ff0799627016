"""scripts/harmonize-run: library lookup, environment propagation per launcher,
exit status. Open MPI is run for real; MPICH and srun command lines are
checked with --dry-run and with fake launchers that print what they got."""
import os
import shlex
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from conftest import BIN, LIBRARY, MPI_FLAVOR, PYTHON_DIR, SOURCE_DIR, clean_environment  # noqa: E402

SCRIPT = SOURCE_DIR / "scripts" / "harmonize-run"
EXAMPLE = BIN / "harmonize-example"
needs_library = pytest.mark.skipif(not LIBRARY.exists(), reason=f"{LIBRARY} not built")
needs_openmpi = pytest.mark.skipif(MPI_FLAVOR != "openmpi" or not shutil.which("mpiexec"),
                                   reason="Open MPI mpiexec is the default launcher here")


def script_environment(**overrides):
    """No HARMONIZE_* at all (the test harness's own ones would be forwarded)."""
    env = {k: v for k, v in clean_environment().items() if not k.startswith("HARMONIZE_")}
    env.pop("LD_PRELOAD", None)
    env.update(overrides)
    return env


def copy_script(copy):
    """SCRIPT copied to `copy`, with the package where the launcher looks for it:
    <root>/python beside <root>/scripts, <root>/share/harmonize/python beside
    <root>/bin (a symbolic link to the sources' package)."""
    copy.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(SCRIPT, copy)
    root = copy.parent.parent
    place = root / "python" if copy.parent.name == "scripts" else root / "share" / "harmonize" / "python"
    place.mkdir(parents=True, exist_ok=True)
    (place / "harmonize_tools").symlink_to(PYTHON_DIR / "harmonize_tools")
    return copy


def run_script(args, env=None, script=SCRIPT, timeout=120):
    return subprocess.run([str(script)] + [str(a) for a in args], env=env or script_environment(),
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def fake_library(tmp_path):
    path = tmp_path / "fake" / "libharmonize.so"
    path.parent.mkdir()
    path.write_text("not really a library; only --dry-run uses it\n")
    return path


def dry_run(args, env=None):
    result = run_script(["--dry-run"] + list(args), env=env)
    assert result.returncode == 0, result.stderr
    return shlex.split(result.stdout.strip())


def split_assignments(words):
    """Leading NAME=value words of a dry-run line, and the command after them."""
    assignments = {}
    while words and "=" in words[0] and not words[0].startswith("-") and "/" not in words[0].split("=")[0]:
        name, _, value = words.pop(0).partition("=")
        assignments[name] = value
    return assignments, words


def write_fake_launcher(directory, name, version_text, exit_code=0):
    """A launcher that prints its argv and the variables it was handed."""
    directory.mkdir(exist_ok=True)
    path = directory / name
    path.write_text(f"""#!/bin/sh
if [ "$1" = "--version" ]; then printf '%s\\n' {shlex.quote(version_text)}; exit 0; fi
for a in "$@"; do printf 'ARG %s\\n' "$a"; done
env | grep -E '^(LD_PRELOAD|HARMONIZE_)' | sed 's/^/ENV /'
exit {exit_code}
""")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def test_help_documents_options():
    result = run_script(["--help"])
    assert result.returncode == 0
    for word in ("--mode", "--config", "--set", "--library", "--launcher", "--launcher-kind",
                 "--dry-run", "-x LD_PRELOAD", "-genv", "--export=ALL", "HARMONIZE_LIBRARY"):
        assert word in result.stdout, word


@pytest.mark.parametrize("args, message", [
    (["-n", "2", "./a.out"], "missing `--`"),
    (["--"], "no program"),
    (["--mode", "fast", "--", "x"], "expected one of off, observe, harmonize"),
    (["--launcher-kind", "lam", "--", "x"], "expected one of openmpi"),
    (["--set", "novalue", "--", "x"], "expected KEY=VALUE"),
    (["--config", "--", "x"], "needs a value"),
])
def test_usage_errors_exit_2(args, message):
    result = run_script(args)
    assert result.returncode == 2
    assert message in result.stderr


def test_missing_config_file_is_an_error(fake_library, tmp_path):
    result = run_script(["--library", fake_library, "--launcher-kind", "mpich", "--config",
                         tmp_path / "absent.env", "--dry-run", "--", "x"])
    assert result.returncode == 2 and "absent.env: no such file" in result.stderr


def test_library_not_found_lists_where_it_looked(tmp_path):
    copy = tmp_path / "prefix" / "bin" / "harmonize-run"
    copy.parent.mkdir(parents=True)
    copy_script(copy)
    result = run_script(["--launcher-kind", "mpich", "--dry-run", "--", "x"], script=copy)
    assert result.returncode == 127
    assert "cannot find libharmonize.so" in result.stderr
    assert str(tmp_path / "prefix" / "build" / "lib" / "libharmonize.so") in result.stderr
    assert str(tmp_path / "prefix" / "lib64" / "libharmonize.so") in result.stderr
    explicit = run_script(["--library", tmp_path / "nope.so", "--", "x"], script=copy)
    assert explicit.returncode == 127 and "nope.so: no such file" in explicit.stderr


@pytest.mark.parametrize("layout", ["build/lib", "lib", "lib64", "lib/x86_64-linux-gnu"])
def test_library_found_in_build_tree_and_install_prefix(tmp_path, layout):
    root = tmp_path / "root"
    copy = root / ("scripts" if layout.startswith("build") else "bin") / "harmonize-run"
    copy.parent.mkdir(parents=True)
    copy_script(copy)
    library = root / layout / "libharmonize.so"
    library.parent.mkdir(parents=True)
    library.write_text("")
    result = run_script(["--launcher-kind", "mpich", "--dry-run", "--", "x"], script=copy)
    assert result.returncode == 0, result.stderr
    assignments, _ = split_assignments(shlex.split(result.stdout))
    assert assignments["LD_PRELOAD"] == str(library)


def test_harmonize_library_variable_is_used_and_not_forwarded(fake_library):
    env = script_environment(HARMONIZE_LIBRARY=str(fake_library))
    assignments, command = split_assignments(dry_run(["--launcher-kind", "mpich", "--", "x"], env=env))
    assert assignments["LD_PRELOAD"] == str(fake_library)
    assert "HARMONIZE_LIBRARY" not in assignments and "HARMONIZE_LIBRARY" not in command


def test_mpich_command_line(fake_library, tmp_path, monkeypatch):
    preset = tmp_path / "preset.env"
    preset.write_text("HARMONIZE_SLACK=10us\n")
    env = script_environment(LD_PRELOAD="/opt/other.so", HARMONIZE_QUIET="1")
    monkeypatch.chdir(tmp_path)
    words = dry_run(["--library", fake_library, "--launcher-kind", "mpich", "--mode", "observe",
                     "--config", "preset.env", "--set", "slack=20us", "--set", "HARMONIZE_SYNC=hca3",
                     "-n", "2", "--", "./bench", "-f", "--mode", "x"], env=env)
    assignments, command = split_assignments(words)
    assert Path(command[0]).name.startswith("mpiexec")
    genv = {}
    rest = command[1:]
    while rest and rest[0] == "-genv":
        genv[rest[1]] = rest[2]
        rest = rest[3:]
    assert rest == ["-n", "2", "./bench", "-f", "--mode", "x"]
    assert genv["LD_PRELOAD"] == f"{fake_library}:/opt/other.so"  # ours first, theirs kept
    assert genv["HARMONIZE_MODE"] == "observe"
    assert genv["HARMONIZE_CONFIG"] == str(preset)  # made absolute
    assert genv["HARMONIZE_SLACK"] == "20us"
    assert genv["HARMONIZE_SYNC"] == "hca3"
    assert genv["HARMONIZE_QUIET"] == "1"  # from the caller's environment
    assert assignments == genv


def test_mpi_library_settings_are_handed_on_as_they_are(fake_library):
    """OMPI_MCA_* keeps its lower-case parameter name, MPIR_CVAR_* is upper
    case; neither gets the HARMONIZE_ prefix (issue 27, item 1)."""
    assignments, command = split_assignments(dry_run(
        ["--library", fake_library, "--launcher-kind", "openmpi",
         "--set", "OMPI_MCA_coll_tuned_use_dynamic_rules=1", "--set", "ompi_mca_btl=self,vader",
         "-n", "2", "--", "./bench"]))
    assert command[1:] == ["-x", "LD_PRELOAD", "-x", "OMPI_MCA_coll_tuned_use_dynamic_rules",
                           "-x", "OMPI_MCA_btl", "-n", "2", "./bench"]
    assert assignments["OMPI_MCA_coll_tuned_use_dynamic_rules"] == "1"
    assert assignments["OMPI_MCA_btl"] == "self,vader"
    words = dry_run(["--library", fake_library, "--launcher-kind", "mpich",
                     "--set", "mpir_cvar_allreduce_intra_algorithm=recursive_doubling", "--", "./bench"])
    assert words[words.index("-genv") + 3:words.index("-genv") + 6] == [
        "-genv", "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM", "recursive_doubling"]


@pytest.mark.parametrize("kind, setting, message", [
    ("openmpi", "MPIR_CVAR_BCAST_INTRA_ALGORITHM=binomial", "is MPICH's setting, but the launcher is Open MPI's"),
    ("mpich", "OMPI_MCA_coll_tuned_use_dynamic_rules=1", "is Open MPI's setting, but the launcher is MPICH's"),
])
def test_a_setting_of_the_other_mpi_is_a_usage_error(fake_library, kind, setting, message):
    result = run_script(["--library", fake_library, "--launcher-kind", kind, "--dry-run", "--set", setting,
                         "--", "./bench"])
    assert result.returncode == 2
    assert message in result.stderr and "it would change nothing" in result.stderr


def test_existing_preload_of_our_library_is_not_doubled(fake_library):
    env = script_environment(LD_PRELOAD=f"{fake_library} /x/y.so")
    assignments, _ = split_assignments(dry_run(["--library", fake_library, "--launcher-kind", "mpich",
                                                "--", "x"], env=env))
    assert assignments["LD_PRELOAD"] == f"{fake_library}:/x/y.so"


def test_srun_dry_run_without_srun_installed(fake_library, tmp_path):
    words = dry_run(["--library", fake_library, "--launcher-kind", "srun", "--mode", "harmonize",
                     "--set", "comms=world", "-N", "2", "--", "./bench"],
                    env=script_environment(PATH=str(tmp_path)))  # the script needs nothing on PATH
    _, command = split_assignments(words)
    assert command[0] == "srun"
    assert command[1] == (f"--export=ALL,LD_PRELOAD={fake_library},HARMONIZE_MODE=harmonize,"
                          "HARMONIZE_COMMS=world")
    assert command[2:] == ["-N", "2", "./bench"]


def test_fake_srun_receives_environment_and_exit_status(fake_library, tmp_path):
    fake_bin = tmp_path / "bin"
    write_fake_launcher(fake_bin, "srun", "slurm 23.02.6", exit_code=7)
    env = script_environment(PATH=f"{fake_bin}:{os.environ['PATH']}", LD_PRELOAD="/opt/theirs.so")
    result = run_script(["--library", fake_library, "--launcher", "srun", "--mode", "observe",
                         "--set", "report=/tmp/r,1.json", "-n", "4", "--", "./bench", "a b"], env=env)
    assert result.returncode == 7  # the launcher's (= program's) exit status
    args = [line[4:] for line in result.stdout.splitlines() if line.startswith("ARG ")]
    seen = dict(line[4:].split("=", 1) for line in result.stdout.splitlines() if line.startswith("ENV "))
    preload = f"{fake_library}:/opt/theirs.so"
    # A value holding a comma is passed by name (srun splits --export at commas).
    assert args[0] == f"--export=ALL,LD_PRELOAD={preload},HARMONIZE_MODE=observe,HARMONIZE_REPORT"
    assert args[1:] == ["-n", "4", "./bench", "a b"]
    assert seen["LD_PRELOAD"] == preload
    assert seen["HARMONIZE_MODE"] == "observe"
    assert seen["HARMONIZE_REPORT"] == "/tmp/r,1.json"


def test_fake_hydra_is_detected_as_mpich(fake_library, tmp_path):
    fake_bin = tmp_path / "bin"
    write_fake_launcher(fake_bin, "mpiexec", "HYDRA build details:\n    Version: 4.0.2")
    env = script_environment(PATH=f"{fake_bin}:{os.environ['PATH']}")
    result = run_script(["--library", fake_library, "--mode", "off", "-n", "2", "--", "./bench"], env=env)
    assert result.returncode == 0, result.stderr
    args = [line[4:] for line in result.stdout.splitlines() if line.startswith("ARG ")]
    assert args == ["-genv", "LD_PRELOAD", str(fake_library), "-genv", "HARMONIZE_MODE", "off",
                    "-n", "2", "./bench"]


def test_unknown_launcher_asks_for_kind(fake_library, tmp_path):
    fake_bin = tmp_path / "bin"
    write_fake_launcher(fake_bin, "mpiexec", "some other launcher 1.0")
    env = script_environment(PATH=f"{fake_bin}:{os.environ['PATH']}")
    result = run_script(["--library", fake_library, "--", "./bench"], env=env)
    assert result.returncode == 2
    assert "--launcher-kind" in result.stderr and "some other launcher" in result.stderr


def test_direct_kind_runs_without_launcher(fake_library):
    words = dry_run(["--library", fake_library, "--launcher-kind", "direct", "--mode", "observe",
                     "--", "./bench", "-x"])
    assignments, command = split_assignments(words)
    assert command == ["./bench", "-x"]
    assert assignments["HARMONIZE_MODE"] == "observe"


@needs_openmpi
def test_openmpi_dry_run_uses_x(fake_library):
    assignments, command = split_assignments(dry_run(
        ["--library", fake_library, "--mode", "observe", "--set", "quiet=1", "-n", "2", "--", "./bench"]))
    assert command[1:] == ["-x", "LD_PRELOAD", "-x", "HARMONIZE_MODE", "-x", "HARMONIZE_QUIET",
                           "-n", "2", "./bench"]
    assert assignments["HARMONIZE_QUIET"] == "1"


@needs_openmpi
@needs_library
def test_openmpi_ranks_see_preload_and_variables(tmp_path):
    """Two real ranks print their environment: every variable arrived."""
    env = script_environment(LD_PRELOAD="")
    result = run_script(["--library", LIBRARY, "--mode", "off", "--set", "quiet=1",
                         "--set", "OMPI_MCA_coll_tuned_use_dynamic_rules=1",
                         "--oversubscribe", "-n", "2", "--", "env"], env=env)
    assert result.returncode == 0, result.stderr
    ranks = [line for line in result.stdout.splitlines() if line.startswith("OMPI_COMM_WORLD_RANK=")]
    assert sorted(ranks) == ["OMPI_COMM_WORLD_RANK=0", "OMPI_COMM_WORLD_RANK=1"]
    lines = result.stdout.splitlines()
    assert lines.count(f"LD_PRELOAD={LIBRARY}") == 2
    assert lines.count("HARMONIZE_MODE=off") == 2
    assert lines.count("HARMONIZE_QUIET=1") == 2
    assert lines.count("OMPI_MCA_coll_tuned_use_dynamic_rules=1") == 2


@needs_openmpi
@needs_library
@pytest.mark.skipif(not EXAMPLE.exists(), reason="harmonize-example not built")
def test_openmpi_example_runs_preloaded_and_exit_status_is_kept():
    good = run_script(["--library", LIBRARY, "--oversubscribe", "-n", "2", "--",
                       EXAMPLE, "-m", "4:8", "-i", "50", "-x", "5"])
    assert good.returncode == 0, good.stderr
    assert "# Size" in good.stdout and len([row for row in good.stdout.splitlines() if row[:1].isdigit()]) == 2
    verbose = run_script(["--library", LIBRARY, "--set", "verbose=1", "--oversubscribe", "-n", "2", "--",
                          EXAMPLE, "-m", "4:4", "-i", "10", "-x", "1"])
    assert verbose.returncode == 0, verbose.stderr
    # The library itself answered: it was preloaded into the ranks.
    assert "harmonize:" in verbose.stderr
    bad = run_script(["--library", LIBRARY, "--oversubscribe", "-n", "2", "--", EXAMPLE, "--no-such-flag"])
    assert bad.returncode != 0


@pytest.mark.skipif(not shutil.which("mpiexec.mpich"), reason="MPICH's mpiexec.mpich not installed")
def test_mpich_hydra_ranks_see_preload_and_variables():
    """MPICH for real: detection from --version and -genv reach both ranks.
    `env` is not an MPI program, so a system library stands in for ours
    (libharmonize here is built against the default MPI)."""
    stand_in = next((p for p in (Path("/lib/x86_64-linux-gnu/libm.so.6"), Path("/usr/lib64/libm.so.6"))
                     if p.exists()), None)
    if stand_in is None:
        pytest.skip("no libm to preload as a stand-in")
    args = ["--launcher", "mpiexec.mpich", "--library", stand_in, "--mode", "observe",
            "--set", "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=recursive_doubling", "-n", "2", "--", "env"]
    result = run_script(args)
    # Hydra itself sometimes loses its control socket to a non-MPI program
    # that exits at once, on a loaded machine ("HYDU_sock_write ... Broken
    # pipe", seen once beside a CPU hog): Hydra's, not the script's; once more.
    if result.returncode != 0 and "HYDU_sock_write" in result.stderr:
        result = run_script(args)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert sorted(line for line in lines if line.startswith("PMI_RANK=")) == ["PMI_RANK=0", "PMI_RANK=1"]
    assert lines.count(f"LD_PRELOAD={stand_in}") == 2
    assert lines.count("HARMONIZE_MODE=observe") == 2
    assert lines.count("MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=recursive_doubling") == 2


# ------------------------------------------------ paths the loader cannot preload (issue 8, item 8)

@pytest.mark.parametrize("directory", ["with space", "with:colon", "tab\there"])
def test_library_path_the_loader_would_split_is_refused(tmp_path, directory):
    """ld.so splits LD_PRELOAD at spaces and colons: such a path would run the
    program without the library and exit 0. It is refused in one line."""
    library = tmp_path / directory / "libharmonize.so"
    library.parent.mkdir()
    library.write_text("")
    for args, env in ((["--library", library], None),
                      ([], script_environment(HARMONIZE_LIBRARY=str(library)))):
        result = run_script(args + ["--launcher-kind", "mpich", "--dry-run", "--", "./bench"], env=env)
        assert result.returncode == 2, result.stdout + result.stderr
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1, result.stderr
        assert lines[0].startswith("harmonize-run: error: ") and str(library) in lines[0]
        assert "LD_PRELOAD" in lines[0] and result.stdout == ""


def test_library_in_a_build_tree_under_a_path_with_a_space_is_refused(tmp_path):
    copy = tmp_path / "my checkout" / "scripts" / "harmonize-run"
    copy.parent.mkdir(parents=True)
    copy_script(copy)
    library = tmp_path / "my checkout" / "build" / "lib" / "libharmonize.so"
    library.parent.mkdir(parents=True)
    library.write_text("")
    result = run_script(["--launcher-kind", "mpich", "--dry-run", "--", "x"], script=copy)
    assert result.returncode == 2 and str(library) in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


@needs_openmpi
@needs_library
def test_real_run_with_a_library_path_holding_a_space_does_not_run_unpreloaded(tmp_path):
    """The audit's case end to end: the program must not run without the library."""
    spaced = tmp_path / "path with space"
    spaced.mkdir()
    (spaced / "libharmonize.so").symlink_to(LIBRARY)
    result = run_script(["--library", spaced / "libharmonize.so", "--mode", "observe",
                         "--oversubscribe", "-n", "1", "--", "env"])
    assert result.returncode == 2
    assert "OMPI_COMM_WORLD_RANK" not in result.stdout


# ------------------------------------------- the library's MPI vs the launcher's (issue 8, item 9)

def system_library(pattern):
    """A system library that needs one MPI's libmpi: it stands in for a
    libharmonize.so built against that MPI (only its DT_NEEDED is read)."""
    for directory in ("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib"):
        found = sorted(Path(directory).glob(pattern))
        if found:
            return found[0]
    pytest.skip(f"no {pattern} installed")


OPENMPI_STAND_IN = "libmpi_mpifh.so.40"   # needs libmpi.so.40
MPICH_STAND_IN = "libmpichfort.so.12"     # needs libmpich.so.12


def checkout_with_builds(tmp_path, builds):
    """A copy of the script in <root>/scripts and `builds` {tree: stand-in
    pattern} as <root>/<tree>/lib/libharmonize.so."""
    root = tmp_path / "checkout"
    copy = root / "scripts" / "harmonize-run"
    copy.parent.mkdir(parents=True)
    copy_script(copy)
    libraries = {}
    for tree, pattern in builds.items():
        library = root / tree / "lib" / "libharmonize.so"
        library.parent.mkdir(parents=True)
        shutil.copy(system_library(pattern), library)
        libraries[tree] = library
    return copy, libraries


@pytest.mark.parametrize("kind, wrong, right, builds", [
    ("mpich", "build", "build-mpich", {"build": OPENMPI_STAND_IN, "build-mpich": MPICH_STAND_IN}),
    ("openmpi", "build", "build-openmpi", {"build": MPICH_STAND_IN, "build-openmpi": OPENMPI_STAND_IN}),
])
def test_launcher_of_the_other_mpi_picks_the_matching_build(tmp_path, kind, wrong, right, builds):
    copy, libraries = checkout_with_builds(tmp_path, builds)
    result = run_script(["--launcher-kind", kind, "--dry-run", "--", "x"], script=copy)
    assert result.returncode == 0, result.stderr
    assignments, _ = split_assignments(shlex.split(result.stdout))
    assert assignments["LD_PRELOAD"] == str(libraries[right])
    # Said in one line, naming both builds.
    note = result.stderr.strip().splitlines()
    assert len(note) == 1 and note[0].startswith("harmonize-run: note: ")
    assert str(libraries[wrong]) in note[0] and str(libraries[right]) in note[0]


def test_hydra_launcher_detected_from_its_version_picks_the_mpich_build(tmp_path):
    copy, libraries = checkout_with_builds(tmp_path, {"build": OPENMPI_STAND_IN,
                                                      "build-mpich": MPICH_STAND_IN})
    fake = write_fake_launcher(tmp_path / "bin", "mpiexec.mpich", "HYDRA build details:\n    Version: 4.0.2")
    result = run_script(["--launcher", fake, "-n", "2", "--", "./bench"], script=copy)
    assert result.returncode == 0, result.stderr
    args = [line[4:] for line in result.stdout.splitlines() if line.startswith("ARG ")]
    assert args[:3] == ["-genv", "LD_PRELOAD", str(libraries["build-mpich"])]


def test_no_build_for_the_launchers_mpi_says_how_to_build_one(tmp_path):
    copy, libraries = checkout_with_builds(tmp_path, {"build": OPENMPI_STAND_IN})
    result = run_script(["--launcher-kind", "mpich", "--dry-run", "--", "x"], script=copy)
    assert result.returncode == 127 and result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("harmonize-run: error: ")
    assert str(libraries["build"]) in lines[0] and "Open MPI" in lines[0] and "MPICH" in lines[0]
    assert "cmake" in lines[0] and "mpicc.mpich" in lines[0]


def test_explicit_library_of_the_other_mpi_is_refused(tmp_path):
    """--library is the user's choice: not replaced, refused, pointing at the right build."""
    copy, libraries = checkout_with_builds(tmp_path, {"build": OPENMPI_STAND_IN,
                                                      "build-mpich": MPICH_STAND_IN})
    for args, env in ((["--library", libraries["build"]], None),
                      ([], script_environment(HARMONIZE_LIBRARY=str(libraries["build"])))):
        result = run_script(args + ["--launcher-kind", "mpich", "--dry-run", "--", "x"], script=copy, env=env)
        assert result.returncode == 2, result.stdout + result.stderr
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("harmonize-run: error: ")
        assert "Open MPI" in lines[0] and str(libraries["build-mpich"]) in lines[0]
    # The matching one is taken as given.
    ok = run_script(["--library", libraries["build-mpich"], "--launcher-kind", "mpich", "--dry-run", "--", "x"],
                    script=copy)
    assert ok.returncode == 0 and ok.stderr == ""


@pytest.mark.parametrize("kind", ["srun", "direct"])
def test_launchers_of_no_particular_mpi_take_the_library_as_found(tmp_path, kind):
    copy, libraries = checkout_with_builds(tmp_path, {"build": MPICH_STAND_IN, "build-openmpi": OPENMPI_STAND_IN})
    result = run_script(["--launcher-kind", kind, "--dry-run", "--", "x"], script=copy)
    assert result.returncode == 0 and result.stderr == ""
    assert split_assignments(shlex.split(result.stdout))[0]["LD_PRELOAD"] == str(libraries["build"])


def mpich_build():
    """An MPICH build tree (HZTEST_MPICH_BUILD_DIR, else build-mpich beside the sources)."""
    build = Path(os.environ.get("HZTEST_MPICH_BUILD_DIR", SOURCE_DIR / "build-mpich"))
    ready = (build / "lib" / "libharmonize.so").exists() and (build / "bin" / "harmonize-example").exists()
    return build if ready else None


@needs_library
@pytest.mark.skipif(not shutil.which("mpiexec.mpich"), reason="MPICH's mpiexec.mpich not installed")
@pytest.mark.skipif(mpich_build() is None, reason="no MPICH build (set HZTEST_MPICH_BUILD_DIR)")
def test_mpich_launcher_runs_with_the_mpich_build_for_real(tmp_path):
    """The audit's case: `--launcher mpiexec.mpich` in a checkout whose build/ is
    Open MPI aborted with 'Invalid communicator'; the MPICH build is taken."""
    root = tmp_path / "checkout"
    (root / "scripts").mkdir(parents=True)
    copy_script(root / "scripts" / "harmonize-run")
    (root / "build").symlink_to(LIBRARY.parent.parent)
    (root / "build-mpich").symlink_to(mpich_build())
    result = run_script(["--launcher", "mpiexec.mpich", "--mode", "observe", "--set", "report=none",
                         "-n", "2", "--", mpich_build() / "bin" / "harmonize-example",
                         "-m", "4:4", "-i", "20", "-x", "2"], script=root / "scripts" / "harmonize-run")
    assert result.returncode == 0, result.stderr
    assert "using the MPICH build" in result.stderr
    assert "harmonize: mode=observe 2 ranks" in result.stderr  # the library ran in both ranks


# ---------------------------------------------------------------- Slurm (docs/launcher.md, "Slurm")
# The real srun is run by tests/mpi/test_slurm.py; here, what the script decides.

from harmonize_tools import slurm_launch  # noqa: E402


@pytest.mark.parametrize("mpi, requested, default, available, added, said", [
    # The site's default cannot start the MPI: the plugin it needs is added.
    ("openmpi", None, "none", ["pmix", "none", "pmi2", "pmix_v4"], ["--mpi=pmix"],
     "note: srun's default MPI plugin here is 'none', with which Open MPI ranks abort in MPI_Init: "
     "adding --mpi=pmix"),
    ("mpich", None, "none", None, ["--mpi=pmi2"],
     "note: srun's default MPI plugin here is 'none', with which MPICH ranks start as separate "
     "singletons: adding --mpi=pmi2"),
    ("mpich", None, "pmix", ["pmix", "pmi2"], ["--mpi=pmi2"], "adding --mpi=pmi2"),
    # A default that works, or none known: nothing added, nothing said.
    ("openmpi", None, "pmix_v4", None, [], None),
    ("mpich", None, "pmi2", None, [], None),
    ("openmpi", None, None, None, [], None),
    # The user's own choice is kept; a known bad one is warned about.
    ("mpich", "none", None, None, [], "warning: srun --mpi=none: MPICH ranks need --mpi=pmi2"),
    ("openmpi", "pmix_v4", None, None, [], None),
    # The needed plugin is not built into this Slurm: said, not added.
    ("openmpi", None, "none", ["none", "pmi2"], [],
     "warning: srun's default MPI plugin here is 'none' and it has no pmix plugin"),
    # A library whose MPI cannot be told: srun is left alone.
    (None, None, "none", None, [], None),
])
def test_srun_mpi_plugin_advice(mpi, requested, default, available, added, said):
    got_added, note = slurm_launch.plugin_advice(mpi, requested, default, available)
    assert got_added == added
    if said is None:
        assert note is None
    else:
        assert note is not None and said in note, note


@pytest.mark.parametrize("args, merged, users", [
    # --export=NONE keeps nothing of the caller's but ours.
    (["--export=NONE", "-n", "2", "./a.out"], ["--export=L=1,M", "-n", "2", "./a.out"], "NONE"),
    (["-n", "2", "--export", "FOO=1", "./a.out"], ["-n", "2", "--export=FOO=1,L=1,M", "./a.out"], "FOO=1"),
    (["--export=ALL,X=2", "./a.out"], ["--export=ALL,X=2,L=1,M", "./a.out"], "ALL,X=2"),
    # The program's own --export is the program's; the last of srun's wins.
    (["-n", "2", "./a.out", "--export=x"], ["-n", "2", "./a.out", "--export=x"], None),
    (["--export=A", "--export=NONE", "./a.out"], ["--export=A", "--export=L=1,M", "./a.out"], "NONE"),
])
def test_srun_export_of_the_user_carries_ours(args, merged, users):
    assert slurm_launch.merge_export(args, ["L=1", "M"]) == (merged, users)


def test_srun_options_end_where_the_program_starts():
    assert slurm_launch.launcher_options_end(["-n", "2", "--mpi=pmix", "./a", "-m", "8"]) == 3
    assert slurm_launch.requested_plugin(["-n", "2", "./a", "--mpi=none"]) is None
    assert slurm_launch.requested_plugin(["--mpi", "pmi2", "./a"]) == "pmi2"


def test_allocation_step_only_inside_an_allocation_and_without_a_launcher(tmp_path):
    inside = {"SLURM_JOB_ID": "7"}
    if shutil.which("srun"):
        assert slurm_launch.allocation_step(["./bench", "-x"], inside) == ["srun", "./bench", "-x"]
    assert slurm_launch.allocation_step(["./bench"], {}) == ["./bench"]
    assert slurm_launch.allocation_step(["./bench"], {**inside, "SLURM_STEP_ID": "0"}) == ["./bench"]
    assert slurm_launch.allocation_step(["mpirun", "-n", "2", "./b"], inside) == ["mpirun", "-n", "2", "./b"]


def test_srun_after_the_separator_is_the_launcher(fake_library, tmp_path):
    words = dry_run(["--library", fake_library, "--mode", "observe", "--launcher-kind", "srun", "--",
                     "srun", "--export=NONE", "-n", "2", "./bench"],
                    env=script_environment(PATH=str(tmp_path)))
    _, command = split_assignments(words)
    assert command == ["srun", f"--export=LD_PRELOAD={fake_library},HARMONIZE_MODE=observe", "-n", "2",
                       "./bench"]
