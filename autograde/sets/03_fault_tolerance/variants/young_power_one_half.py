# replaces: young_interval
# differs: (2 * cost * MTBF) ** 0.5 instead of a square root; one chained comparison rejects NaN, inf and <= 0
def young_interval(checkpoint_cost_s, mtbf_s):
    for name, value in {"checkpoint_cost_s": checkpoint_cost_s, "mtbf_s": mtbf_s}.items():
        if not 0 < value < math.inf:
            raise ValueError(f"{name} must be a finite positive number of seconds, not {value}")
    return float(2 * checkpoint_cost_s * mtbf_s) ** 0.5
