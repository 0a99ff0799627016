"""Bad input stops the whole job before the program runs, with one clear
line naming the variable, the value and what is accepted."""
import subprocess

import pytest

from conftest import LIBRARY, MPI_FLAVOR, MPIEXEC, PROGRAMS, clean_environment, run_mpi

CASES = [
    ({"HARMONIZE_MODE": "fast"},
     "HARMONIZE_MODE='fast' is not valid: expected one of off, observe, harmonize"),
    ({"HARMONIZE_SLACK": "20"},
     "HARMONIZE_SLACK='20' is not valid: expected 'auto' or a duration with unit ns, us, ms or s"),
    ({"HARMONIZE_SLACK_GROWTH": "0.5"},
     "HARMONIZE_SLACK_GROWTH='0.5' is not valid: expected a number from 1.0001 to 100"),
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


def test_malformed_preset_line_is_reported_with_its_number(tmp_path):
    preset = tmp_path / "bad.env"
    preset.write_text("# comment\nHARMONIZE_MODE=observe\nslack is 20us\n")
    result = run_mpi(2, [PROGRAMS / "barrier_loop"], env={"HARMONIZE_CONFIG": preset})
    assert result.returncode != 0
    assert f"HARMONIZE_CONFIG={preset}: line 3: expected KEY=VALUE, got 'slack is 20us'" in result.stderr
    assert "program started" not in result.stdout


def test_bad_value_in_preset_names_file_and_line(tmp_path):
    preset = tmp_path / "bad.env"
    preset.write_text("HARMONIZE_SYNC=ntp\n")
    result = run_mpi(2, [PROGRAMS / "barrier_loop"], env={"HARMONIZE_CONFIG": preset})
    assert result.returncode != 0
    assert (f"HARMONIZE_CONFIG={preset}: line 1: HARMONIZE_SYNC='ntp' is not valid: "
            "expected one of h2hca, hca3, h3hca") in result.stderr


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
    env = clean_environment(LD_PRELOAD=str(LIBRARY))
    result = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode != 0
    assert ("harmonize: error: HARMONIZE_MODE differs between ranks (rank 0 has 'observe')"
            in result.stderr)
    assert "program started" not in result.stdout
