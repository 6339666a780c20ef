# replaces: delayed_scales
# wrong: accepts any history_len (0, negative, a float) instead of raising ValueError
# must-lose: delayed_scale_rejects_bad_input
# must-keep: delayed_scale_formula, delayed_scale_keeps_previous_scale, delayed_scales_step_by_step
def delayed_scales(amaxes, fp8_max, history_len, margin=0, algo="max"):
    """The scale of each step t, from the amaxes of (at most history_len) steps before t and the scale of step t-1."""
    scales, scale = [], 1.0
    for step in range(len(amaxes)):
        history = list(amaxes[max(0, step - int(history_len)):step]) if history_len >= 1 else []
        scale = delayed_scale(history, fp8_max, margin, algo, previous_scale=scale)
        scales.append(scale)
    return scales
