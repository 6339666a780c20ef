# replaces: young_interval
# wrong: sqrt(cost * MTBF), the factor 2 forgotten: an interval sqrt(2) too short
# must-lose: young_interval_values
# must-keep: daly_interval_values, save_load_round_trip, resume_is_bit_exact
def young_interval(checkpoint_cost_s, mtbf_s):
    """Young's checkpoint interval."""
    if not (math.isfinite(checkpoint_cost_s) and checkpoint_cost_s > 0 and math.isfinite(mtbf_s) and mtbf_s > 0):
        raise ValueError("checkpoint_cost_s and mtbf_s must be finite and > 0")
    return math.sqrt(checkpoint_cost_s * mtbf_s)
