# replaces: young_interval
# wrong: rejects only values <= 0: a NaN or infinite cost or MTBF gives a NaN or infinite interval instead of the
#   ValueError the statement asks for ("finite and greater than zero"; a visible case now tries them, issue 47.6)
# must-lose: young_interval_values
# must-keep: daly_interval_values
def young_interval(checkpoint_cost_s, mtbf_s):
    """Young (1974): the checkpoint interval sqrt(2 * cost * MTBF), in seconds."""
    for name, value in (("checkpoint_cost_s", checkpoint_cost_s), ("mtbf_s", mtbf_s)):
        if value <= 0:  # wrong: NaN and inf pass
            raise ValueError(f"{name} must be a finite number of seconds > 0, got {value!r}")
    return math.sqrt(2.0 * checkpoint_cost_s * mtbf_s)
