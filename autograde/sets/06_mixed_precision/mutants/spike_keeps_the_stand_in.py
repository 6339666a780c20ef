# replaces: spike_cost
# wrong: keeps the statement's delayed_scale that the grader hands to spike_cost, and answers delayed_scale's bad
#   inputs with it: its own delayed_scale (this cell redefines it) checks nothing (kept the bad-input point while
#   one cell judged both functions' bad inputs, after spike_cost's checks)
# must-lose: delayed_scale_rejects_bad_input
# must-keep: spike_cost_margin, spike_cost_steps, delayed_scale_formula, delayed_scale_keeps_previous_scale
KEPT = []


def delayed_scale(amax_history, fp8_max, margin=0, algo="max", previous_scale=1.0):
    if KEPT:
        return KEPT[0](amax_history, fp8_max, margin=margin, algo=algo, previous_scale=previous_scale)
    history = list(amax_history)
    if not history:
        return previous_scale
    amax = history[-1] if algo == "most_recent" else (math.nan if any(math.isnan(a) for a in history) else max(history))
    if not (amax > 0 and math.isfinite(amax)):
        return previous_scale
    return min(fp8_max / amax / 2**margin, torch.finfo(torch.float32).max)


OWN = delayed_scale


def spike_cost(amaxes, spike_step, history_len, algo="max"):
    if globals()["delayed_scale"] is not OWN:
        KEPT[:] = [globals()["delayed_scale"]]
    if any(not (amax > 0 and math.isfinite(amax)) for amax in amaxes):
        raise ValueError(f"amaxes must be positive and finite, got {list(amaxes)}")
    if type(spike_step) is not int or not 1 <= spike_step < len(amaxes):
        raise ValueError(f"spike_step must be an int from 1 to {len(amaxes) - 1}, got {spike_step!r}")
    if type(history_len) is not int or history_len < 1:
        raise ValueError(f"history_len must be a positive int, got {history_len!r}")
    if algo not in ("max", "most_recent"):
        raise ValueError(f"algo must be 'max' or 'most_recent', got {algo!r}")

    def chosen(step):
        window = amaxes[max(0, step - history_len):step]
        return window[-1] if algo == "most_recent" else max(window)

    margin = 0
    while amaxes[spike_step] > math.ldexp(chosen(spike_step), margin):
        margin += 1
    later = range(spike_step + 1, min(len(amaxes), spike_step + history_len + 1))
    return margin, sum(1 for step in later if chosen(step) == amaxes[spike_step])
