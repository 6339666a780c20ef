# replaces: young_interval
# differs: numpy's sqrt and isfinite: returns a numpy.float64 (a float subclass)
def young_interval(checkpoint_cost_s, mtbf_s):
    if not (np.isfinite(checkpoint_cost_s) and checkpoint_cost_s > 0):
        raise ValueError(f"checkpoint_cost_s must be finite and > 0, got {checkpoint_cost_s}")
    if not (np.isfinite(mtbf_s) and mtbf_s > 0):
        raise ValueError(f"mtbf_s must be finite and > 0, got {mtbf_s}")
    return np.sqrt(2.0 * checkpoint_cost_s * mtbf_s)
