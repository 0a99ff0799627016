"""Bad input stops the whole job before the program runs, with one clear
line naming the variable, the value and what is accepted."""
import os
import re
import subprocess
from pathlib import Path

import pytest

from conftest import (BIN, LIBRARY, MPI_FLAVOR, MPIEXEC, PROGRAMS, SOURCE_DIR, clean_environment,
                      run_mpi)

CASES = [
    ({"HARMONIZE_MODE": "fast"},
     "HARMONIZE_MODE='fast' is not valid: expected one of off, observe, harmonize"),
    ({"HARMONIZE_SLACK": "20"},
     "HARMONIZE_SLACK='20' is not valid: expected 'auto' or a duration with unit ns, us, ms or s"),
    ({"HARMONIZE_MISS_TARGET": "0.5"},
     "HARMONIZE_MISS_TARGET='0.5' is not valid: expected a percentage, from 0.1% to 50%"),
    ({"HARMONIZE_SLACK_GROWTH": "1.1"},
     "HARMONIZE_SLACK_GROWTH='1.1' is no longer read: the slack is no longer grown by a factor"),
    ({"HARMONIZE_FITPOINTS": "many"},
     "HARMONIZE_FITPOINTS='many' is not valid: expected a whole number"),
    ({"HARMONIZE_QUIET": "yes"}, "HARMONIZE_QUIET='yes' is not valid: expected 0 or 1"),
    ({"HARMONIZE_SLAK": "20us"},
     "unknown variable HARMONIZE_SLAK='20us'; did you mean HARMONIZE_SLACK?"),
    ({"HARMONIZE_CONFIG": "/nonexistent/preset.env"},
     "HARMONIZE_CONFIG='/nonexistent/preset.env' cannot be read: No such file or directory"),
    ({"HARMONIZE_SLACK_MIN": "10us", "HARMONIZE_SLACK_MAX": "1us"},
     "is larger than HARMONIZE_SLACK_MAX='1us'"),
    ({"HARMONIZE_RESYNC_INTERVAL": "100us"},
     "HARMONIZE_RESYNC_INTERVAL='100us' is not valid: expected a duration with unit ns, us, ms or s, from 1ms"),
    ({"HARMONIZE_COMMS": "sub"}, "HARMONIZE_COMMS='sub' is not valid: expected one of all, world"),
    ({"HARMONIZE_TEST_CLOCK_DRIFT": "50"},
     "HARMONIZE_TEST_CLOCK_DRIFT='50' is not valid: expected a drift with unit ppm"),
    ({"HARMONIZE_MODE": "harmonize", "HARMONIZE_ARRIVAL": "rank:x:1us"},
     "HARMONIZE_ARRIVAL='rank:x:1us' is not valid: rank 'x' is not a whole number from 0 to 2147483647; "
     "expected none, rank:R:DELAY"),
    ({"HARMONIZE_MODE": "observe", "HARMONIZE_ARRIVAL": "rank:0:1us"},
     "HARMONIZE_ARRIVAL='rank:0:1us' needs HARMONIZE_MODE=harmonize"),
    ({"HARMONIZE_MODE": "observe", "HARMONIZE_ALTERNATE": "1"},
     "HARMONIZE_ALTERNATE='1' needs HARMONIZE_MODE=harmonize"),
    ({"HARMONIZE_MODE": "harmonize", "HARMONIZE_INTERLEAVE": "A late:ARRIVAL=rank:0:1us,MODE=observe"},
     "HARMONIZE_INTERLEAVE='A late:ARRIVAL=rank:0:1us,MODE=observe' is not valid: side 'late': "
     "ARRIVAL needs MODE=harmonize"),
    ({"HARMONIZE_MODE": "harmonize", "HARMONIZE_INTERLEAVE": "B late:ARRIVAL=rank:5:1us"},
     "HARMONIZE_INTERLEAVE side 'late': HARMONIZE_ARRIVAL='rank:5:1us' does not fit this job: "
     "there is no rank 5"),
    ({"HARMONIZE_MODE": "observe", "HARMONIZE_INTERLEAVE": "A B"},
     "HARMONIZE_INTERLEAVE='A B' needs HARMONIZE_MODE=harmonize"),
    ({"HARMONIZE_WTIME": "global"},
     "HARMONIZE_WTIME='global' needs HARMONIZE_MODE observe or harmonize"),
    # Known only once the job is: checked in MPI_Init, stopped all the same.
    ({"HARMONIZE_MODE": "harmonize", "HARMONIZE_ARRIVAL": "rank:5:1us"},
     "HARMONIZE_ARRIVAL='rank:5:1us' does not fit this job: there is no rank 5: the job has 2 "
     "processes, ranks 0 to 1"),
    ({"HARMONIZE_REPORT": "x.json", "HARMONIZE_MODE": "observe", "HARMONIZE_SYNC": "ntp"},
     "HARMONIZE_SYNC='ntp' is not valid: expected one of h2hca, hca3, h3hca"),
]


@pytest.mark.parametrize("env,message", CASES, ids=[list(c[0])[-1] for c in CASES])
@pytest.mark.parametrize("nprocs", [2])
def test_bad_input_stops_the_job(env, message, nprocs):
    result = run_mpi(nprocs, [PROGRAMS / "barrier_loop"], env=env)
    assert result.returncode != 0
    errors = [line for line in result.stderr.splitlines() if line.startswith("harmonize: error:")]
    assert any(message in line for line in errors), result.stderr
    # Printed once (by the lowest failing rank), and the program never ran.
    assert sum(message in line for line in errors) == 1
    assert "program started" not in result.stdout


@pytest.mark.parametrize("content,says", [
    ("# comment\nHARMONIZE_MODE=observe\nslack is 20us\n",
     "line 3: expected KEY=VALUE, got 'slack is 20us'"),
    ("HARMONIZE_SYNC=ntp\n",
     "line 1: HARMONIZE_SYNC='ntp' is not valid: expected one of h2hca, hca3, h3hca"),
], ids=["malformed-line", "bad-value"])
def test_bad_preset_line_names_file_and_line(tmp_path, content, says):
    preset = tmp_path / "bad.env"
    preset.write_text(content)
    result = run_mpi(2, [PROGRAMS / "barrier_loop"], env={"HARMONIZE_CONFIG": preset})
    assert result.returncode != 0
    assert f"HARMONIZE_CONFIG={preset}: {says}" in result.stderr
    assert "program started" not in result.stdout


def test_valid_preset_is_accepted(tmp_path):
    preset = tmp_path / "ok.env"
    preset.write_text("HARMONIZE_VERBOSE=1\n")
    result = run_mpi(2, [PROGRAMS / "barrier_loop", "2"], env={"HARMONIZE_CONFIG": preset}, check=True)
    assert "HARMONIZE_VERBOSE" in result.stderr and f"(preset {preset})" in result.stderr


def test_ranks_with_different_configurations_stop_the_job():
    # One rank observing, the other off, would wait in collectives the other
    # never starts: the job must stop with a clear line instead of hanging.
    program = str(PROGRAMS / "barrier_loop")
    if MPI_FLAVOR == "openmpi":
        cmd = [MPIEXEC, "--oversubscribe", "-n", "1", "-x", "HARMONIZE_MODE=observe", program, ":",
               "-n", "1", "-x", "HARMONIZE_MODE=off", program]
    else:
        cmd = [MPIEXEC, "-n", "1", "-env", "HARMONIZE_MODE", "observe", program, ":",
               "-n", "1", "-env", "HARMONIZE_MODE", "off", program]
    # A rank in mode off joins no collective at all (pure pass-through), so the
    # observing rank sees a rank that never joins: the start-up timeout.
    env = clean_environment(LD_PRELOAD=str(LIBRARY), HARMONIZE_STARTUP_TIMEOUT="2s")
    result = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode != 0
    assert ("harmonize: error: HARMONIZE_MODE differs between ranks (rank 0 has 'observe')"
            in result.stderr or "harmonize: error: MPI_Init waited 2 s (HARMONIZE_STARTUP_TIMEOUT)"
            in result.stderr), result.stderr
    assert "program started" not in result.stdout


# --- issue 8: inputs that used to hang, crash or slip through MPI_Init ------

def stopped_with(result, message):
    """The job stopped before the program ran, with `message` in exactly one error line."""
    assert result.returncode != 0, result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("harmonize: error:")]
    assert sum(message in line for line in errors) == 1, result.stderr
    assert "program started" not in result.stdout
    return errors


def test_preset_that_is_a_fifo_is_refused_at_once(tmp_path):
    fifo = tmp_path / "preset.fifo"
    os.mkfifo(fifo)
    result = run_mpi(2, [PROGRAMS / "barrier_loop"], env={"HARMONIZE_CONFIG": fifo}, timeout=60)
    stopped_with(result, f"HARMONIZE_CONFIG='{fifo}' cannot be read: it is a FIFO; "
                         "expected a regular file of at most 1 MiB")


def test_preset_that_is_a_device_is_refused():
    result = run_mpi(2, [PROGRAMS / "barrier_loop"], env={"HARMONIZE_CONFIG": "/dev/zero"},
                     timeout=60)
    stopped_with(result, "HARMONIZE_CONFIG='/dev/zero' cannot be read: it is a character device")


def test_preset_that_is_a_directory_is_refused(tmp_path):
    result = run_mpi(2, [PROGRAMS / "barrier_loop"], env={"HARMONIZE_CONFIG": tmp_path},
                     timeout=60)
    stopped_with(result, f"HARMONIZE_CONFIG='{tmp_path}' cannot be read: it is a directory")


def test_preset_of_3_gb_is_refused_without_reading_it(tmp_path):
    huge = tmp_path / "huge.env"
    with open(huge, "wb") as f:
        f.truncate(3 << 30)  # sparse
    result = run_mpi(2, [PROGRAMS / "barrier_loop"], env={"HARMONIZE_CONFIG": huge}, timeout=60)
    errors = stopped_with(result, f"HARMONIZE_CONFIG='{huge}' cannot be read: it has 3221225472 "
                                  "bytes; expected a regular file of at most 1 MiB")
    assert "bad_alloc" not in result.stderr
    assert len(errors) == 2  # the line, then "stopping the job"


def test_unbounded_sync_effort_is_refused_at_init():
    env = {"HARMONIZE_MODE": "harmonize", "HARMONIZE_SYNC": "hca3",
           "HARMONIZE_FITPOINTS": "100000", "HARMONIZE_PINGPONGS": "100000"}
    result = run_mpi(2, [PROGRAMS / "barrier_loop"], env=env, timeout=60)
    stopped_with(result, "HARMONIZE_FITPOINTS='100000' is not valid: expected a whole number "
                         "from 1 to 10000")
    env.update(HARMONIZE_FITPOINTS="100", HARMONIZE_PINGPONGS="1000")
    result = run_mpi(2, [PROGRAMS / "barrier_loop"], env=env, timeout=60)
    stopped_with(result, "HARMONIZE_FITPOINTS='100' x HARMONIZE_PINGPONGS='1000' is not valid: "
                         "100000 ping-pongs per pair in each sync round, expected at most 10000")


@pytest.mark.parametrize("preset", ["default.env", "precise.env", "observe.env"])
def test_shipped_presets_run(preset, workdir):
    env = {"HARMONIZE_CONFIG": SOURCE_DIR / "config" / preset, "HARMONIZE_REPORT": "none"}
    result = run_mpi(2, [PROGRAMS / "barrier_loop", "5"], env=env, timeout=60, check=True)
    assert "program done" in result.stdout


@pytest.mark.parametrize("report,message", [
    ("", "HARMONIZE_REPORT='' is not valid: expected 'none' or a file name template"),
    ("out/", "HARMONIZE_REPORT='out/' is not valid: expected 'none' or a file name template"),
    ("missing/dir/r-%j.json", "HARMONIZE_REPORT='missing/dir/r-%j.json' is not valid: "
                              "directory missing/dir does not exist"),
    # Root ignores directory permissions; sysfs refuses new files even to root.
    ("/sys/harmonize-%j.json", "HARMONIZE_REPORT='/sys/harmonize-%j.json' is not valid: "
                               "cannot create a file in /sys: Permission denied"),
    (".", "HARMONIZE_REPORT='.' is not valid: it is a directory"),
], ids=["empty", "slash", "missing-dir", "read-only-dir", "directory"])
def test_unwritable_report_stops_the_job_at_init(report, message, workdir):
    result = run_mpi(2, [PROGRAMS / "barrier_loop"],
                     env={"HARMONIZE_MODE": "observe", "HARMONIZE_REPORT": report}, timeout=60)
    stopped_with(result, message)
    assert list(workdir.iterdir()) == []  # no probe file left behind


@pytest.mark.parametrize("device", ["/dev/null", "/dev/stdout"])
def test_report_to_a_device_is_written_as_it_is(device, workdir):
    for leftover in (Path(device + "-1"),):
        if leftover.exists() and leftover.is_file():
            leftover.unlink()
    result = run_mpi(2, [PROGRAMS / "barrier_loop", "5"],
                     env={"HARMONIZE_MODE": "observe", "HARMONIZE_REPORT": device}, timeout=60,
                     check=True)
    assert not Path(device + "-1").exists()
    assert "not overwritten" not in result.stderr
    assert f"report {device}" in result.stderr
    if device == "/dev/stdout":
        assert '"communicators"' in result.stdout


def test_report_probe_leaves_nothing_behind(workdir):
    run_mpi(2, [PROGRAMS / "barrier_loop", "2"],
            env={"HARMONIZE_MODE": "observe", "HARMONIZE_REPORT": "r.json"}, timeout=60,
            check=True)
    assert sorted(p.name for p in workdir.iterdir()) == ["r.json"]


def test_variables_of_the_scripts_do_not_stop_the_library():
    # MPICH's launcher hands the ranks the whole environment, HARMONIZE_LIBRARY too.
    env = {"HARMONIZE_LIBRARY": str(LIBRARY), "HARMONIZE_MODE": "off"}
    result = run_mpi(2, [PROGRAMS / "barrier_loop", "2"], env=env, timeout=60, check=True)
    assert "program done" in result.stdout
    assert "harmonize: error" not in result.stderr


def test_every_variable_the_scripts_read_is_known_to_the_library():
    # Names in scripts/ that are not library variables must be accepted (and
    # ignored) by the library, or not be environment variables at all.
    not_environment = {"HARMONIZE_KEY",       # placeholder in harmonize-run's --help
                       "HARMONIZE_PACKAGES",  # shell array in scripts/lib/setup.sh
                       "HARMONIZE_WERROR",    # CMake options (-DHARMONIZE_WERROR=ON)
                       "HARMONIZE_SMPI"}
    names = set()
    scripts = [*(SOURCE_DIR / "scripts").rglob("*"), *(SOURCE_DIR / "python").rglob("*.py")]
    for path in scripts:
        if path.is_file():
            names |= set(re.findall(r"HARMONIZE_[A-Z0-9_]+", path.read_text(errors="replace")))
    table = subprocess.run([BIN / "harmonize-config", "--markdown"], capture_output=True,
                           text=True, check=True).stdout
    # Rows of the scripts' own variables say so first ("scripts/harmonize-run: ...").
    library = {name for name, meaning in re.findall(r"^\| `(HARMONIZE_[A-Z0-9_]+)` \|.*\| ([^|]*) \|$",
                                                    table, re.M)
               if not meaning.startswith("scripts/")}
    assert "HARMONIZE_MODE" in library and "HARMONIZE_LIBRARY" not in library
    assert "HARMONIZE_LIBRARY" in names - library - not_environment
    for name in sorted(names - library - not_environment):
        check = subprocess.run([BIN / "harmonize-config"], capture_output=True, text=True,
                               env=clean_environment(**{name: "x"}))
        assert check.returncode == 0, f"{name}: {check.stderr}"


def launch_two_contexts(name, first, second, args=()):
    """rank 0 with name=first, rank 1 with name=second, in one job, both
    observing (mode off compares nothing across ranks)."""
    program = [str(PROGRAMS / "barrier_loop"), *args]
    if MPI_FLAVOR == "openmpi":
        cmd = [MPIEXEC, "--oversubscribe", "-n", "1", "-x", f"{name}={first}", *program, ":",
               "-n", "1", "-x", f"{name}={second}", *program]
    else:
        cmd = [MPIEXEC, "-n", "1", "-env", name, first, *program, ":",
               "-n", "1", "-env", name, second, *program]
    env = clean_environment(LD_PRELOAD=str(LIBRARY), HARMONIZE_REPORT="none", HARMONIZE_QUIET="1")
    if name != "HARMONIZE_MODE":
        env["HARMONIZE_MODE"] = "observe"
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("name,first,second", [
    ("HARMONIZE_SLACK", "20us", "20000ns"),
    ("HARMONIZE_SLACK", "20us", " 0.02ms "),
    ("HARMONIZE_MODE", "observe", " observe"),
    ("HARMONIZE_FITPOINTS", "8", "08"),
])
def test_ranks_spelling_one_value_differently_agree(name, first, second):
    result = launch_two_contexts(name, first, second, args=["2"])
    assert result.returncode == 0, result.stderr
    assert "program done" in result.stdout
    assert "differs between ranks" not in result.stderr


def test_ranks_with_different_values_still_stop():
    result = launch_two_contexts("HARMONIZE_SLACK", "20us", "21us")
    assert result.returncode != 0
    assert ("harmonize: error: HARMONIZE_SLACK differs between ranks (rank 0 has '20us')"
            in result.stderr)
    assert "program started" not in result.stdout


@pytest.mark.parametrize("value,shown", [
    ("fast\nharmonize", r"HARMONIZE_MODE='fast\nharmonize' is not valid"),
    ("\x1b[31mfast", r"HARMONIZE_MODE='\x1b[31mfast' is not valid"),
    ("\ufeffoff", r"HARMONIZE_MODE='\uFEFFoff' is not valid"),
    ("x" * 100000, "HARMONIZE_MODE='" + "x" * 80 + "\u2026' is not valid"),
], ids=["newline", "escape", "bom", "100k"])
def test_error_line_shows_the_value_escaped_and_cut(value, shown):
    result = run_mpi(2, [PROGRAMS / "barrier_loop"], env={"HARMONIZE_MODE": value}, timeout=60)
    errors = stopped_with(result, shown)
    assert "\x1b" not in result.stderr and "\ufeff" not in result.stderr
    assert all(len(line) < 300 for line in errors)
    assert len(errors) == 2  # the line, then "stopping the job"


# --- issue 25, D3 and minors: a delay file is user input like any value ------

@pytest.mark.parametrize("content,shown", [
    (b"0us \x1b[2J\x1b[H1us\n", r"line 1: delay '\x1b[2J\x1b[H1us' is not a duration"),
    (b"\x7fELF\x02\x01\x01" + b"\x01" * 200 + b"\x00\xff\n",
     r"line 1: delay '\x7fELF\x02\x01\x01\x01"),
    (b"0us 1\xe2\x80\x8bus\n", r"line 1: delay '1\u200Bus' is not a duration"),
], ids=["escape", "binary", "invisible"])
def test_bad_delay_file_entry_is_shown_escaped_and_cut(tmp_path, content, shown):
    delays = tmp_path / "delays.txt"
    delays.write_bytes(content)
    result = run_mpi(2, [PROGRAMS / "barrier_loop"], timeout=60,
                     env={"HARMONIZE_MODE": "harmonize", "HARMONIZE_ARRIVAL": f"file:{delays}"})
    stopped_with(result, shown)
    raw = result.stderr.encode("utf-8", "surrogateescape")
    assert b"\x1b" not in raw and b"\x01" not in raw and b"\x00" not in raw, result.stderr
    token = re.search(r"delay '(.*)' is not", result.stderr).group(1)
    assert len(token) <= 81  # cut after 80 characters, with an ellipsis


def test_delay_file_with_a_byte_order_mark_is_read(tmp_path):
    delays = tmp_path / "delays.txt"
    delays.write_bytes(b"\xef\xbb\xbf0us 5us\n")
    result = run_mpi(2, [PROGRAMS / "barrier_loop", "5"], timeout=120, check=True, env={
        "HARMONIZE_MODE": "harmonize", "HARMONIZE_ARRIVAL": f"file:{delays}",
        "HARMONIZE_REPORT": "none"})
    assert "program done" in result.stdout
    assert "harmonize: error" not in result.stderr


@pytest.mark.parametrize("pattern,message", [
    ("rank:3000000000:1us", "rank '3000000000' is not a whole number from 0 to 2147483647"),
    ("linear:1e-9us", "MAX '1e-9us' is below 1ns: a delay is 0 or from 1ns to 10s"),
], ids=["above-range", "below-1ns"])
def test_arrival_values_out_of_range_say_the_range(pattern, message):
    result = run_mpi(2, [PROGRAMS / "barrier_loop"], timeout=60,
                     env={"HARMONIZE_MODE": "harmonize", "HARMONIZE_ARRIVAL": pattern})
    stopped_with(result, message)
