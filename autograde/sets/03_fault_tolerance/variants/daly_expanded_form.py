# replaces: daly_interval
# differs: Daly's formula multiplied out: sqrt(2 δ M) - 2δ/3 + (δ/9) sqrt(δ / 2M), algebraically equal
def daly_interval(checkpoint_cost_s, mtbf_s):
    delta, m = checkpoint_cost_s, mtbf_s
    if not (math.isfinite(delta) and delta > 0):
        raise ValueError(f"checkpoint_cost_s must be finite and > 0: {delta!r}")
    if not (math.isfinite(m) and m > 0):
        raise ValueError(f"mtbf_s must be finite and > 0: {m!r}")
    if delta >= 2 * m:
        return float(m)
    return math.sqrt(2 * delta * m) - 2 * delta / 3 + delta / 9 * math.sqrt(delta / (2 * m))
