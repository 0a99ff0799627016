"""The heat map of a tuning: message size x algorithm, each cell the
algorithm's t_global of the valid calls relative to the fastest at that size
(1 = the fastest; the default is a column too). Undecided comparisons are
drawn as measured and marked '?'."""
from ..ab import plots
from .algorithms import label


def relative_table(rows, default):
    """(sizes, algorithms, {(size, algorithm): (relative time, decided)}) for one collective
    and communicator size: each size's ratios to the default divided by the smallest."""
    algorithms = [default] + sorted({a for row in rows for a in row["versus"]}, key=_order)
    cells, sizes = {}, []
    for row in rows:
        ratios = {default: (1.0, True)}
        ratios.update({a: (c["delta"], c["decided"]) for a, c in row["versus"].items() if c})
        best = min(value for value, _ in ratios.values())
        sizes.append(row["bytes"])
        for algorithm, (value, decided) in ratios.items():
            cells[row["bytes"], algorithm] = (value / best, decided)
    return sizes, algorithms, cells


def _order(algorithm):
    return (0, int(algorithm), "") if algorithm.isdigit() else (1, 0, algorithm)


def draw(rows, default, names, title, path):
    """Writes the PNG; raises plots.PlotsUnavailable without matplotlib."""
    pyplot = plots.load_pyplot()
    sizes, algorithms, cells = relative_table(rows, default)
    figure, axes = pyplot.subplots(figsize=(1.2 + 0.9 * len(algorithms), 1.2 + 0.4 * len(sizes)))
    values = [[cells.get((size, a), (float("nan"), False))[0] for a in algorithms] for size in sizes]
    image = axes.imshow(values, cmap="viridis_r", vmin=1.0, vmax=max(2.0, min(4.0, max(
        v for line in values for v in line if v == v))), aspect="auto")
    for y, size in enumerate(sizes):
        for x, algorithm in enumerate(algorithms):
            value, decided = cells.get((size, algorithm), (None, False))
            if value is not None:
                axes.text(x, y, f"{value:.2f}{'' if decided else '?'}", ha="center", va="center", fontsize=7,
                          color="white" if value > 1.8 else "black")
    axes.set_xticks(range(len(algorithms)))
    axes.set_xticklabels([label(a, names) for a in algorithms],
                         rotation=40, ha="right", fontsize=7)
    axes.set_yticks(range(len(sizes)))
    axes.set_yticklabels([str(s) for s in sizes], fontsize=7)
    axes.set_ylabel("message size (bytes)")
    axes.set_title(title, fontsize=9)
    figure.colorbar(image, ax=axes, label="t_global / fastest")
    return plots._save(pyplot, figure, path)
