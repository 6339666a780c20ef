# replaces: daly_interval
# wrong: forgets the final "- cost" of Daly's formula (the interval counts work only, not the save itself)
# must-lose: daly_interval_values
# must-keep: young_interval_values, save_load_round_trip, resume_is_bit_exact
def daly_interval(checkpoint_cost_s, mtbf_s):
    """Daly's checkpoint interval."""
    if not (math.isfinite(checkpoint_cost_s) and checkpoint_cost_s > 0 and math.isfinite(mtbf_s) and mtbf_s > 0):
        raise ValueError("checkpoint_cost_s and mtbf_s must be finite and > 0")
    if checkpoint_cost_s >= 2 * mtbf_s:
        return float(mtbf_s)
    ratio = checkpoint_cost_s / (2.0 * mtbf_s)
    return math.sqrt(2.0 * checkpoint_cost_s * mtbf_s) * (1 + math.sqrt(ratio) / 3 + ratio / 9)
