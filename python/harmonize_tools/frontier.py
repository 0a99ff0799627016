"""The slack's frontier: flagged share against time in the call, per transport,
from a harmonize-bench-barrier table run with --slack (one harmonized side per
fixed slack, beside the default's cost-based choice). docs/barrier.md shows it.

  build/bin/harmonize-bench-barrier --slack 500ns --slack 1us ... > table.txt
  python3 -m harmonize_tools.frontier table.txt -o frontier.png
"""
import argparse
import re
import sys


def parse(lines):
    """{transport: [(side, flagged share, time in call vs native)]} from the
    table's rows (the columns after the side are fixed: see the header)."""
    rows = {}
    for line in lines:
        match = re.match(r"(\S+)\s+(harmonize|slack \S+)\s+(.*)$", line)
        if not match:
            continue
        transport, side, rest = match.groups()
        flagged = re.search(r"(\d+\.\d+)%\s+\d+\.\d+%\s+\S+ \S+\s+(\d+\.\d+)x", rest)
        if not flagged:
            continue
        rows.setdefault(transport, []).append(
            (side, float(flagged.group(1)) / 100, float(flagged.group(2))))
    return rows


def plot(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figure, axes = plt.subplots(1, len(rows), figsize=(5.5 * len(rows), 4.2), squeeze=False)
    for axis, (transport, points) in zip(axes[0], rows.items()):
        fixed = [(ratio, 100 * share, side[6:]) for side, share, ratio in points
                 if side.startswith("slack ")]
        axis.plot([r for r, _, _ in fixed], [s for _, s, _ in fixed], "o-", color="tab:blue",
                  label="fixed slack")
        for ratio, share, label in fixed:
            axis.annotate(label, (ratio, share), textcoords="offset points", xytext=(4, 4),
                          fontsize=8)
        for side, share, ratio in points:
            if side == "harmonize":
                axis.plot([ratio], [100 * share], "*", markersize=14, color="tab:red",
                          label="default (auto, cost-based)")
        axis.set_xscale("log")
        axis.set_yscale("log")
        axis.set_xlabel("time in the call / native barrier's")
        axis.set_ylabel("calls flagged (%)")
        axis.set_title(transport)
        axis.grid(True, which="both", alpha=0.3)
        axis.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=110)


def main(argv=None, script_dir=None):
    del script_dir  # not a launcher of its own
    parser = argparse.ArgumentParser(prog="python3 -m harmonize_tools.frontier",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("table", help="harmonize-bench-barrier output, run with --slack")
    parser.add_argument("-o", "--out", default="frontier.png")
    args = parser.parse_args(argv)
    with open(args.table) as table:
        rows = parse(table)
    if not rows:
        print(f"frontier: no harmonized rows in {args.table}", file=sys.stderr)
        return 1
    plot(rows, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
