"""harmonize-timeline (issue 28): a few calls of a HARMONIZE_TRACE file drawn,
on a trace written here whose times are known exactly."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS))
from conftest import SOURCE_DIR  # noqa: E402
from harmonize_tools.timeline import draw, trace  # noqa: E402

TIMELINE = SOURCE_DIR / "scripts" / "harmonize-timeline"


def barrier(rank, call, entry, exit_at, flag=1, deadline=None):
    args = {"comm": "MPI_COMM_WORLD", "call": call, "harmonized": deadline is not None,
            "clock_error_bound_us": 0.1}
    if deadline is not None:
        args.update(deadline_us=deadline, flag=flag, slack_us=1.0)
    return {"ph": "X", "name": "MPI_Barrier", "cat": "barrier", "pid": 0, "tid": rank, "ts": entry,
            "dur": exit_at - entry, "args": args}


def write_trace(path, events, ranks=2):
    path.write_text(json.dumps({"traceEvents": [{"ph": "M", "name": "thread_name", "pid": 0, "tid": r,
                                                 "args": {"name": f"rank {r}"}} for r in (0, 1)] + events,
                                "displayTimeUnit": "ns", "otherData": {"producer": "harmonize", "ranks": ranks}}))


def run(*arguments):
    return subprocess.run([str(TIMELINE), *map(str, arguments)], capture_output=True, text=True, timeout=120)


def test_calls_are_drawn_and_their_exit_skews_told(tmp_path):
    # Harmonized calls 0-2 leave at 10, 20, 30 us on rank 0; rank 1 leaves
    # 0.5 us later at call 1 (flag 0 there), on time otherwise.
    events = []
    for call, at in enumerate((10.0, 20.0, 30.0)):
        events.append(barrier(0, call, at - 3, at, deadline=at))
        late = 0.5 if call == 1 else 0.0
        events.append(barrier(1, call, at - 5, at + late, flag=0 if late else 1, deadline=at))
    events.append({"ph": "X", "name": "MPI_Allreduce", "cat": "collective", "pid": 0, "tid": 0, "ts": 11.0,
                   "dur": 2.0, "args": {"comm": "MPI_COMM_WORLD", "call": 0, "bytes": 8}})
    path = tmp_path / "t.json"
    write_trace(path, events)
    result = run(path, "--calls", "0:3")
    assert result.returncode == 0, result.stderr
    assert "call 0: exit skew 0.000 us" in result.stdout
    assert "call 1: exit skew 0.500 us" in result.stdout
    assert (tmp_path / "t.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    per_rank = trace.calls(json.loads(path.read_text()), "MPI_COMM_WORLD")
    assert trace.window(per_rank, 0, 2) == (5.0, 30.0)


@pytest.mark.parametrize("arguments, status, message", [
    (["--calls", "5:9"], 1, "barrier calls 5 to 8 are not in the timeline"),
    (["--calls", "3:3"], 2, "--calls '3:3': expected 0 <= A < B"),
    (["--comm", "comm#1"], 2, "no calls of comm#1 (it has: MPI_COMM_WORLD)"),
    # Issue 46.18: each once a traceback or argparse's "expected one argument".
    (["--calls", "-3:-1"], 2, "--calls '-3:-1': expected 0 <= A < B"),
    (["--calls", "0:1", "-o", "/nonexistent-dir/x.png"], 2,
     "cannot write /nonexistent-dir/x.png: No such file or directory"),
    (["--calls", "0:1", "-o", "/dev/full"], 2, "cannot write /dev/full"),
])
def test_what_cannot_be_drawn_is_said(tmp_path, arguments, status, message):
    path = tmp_path / "t.json"
    write_trace(path, [barrier(0, 0, 1.0, 2.0), barrier(1, 0, 1.5, 2.0)])
    result = run(path, *arguments)
    assert result.returncode == status and message in result.stderr, result.stderr


def test_a_file_that_is_no_timeline_is_refused(tmp_path):
    (tmp_path / "report.json").write_text(json.dumps({"communicators": []}))
    result = run(tmp_path / "report.json")
    assert result.returncode == 2 and "not a harmonize timeline" in result.stderr
    (tmp_path / "binary").write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    result = run(tmp_path / "binary")
    assert result.returncode == 2 and f"{tmp_path / 'binary'}: not a text file" in result.stderr
    event = barrier(0, 0, 1.0, 2.0)
    del event["args"]["comm"]
    write_trace(tmp_path / "edited.json", [event])
    result = run(tmp_path / "edited.json")
    assert result.returncode == 2 and "event 2 (MPI_Barrier) lacks its comm" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_picture_is_written_whole_or_not_at_all(tmp_path):
    path = tmp_path / "t.json"
    write_trace(path, [barrier(0, 0, 1.0, 2.0), barrier(1, 0, 1.5, 2.0)])
    result = run(path, "--calls", "0:1", "-o", "/dev/full")
    assert result.returncode == 2 and len(result.stderr.splitlines()) == 1, result.stderr
    assert not list(Path("/dev").glob(".full.partial"))


def test_collectives_the_window_dropped_are_warned_of(tmp_path):
    """--calls 500:504 once drew barriers with no allreduce between them
    (the trace's window had dropped them), without a word (issue 46.11)."""
    path = tmp_path / "t.json"
    allreduce = {"ph": "X", "name": "MPI_Allreduce", "cat": "collective", "pid": 0, "tid": 0, "ts": 1.2,
                 "dur": 0.1, "args": {"comm": "MPI_COMM_WORLD", "call": 0, "bytes": 8}}
    events = [barrier(r, call, 10.0 * call + 1.0, 10.0 * call + 2.0) for r in (0, 1) for call in (0, 5, 6)]
    data = {"traceEvents": events + [allreduce], "displayTimeUnit": "ns",
            "otherData": {"producer": "harmonize", "ranks": 2, "window": "1", "dropped_events": 8}}
    path.write_text(json.dumps(data))
    result = run(path, "--calls", "5:7")
    assert result.returncode == 0, result.stderr
    assert "dropped the collective calls between these barriers" in result.stderr
    result = run(path, "--calls", "0:1")
    assert "dropped" not in result.stderr


def test_a_rank_without_calls_is_warned_of(tmp_path):
    """One rank's events missing printed "exit skew 0.000 us" without a word."""
    path = tmp_path / "t.json"
    write_trace(path, [barrier(0, 0, 1.0, 2.0), barrier(1, 0, 1.5, 2.5)], ranks=3)
    result = run(path, "--calls", "0:1")
    assert result.returncode == 0, result.stderr
    assert "warning: rank(s) 2 of the 3 have no call in the file" in result.stderr


def test_harmonize_ab_draws_calls_of_the_measured_loop(tmp_path):
    """Issue 46.12: harmonize-ab drew each side's last 4 barriers, which in
    OSU end the run (2-10 ms each, no collective between), so a 5 us late
    arrival never showed. Its calls come from the middle of the longest
    loop of barrier + one collective of one size; there rank 1's allreduce
    starts 5 us late, as the side's arrival pattern says."""
    events, at = [], 0.0
    for call in range(40):
        measured = call < 30
        for rank in (0, 1):
            events.append(barrier(rank, call, at, at + 1.0))
            if measured:
                late = 5.0 if rank == 1 else 0.0
                events.append({"ph": "X", "name": "MPI_Allreduce", "cat": "collective", "pid": 0, "tid": rank,
                               "ts": at + 1.5 + late, "dur": 1.0,
                               "args": {"comm": "MPI_COMM_WORLD", "call": call, "bytes": 8 if call < 10 else 64}})
        at += 20.0 if measured else 3000.0
    path = tmp_path / "runs" / "001-B" / "timeline.json"
    path.parent.mkdir(parents=True)
    write_trace(path, events)
    data = json.loads(path.read_text())
    per_rank = trace.calls(data, "MPI_COMM_WORLD")
    assert trace.measured_calls(per_rank, 4) == (18, 21)  # the 64-byte loop, calls 10-29
    assert trace.last_calls(per_rank, 4) == (36, 39)
    start, end = trace.window(per_rank, 18, 21)
    late = [e["ts"] for e in per_rank[1]["collective"] if start <= e["ts"] <= end]
    early = [e["ts"] for e in per_rank[0]["collective"] if start <= e["ts"] <= end]
    assert len(late) == 3 and [b - a for a, b in zip(early, late)] == [5.0] * 3  # between the 4 barriers
    written = draw.draw_runs(tmp_path / "runs", tmp_path / "plots")
    assert [p.name for p in written] == ["timeline-B.png"]
