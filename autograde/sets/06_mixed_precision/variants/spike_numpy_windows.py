# replaces: spike_cost
# differs: numpy: each window's chosen amax with np.max / indexing on an array, the margin from 2 ** margin * chosen
#   in a loop (Python ints times floats), the count with np.count_nonzero; returns Python ints
import numpy as np


def spike_cost(amaxes, spike_step, history_len, algo="max"):
    values = np.asarray(amaxes, dtype=np.float64)
    if values.size and not (np.isfinite(values).all() and (values > 0).all()):
        raise ValueError("amaxes: every amax must be positive and finite")
    if type(history_len) is not int or history_len <= 0:
        raise ValueError("history_len: a positive int, please")
    if type(spike_step) is not int or spike_step <= 0 or spike_step >= values.size:
        raise ValueError(f"spike_step {spike_step!r}: not a step with a history")
    if algo not in {"max", "most_recent"}:
        raise ValueError(f"algo: {algo!r}")

    def chosen(step):
        window = values[max(0, step - history_len):step]
        return float(window[-1] if algo == "most_recent" else np.max(window))

    spike, margin = float(values[spike_step]), 0
    while spike > 2 ** margin * chosen(spike_step):
        margin += 1
    held = np.array([chosen(step) == spike for step in range(spike_step + 1, values.size)
                     if step - history_len <= spike_step], dtype=bool)
    return margin, int(np.count_nonzero(held))
