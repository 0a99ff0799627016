"""harmonize-ab --interleave --until-decided: each comparison's sign test
pooled over the interleaved runs so far, under a rule that keeps its level
however often it is looked at. Pure functions.

Why pooling blocks across runs is sound: inside a block the schedule drew
the order of the sides at random, so where the sides do not differ a
block's difference is as likely above zero as below, whatever run it is in
and whatever speed state that run landed in. The count of positive blocks of
all runs together is then Binomial(blocks, 1/2) exactly, at every look: the
unit stays the block, and a round adds calls (blocks), not a new kind of
sample.

Why the runs' spread widens it: the sign test takes the blocks as independent
fair coins. Measured over TCP the runs' counts spread a little more than
that in the first 120 A/A runs (each size's standardized count had a
standard deviation of 1.07 where 1 is the coin's; 1.01 over 360 runs), and
where the difference itself moves between runs (a speed state changing how
two barriers' exits meet the call) pooling would take one run's lean for the
machine's. So from the second look
on, the pooled count is tested with its variance scaled by the dispersion the
runs show: each comparison's standardized count per run about its own mean
over the runs, pooled over the comparisons (a quasi-binomial test; never
below the coin's). The first look has no spread to see and is the exact
sign test.

Why the level holds under repeated looks: look k (after k runs) tests each
of the m comparisons at family_level / (m x max_looks). Whatever rule stops
the rounds, a false decision at any look of any comparison has probability
at most the sum of those levels, family_level (Bonferroni over the
comparisons and over every look the budget allows). A decision is kept from
the look that made it.
"""
import math
from statistics import median

from .interleaved import comparison_key, key_label

FAMILY_LEVEL = 0.05
DEFAULT_MAX_RUNS = 5  # interleaved runs: the looks the level is divided among
# What --decide-on names, as the library's figures (the interleaved
# comparison has t_global and the slowest member's own time).
FIGURE_OF = {"t_global": "t_global", "local": "local_max"}


def sign_test_p(positive, negative):
    """The two-sided exact sign test's p: P(a fair coin's count is at least
    as far from half as this one). 1 without blocks."""
    n = positive + negative
    if n == 0:
        return 1.0
    k = min(positive, negative)
    log_half = n * math.log(2.0)
    total = 0.0
    # Down from k: the terms fall faster than geometrically below n/2.
    for i in range(k, -1, -1):
        term = math.exp(math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) - log_half)
        total += term
        if term < total * 1e-17:
            break
    return min(1.0, 2.0 * total)


def standardized(positive, negative):
    """The sign count's distance from half in the coin's standard deviations
    (None without blocks)."""
    n = positive + negative
    return None if n == 0 else (positive - n / 2) / math.sqrt(n / 4)


def dispersion(counts_by_run):
    """The runs' spread: for each comparison its runs' standardized counts
    about their mean, squared and summed over the comparisons, over the
    degrees of freedom (runs - 1 each); at least 1 (the coin's), and 1 when
    no comparison has two runs. `counts_by_run`: per comparison, its
    (positive, negative) per run."""
    total, freedom = 0.0, 0
    for counts in counts_by_run:
        scores = [z for z in (standardized(p, n) for p, n in counts) if z is not None]
        if len(scores) < 2:
            continue
        mean = sum(scores) / len(scores)
        total += sum((z - mean) ** 2 for z in scores)
        freedom += len(scores) - 1
    return max(1.0, total / freedom) if freedom else 1.0


def pooled_p(positive, negative, spread):
    """The pooled count's two-sided p: the exact sign test's, or with its
    variance scaled by `spread` (> 1) the normal tail, whichever is larger."""
    exact = sign_test_p(positive, negative)
    if spread <= 1.0:
        return exact
    z = standardized(positive, negative)
    return max(exact, math.erfc(abs(z) / math.sqrt(2 * spread))) if z is not None else exact


def level_each(comparisons, max_looks, family_level=FAMILY_LEVEL):
    """The level of one comparison at one look."""
    return family_level / (max(comparisons, 1) * max(max_looks, 1))


def pooled_verdicts(runs, max_looks, family_level=FAMILY_LEVEL):
    """One row per comparison of the interleaved runs so far (each run its
    report's "interleave", in the order run): per look the blocks' signs
    summed over the runs up to it, the sign test's p, and the first look
    whose p is at or below level_each (then the direction: higher when more
    blocks were positive). A run without a comparison adds no blocks to it."""
    keys = []
    per_run = []
    for info in runs:
        rows = {}
        for row in info.get("comparisons") or []:
            key = comparison_key(row)
            rows[key] = row
            if key not in keys:
                keys.append(key)
        per_run.append(rows)
    each = level_each(len(keys), max_looks, family_level)
    counts = {key: [(int(rows[key].get("positive_blocks") or 0), int(rows[key].get("negative_blocks") or 0))
                    if key in rows else (0, 0) for rows in per_run] for key in keys}
    # A report of a library before the sign counts has none: its blocks
    # cannot be pooled, and the row says so rather than stay silently at p 1.
    uncounted = {key: sum(1 for rows in per_run if key in rows and "positive_blocks" not in rows[key])
                 for key in keys}
    # The spread each look sees: of the runs up to it.
    spreads = [dispersion([counts[key][:look] for key in keys]) for look in range(1, len(per_run) + 1)]
    result = []
    for key in keys:
        positive = negative = 0
        decided_at, verdict, p = None, "undecided", 1.0
        for look, (more_positive, more_negative) in enumerate(counts[key], 1):
            positive += more_positive
            negative += more_negative
            p = pooled_p(positive, negative, spreads[look - 1])
            if decided_at is None and p <= each:
                decided_at, verdict = look, ("higher" if positive > negative else "lower")
        deltas = [rows[key]["delta"] if key in rows else None for rows in per_run]
        known = [delta for delta in deltas if delta is not None]
        communicator, operation, size, root, side, figure = key
        result.append({"communicator": communicator, "operation": operation, "bytes": size, "root": root,
                       "side": side, "figure": figure, "positive_blocks": positive,
                       "negative_blocks": negative, "p": p, "level_each": each, "decided_at": decided_at,
                       "dispersion": spreads[-1] if spreads else 1.0,
                       "verdict": verdict, "deltas": deltas, "median_delta": median(known) if known else None,
                       "uncounted_runs": uncounted[key]})
    return result


def open_rows(rows, decide_on):
    """The rows of the figure --decide-on names that no look has decided,
    as decide.open_sizes lists them."""
    figure = FIGURE_OF[decide_on]
    return [{"size": f"{key_label(row)}, side {row['side']}",
             "reason": f"{row['positive_blocks']} blocks above, {row['negative_blocks']} below "
                       f"(p {row['p']:.2g} > {row['level_each']:.2g})"
                       + (f"; {row['uncounted_runs']} run(s) without sign counts (a library before them): "
                          "their blocks are not counted" if row.get("uncounted_runs") else "")}
            for row in rows if row["figure"] == figure and row["decided_at"] is None]
