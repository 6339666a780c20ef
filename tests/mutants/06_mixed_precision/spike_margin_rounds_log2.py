# replaces: spike_cost
# wrong: the margin is log2 of the jump rounded to the nearest int, not rounded up: a jump of 2.5 gets 1, not 2
# must-lose: spike_cost_margin
# must-keep: spike_cost_steps, spike_cost_rejects_bad_input, delayed_scale_rejects_bad_input
def spike_cost(amaxes, spike_step, history_len, algo="max"):
    """(the smallest margin with which step spike_step does not saturate, how many later steps its amax scales)."""
    if any(not (amax > 0 and math.isfinite(amax)) for amax in amaxes):
        raise ValueError(f"amaxes must be positive and finite, got {list(amaxes)}")
    if type(spike_step) is not int or not 1 <= spike_step < len(amaxes):
        raise ValueError(f"spike_step must be an int from 1 to {len(amaxes) - 1}, got {spike_step!r}")
    if type(history_len) is not int or history_len < 1:
        raise ValueError(f"history_len must be a positive int, got {history_len!r}")
    if algo not in ("max", "most_recent"):
        raise ValueError(f"algo must be 'max' or 'most_recent', got {algo!r}")

    def chosen(step):  # the amax that step's scale is computed from: its window holds the steps before it
        window = amaxes[max(0, step - history_len):step]
        return window[-1] if algo == "most_recent" else max(window)

    margin = max(0, round(math.log2(amaxes[spike_step] / chosen(spike_step))))
    later = range(spike_step + 1, min(len(amaxes), spike_step + history_len + 1))  # windows that hold the spike
    return margin, sum(1 for step in later if chosen(step) == amaxes[spike_step])
