"""Late arrivals (HARMONIZE_ARRIVAL, paper 002): each side's delay delta,
the side without delay (t0) and the delay overlap benefit b(delta) per
collective and size (arrival_summary). Pure functions."""
from ..common import communicator_delta, pattern_delta
from .per_call import key_order, pooled_median
from .sides import setting_value


def overlap_benefit(t0, t_delta, delta):
    """Paper 002's delay overlap benefit (eq. 5): b = (t0 + delta - t_delta) /
    t_delta, with t0 the collective's t_global when every process arrives
    together and t_delta when one arrives delta late. 1: the delay is hidden
    up to t0; 0: it simply adds; below 0: it costs extra."""
    return (t0 + delta - t_delta) / t_delta


def overlap_benefit_interval(t0_interval, t_delta_interval, delta):
    """(low, high) of b from the (low, high) intervals of t0 and t_delta: b
    grows with t0 and shrinks with t_delta, so the worst cases pair them
    crosswise. None when t_delta's interval reaches 0."""
    (t0_low, t0_high), (t_delta_low, t_delta_high) = t0_interval, t_delta_interval
    if t_delta_low <= 0:
        return None
    return (overlap_benefit(t0_low, t_delta_high, delta), overlap_benefit(t0_high, t_delta_low, delta))


def side_arrival(mode, reports, settings):
    """(pattern, delta in seconds or None, where delta came from) of one side.
    The pattern applies in mode harmonize only. The reports say what the
    library did ("arrival": {"pattern", "delta"}); older libraries' reports do
    not, and then the side's HARMONIZE_ARRIVAL (unset: none) is read."""
    if mode != "harmonize":
        return None, None, None
    for report in reports:
        arrival = report.get("arrival")
        if isinstance(arrival, dict) and isinstance(arrival.get("pattern"), str):
            delta = arrival.get("delta")
            if isinstance(delta, (int, float)) and not isinstance(delta, bool):
                return arrival["pattern"], float(delta), "report"
    pattern = setting_value(settings, "HARMONIZE_ARRIVAL") or "none"
    try:
        return pattern, pattern_delta(pattern), "setting"
    except ValueError:
        return pattern, None, "setting"


def choose_t0(sides, arrivals, requested=None):
    """(side, None) measuring t0 (harmonize, no delay), or (None, why not).
    `arrivals` maps each side to side_arrival()'s result."""
    candidates = [side for side in sides if arrivals[side][0] is not None and arrivals[side][1] == 0]
    if requested is not None:
        if requested in candidates:
            return requested, None
        pattern, delta, _ = arrivals.get(requested, (None, None, None))
        what = "not a harmonize side" if pattern is None else f"arrival {pattern} (delta {delta})"
        return None, f"--t0 {requested}: {what}, not a harmonize side without delay; b not computed"
    if candidates:
        return candidates[0], None
    return None, ("no harmonize side without delay (ARRIVAL unset, none or a zero delay), so no t0: "
                  "b not computed; add one, e.g. --side t0:ARRIVAL=none")


def arrival_rows(points_by_side, sides, arrivals, t0_side):
    """Per collective key and side: the valid calls' pooled t_global with its
    95 % interval, arrival skew and arrival error, and b(delta) against the
    t0 side's t_global of the same key. Sides in mode harmonize only (the
    others impose no pattern and have no valid calls); sorted by key, then
    by delta (unknown last)."""
    idents = set()
    for side in sides:
        idents |= set(points_by_side.get(side) or {})
    order = {side: position for position, side in enumerate(sides)}
    rows = []
    for ident in sorted(idents, key=key_order):
        t0_point = (points_by_side.get(t0_side) or {}).get(ident) if t0_side else None
        t0 = pooled_median(t0_point["valid_t_global_pool"]) if t0_point else None
        present = [side for side in sides
                   if ident in (points_by_side.get(side) or {}) and arrivals[side][0] is not None]
        present.sort(key=lambda side: (arrivals[side][1] is None, arrivals[side][1] or 0.0, order[side]))
        for side in present:
            point = points_by_side[side][ident]
            pattern, delta, source = arrivals[side]
            # The report's delta is MPI_COMM_WORLD's; a pattern's ranks are
            # each communicator's own.
            if ident[0] != "MPI_COMM_WORLD" and pattern is not None:
                try:
                    delta = communicator_delta(pattern, point.get("size"), delta)
                except ValueError:
                    delta = None
            t_global = pooled_median(point["valid_t_global_pool"])
            skew = pooled_median(point["valid_arrival_skew_pool"])
            error = pooled_median(point["valid_arrival_error_pool"])
            row = {"communicator": ident[0], "operation": ident[1], "bytes": ident[2], "root": ident[3],
                   "side": side, "pattern": pattern, "delta": delta, "delta_source": source,
                   "calls": point["calls"], "valid_calls": point["valid_calls"],
                   "t_global": None, "t_global_low": None, "t_global_high": None,
                   "arrival_skew": skew[1] if skew else None,
                   "arrival_error": error[1] if error else None,
                   "is_t0": side == t0_side, "b": None, "b_low": None, "b_high": None}
            if t_global:
                row["t_global_low"], row["t_global"], row["t_global_high"] = t_global
            if t0 and t_global and delta is not None and side != t0_side and t_global[1] > 0:
                row["b"] = overlap_benefit(t0[1], t_global[1], delta)
                interval = overlap_benefit_interval((t0[0], t0[2]), (t_global[0], t_global[2]), delta)
                if interval:
                    row["b_low"], row["b_high"] = interval
            rows.append(row)
    return rows


def arrival_summary(points_by_side, sides, arrivals, requested_t0=None):
    """summary["arrival"]: each side's pattern and delta, t0 and the rows;
    "applies" when some side has a pattern other than none."""
    t0_side, note = choose_t0(sides, arrivals, requested_t0)
    return {"applies": any(arrivals[side][0] not in (None, "none") for side in sides),
            "t0_side": t0_side, "note": note,
            "sides": {side: dict(zip(("pattern", "delta", "delta_source"), arrivals[side])) for side in sides},
            "rows": arrival_rows(points_by_side, sides, arrivals, t0_side)}
