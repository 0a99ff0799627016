"""harmonize_tools.ab.parsing on recorded OSU 7.4, IMB-MPI1 and IMB-NBC 2021.11
and harmonize-example output, and on broken outputs."""
from pathlib import Path

import pytest

from harmonize_tools.ab.parsing import ParseError, parse_output  # python/ is on sys.path: tests/conftest.py

TESTS = Path(__file__).resolve().parents[1]
BENCH = TESTS / "fixtures" / "bench"
BROKEN = TESTS / "fixtures" / "broken"


def parse(name, folder=BENCH):
    return parse_output((folder / name).read_text())


def test_osu_default_format():
    parsed = parse("osu-7.4-allreduce.txt")
    assert parsed.source == "osu"
    rows = parsed.rows
    assert [r.size for r in rows] == [2 ** k for k in range(21)]
    assert {r.benchmark for r in rows} == {"allreduce"}
    assert rows[0].avg_us == 0.40 and rows[-1].avg_us == 187.06
    assert all(r.min_us is None and r.max_us is None and r.iterations is None for r in rows)


def test_osu_full_format():
    rows = parse("osu-7.4-allreduce-full.txt").rows
    assert len(rows) == 17
    first = rows[0]
    assert (first.size, first.avg_us, first.min_us, first.max_us, first.iterations) == (1, 0.38, 0.16, 0.61, 1000)
    last = rows[-1]
    assert (last.size, last.avg_us, last.min_us, last.max_us, last.iterations) == (65536, 15.44, 15.40, 15.47, 100)


def test_osu_bcast_name():
    rows = parse("osu-7.4-bcast-full.txt").rows
    assert {r.benchmark for r in rows} == {"broadcast"}
    assert rows[-1].size == 1048576 and rows[-1].max_us == 53.58


@pytest.mark.parametrize("name, full", [("osu-7.4-barrier.txt", False), ("osu-7.4-barrier-full.txt", True)])
def test_osu_barrier_has_no_size(name, full):
    rows = parse(name).rows
    assert len(rows) == 1
    row = rows[0]
    assert row.benchmark == "barrier" and row.size == 0
    if full:
        assert (row.avg_us, row.min_us, row.max_us, row.iterations) == (0.38, 0.38, 0.38, 1000)
    else:
        assert row.avg_us == 0.33 and row.iterations is None


def test_osu_nonblocking_latency_is_the_pure_communication_time():
    # Overall adds the dummy compute; the library calls the operation
    # iallreduce (the report's key).
    rows = parse("osu-7.4-iallreduce.txt").rows
    assert [r.size for r in rows] == [8, 16, 32, 64]
    assert {r.benchmark for r in rows} == {"iallreduce"}
    assert rows[0].avg_us == 1.19 and rows[0].extra["Overall(us)"] == "3.41"
    assert rows[0].extra["Overlap(%)"] == "0.00"
    barrier = parse("osu-7.4-ibarrier-full.txt").rows
    assert [(r.benchmark, r.size, r.avg_us, r.min_us, r.max_us) for r in barrier] == [
        ("ibarrier", 0, 0.89, 0.89, 0.89)]


def test_imb_nbc_latency_is_t_pure():
    parsed = parse("imb-2021.11-nbc-iallreduce.txt")
    assert parsed.source == "imb"
    assert [(r.benchmark, r.size, r.avg_us) for r in parsed.rows] == [
        ("iallreduce", 0, 0.06), ("iallreduce", 8, 1.43), ("iallreduce", 16, 1.66),
        ("iallreduce", 32, 1.55)]
    assert parsed.rows[1].extra["t_ovrl[usec]"] == "2.29"


def test_imb_tables():
    parsed = parse("imb-2021-mpi1-collectives.txt")
    assert parsed.source == "imb"
    by_name = {}
    for row in parsed.rows:
        by_name.setdefault(row.benchmark, []).append(row)
    assert sorted(by_name) == ["allreduce", "barrier", "bcast"]
    barrier = by_name["barrier"]
    assert len(barrier) == 1
    assert (barrier[0].size, barrier[0].iterations, barrier[0].min_us, barrier[0].max_us,
            barrier[0].avg_us, barrier[0].processes) == (0, 1000, 0.32, 0.32, 0.32, 2)
    allreduce = by_name["allreduce"]
    assert [r.size for r in allreduce] == [0] + [2 ** k for k in range(2, 13)]
    assert (allreduce[-1].min_us, allreduce[-1].max_us, allreduce[-1].avg_us) == (3.00, 3.04, 3.02)
    assert len(by_name["bcast"]) == 14


def test_imb_one_table_per_process_count():
    rows = parse("imb-2021-mpi1-allreduce-npmin.txt").rows
    assert sorted({r.processes for r in rows}) == [2, 3]
    three = [r for r in rows if r.processes == 3]
    assert [r.size for r in three] == [0, 4, 8, 16, 32, 64]
    assert three[-1].avg_us == 2.30


def test_imb_pingpong_time_column():
    rows = parse("imb-2021-mpi1-pingpong.txt").rows
    assert [r.size for r in rows] == [0, 1, 2, 4, 8, 16]
    assert rows[1].avg_us == 0.23 and rows[1].min_us is None
    assert rows[1].extra == {"Mbytes/sec": "4.27"}


def test_example_formats():
    default = parse("example-allreduce.txt")
    assert default.source == "example"
    assert {r.benchmark for r in default.rows} == {"allreduce"}
    assert [r.size for r in default.rows][0] == 4 and all(r.avg_us > 0 for r in default.rows)
    full = parse("example-bcast-full.txt").rows
    assert {r.benchmark for r in full} == {"bcast"}
    assert [r.size for r in full] == [2 ** k for k in range(13)]
    assert all(r.min_us <= r.avg_us <= r.max_us and r.iterations > 0 for r in full)
    barrier = parse("example-barrier-full.txt").rows
    assert len(barrier) == 1 and barrier[0].benchmark == "barrier" and barrier[0].size == 0


def test_chatter_before_the_table_is_ignored():
    text = "WARNING: something about the network\n" + (BENCH / "osu-7.4-barrier.txt").read_text()
    assert parse_output(text).rows[0].avg_us == 0.33


@pytest.mark.parametrize("name, message", [
    ("osu-truncated-mid-row.txt", "truncated"),
    ("osu-header-only.txt", "no result rows follow"),
    ("osu-bad-number.txt", "line 15: Min Latency(us) is 'abc', not a number"),
    ("imb-header-only.txt", "IMB benchmark allreduce (2 processes)"),
    ("empty.txt", "empty benchmark output"),
    ("unknown.txt", "unrecognised benchmark output"),
])
def test_broken_outputs_are_errors(name, message):
    with pytest.raises(ParseError) as error:
        parse(name, BROKEN)
    assert message in str(error.value)


def test_unknown_output_says_what_was_expected():
    with pytest.raises(ParseError) as error:
        parse("unknown.txt", BROKEN)
    text = str(error.value)
    assert "Avg Latency(us)" in text and "IMB-MPI1" in text and "harmonize-example" in text


def test_truncated_imb_row():
    text = (BENCH / "imb-2021-mpi1-collectives.txt").read_text()
    cut = text[:text.index("         4096         1000         0.71") + 20]
    with pytest.raises(ParseError, match="truncated"):
        parse_output(cut)


# Issue 25, D7: a size twice in one table was merged as two runs ("1 runs ok", n 2).
REPEATED_OSU = ("# OSU MPI Allreduce Latency Test v7.4\n# Size       Avg Latency(us)\n"
                "4                       0.37\n8                       0.39\n4                       0.41\n")


def test_a_repeated_size_is_an_error_naming_both_lines():
    with pytest.raises(ParseError) as error:
        parse_output(REPEATED_OSU)
    assert str(error.value) == ("line 5: size 4 of allreduce again (first on line 3); a size may appear "
                                "once per benchmark, else its runs would be counted twice")


def test_a_repeated_size_in_imb_is_an_error():
    text = (BENCH / "imb-2021-mpi1-pingpong.txt").read_text()
    lines = text.splitlines(keepends=True)
    first_row = next(i for i, line in enumerate(lines) if line.split()[:1] == ["0"])
    repeated = "".join(lines[:first_row + 1] + [lines[first_row]] + lines[first_row + 1:])
    with pytest.raises(ParseError, match=rf"line {first_row + 2}: size 0 of pingpong \(2 processes\) "
                                         rf"again \(first on line {first_row + 1}\)"):
        parse_output(repeated)


def test_the_same_size_in_tables_of_other_process_counts_is_fine():
    rows = parse("imb-2021-mpi1-allreduce-npmin.txt").rows
    assert {r.processes for r in rows} == {2, 3}
