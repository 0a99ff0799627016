"""harmonize_tools.frontier reads harmonize-bench-barrier's table (run with
--slack) into flagged share against time in the call, and plots it."""
from harmonize_tools import frontier

TABLE = """\
transport   side          skew p50  skew p99  skew max valid p50 valid p99      >1us         clock err       bound  flagged     late   in call  vs nat    resync  load
vader,self  native          480 ns    710 ns 393.81 us    480 ns    710 ns         -                 -           -        -        -    625 ns   1.00x         -  2.20
vader,self  harmonize        11 ns    101 ns 422.49 us     11 ns     60 ns         7    5 ns / 1.42 us   <= 503 ns    0.67%    0.09%   1.64 us   2.63x      1 ns  2.19
vader,self  slack 500ns      51 ns    231 ns 228.22 us     20 ns    200 ns         0    4 ns / 1.78 us   <= 415 ns   99.83%    0.00%   1.15 us   1.85x      1 ns  2.19
tcp,self    slack 10us       11 ns    972 ns 3202.55 us     11 ns     50 ns         9    7 ns / 2.28 us   <= 674 ns    1.47%    1.36%  11.08 us  17.72x      2 ns  2.01
"""  # noqa: E501 (the tool's own lines)


def test_the_table_becomes_points_per_transport(tmp_path):
    rows = frontier.parse(TABLE.splitlines())
    assert rows == {"vader,self": [("harmonize", 0.0067, 2.63), ("slack 500ns", 0.9983, 1.85)],
                    "tcp,self": [("slack 10us", 0.0147, 17.72)]}
    table = tmp_path / "table.txt"
    table.write_text(TABLE)
    assert frontier.main([str(table), "-o", str(tmp_path / "f.png")]) == 0
    assert (tmp_path / "f.png").stat().st_size > 1000
    (tmp_path / "empty.txt").write_text("nothing\n")
    assert frontier.main([str(tmp_path / "empty.txt")]) == 1
