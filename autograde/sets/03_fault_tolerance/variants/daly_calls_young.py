# replaces: daly_interval
# differs: builds on young_interval (which also validates the arguments) instead of repeating the square root
def daly_interval(checkpoint_cost_s, mtbf_s):
    tau_young = young_interval(checkpoint_cost_s, mtbf_s)  # raises ValueError for invalid arguments
    if checkpoint_cost_s >= 2 * mtbf_s:
        return float(mtbf_s)
    x = checkpoint_cost_s / (2 * mtbf_s)
    return float(tau_young * (1 + math.sqrt(x) / 3 + x / 9) - checkpoint_cost_s)
