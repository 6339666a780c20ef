# replaces: daly_interval
# differs: numpy throughout (np.sqrt, np.isfinite, np.float64 result)
def daly_interval(checkpoint_cost_s, mtbf_s):
    values = np.array([checkpoint_cost_s, mtbf_s], dtype=np.float64)
    for name, value in zip(("checkpoint_cost_s", "mtbf_s"), values):
        if not np.isfinite(value) or value <= 0:
            raise ValueError(f"{name} must be finite and > 0, got {value}")
    delta, m = values
    if delta >= 2 * m:
        return np.float64(m)
    ratio = delta / (2 * m)
    return np.sqrt(2 * delta * m) * (1 + np.sqrt(ratio) / 3 + ratio / 9) - delta
