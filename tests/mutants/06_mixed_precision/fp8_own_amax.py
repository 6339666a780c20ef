# replaces: delayed_scales
# wrong: off by one: step t's history ends with step t's own amax (no delay)
# must-lose: delayed_scales_step_by_step
# must-keep: delayed_scale_formula, delayed_scale_rejects_bad_input
def delayed_scales(amaxes, fp8_max, history_len, margin=0, algo="max"):
    """The scale of each step t, from the amaxes of (at most history_len) steps before t and the scale of step t-1."""
    if type(history_len) is not int or history_len < 1:
        raise ValueError(f"history_len must be a positive int, got {history_len!r}")
    scales, scale = [], 1.0
    for step in range(len(amaxes)):
        history = list(amaxes[max(0, step + 1 - history_len):step + 1])
        scale = delayed_scale(history, fp8_max, margin, algo, previous_scale=scale)
        scales.append(scale)
    return scales
