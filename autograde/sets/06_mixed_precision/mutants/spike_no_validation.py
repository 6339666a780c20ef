# replaces: spike_cost
# wrong: no validation: amaxes of 0, inf or NaN, a spike_step out of range and a bad history_len or algo are taken
# must-lose: spike_cost_rejects_bad_input
# must-keep: spike_cost_margin, spike_cost_steps, delayed_scale_formula, delayed_scale_rejects_bad_input
def spike_cost(amaxes, spike_step, history_len, algo="max"):
    """(the smallest margin with which step spike_step does not saturate, how many later steps its amax scales)."""
    def chosen(step):  # the amax that step's scale is computed from: its window holds the steps before it
        window = amaxes[max(0, step - history_len):step]
        return window[-1] if algo == "most_recent" else max(window)

    margin = 0
    while amaxes[spike_step] > math.ldexp(chosen(spike_step), margin):  # saturates: amax > 2^margin * chosen
        margin += 1
    later = range(spike_step + 1, min(len(amaxes), spike_step + history_len + 1))  # windows that hold the spike
    return margin, sum(1 for step in later if chosen(step) == amaxes[spike_step])
