# replaces: young_interval
# differs: a helper that checks and converts each argument to float; the square root
#          taken factor by factor, sqrt(2) * sqrt(cost) * sqrt(MTBF)
def _seconds(name, value):
    value = float(value)
    if math.isnan(value) or math.isinf(value) or value <= 0:
        raise ValueError(f"{name}: expected a finite number of seconds > 0, got {value}")
    return value


def young_interval(checkpoint_cost_s, mtbf_s):
    cost, mtbf = _seconds("checkpoint_cost_s", checkpoint_cost_s), _seconds("mtbf_s", mtbf_s)
    return math.sqrt(2) * math.sqrt(cost) * math.sqrt(mtbf)
