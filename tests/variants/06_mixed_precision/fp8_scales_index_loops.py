# replaces: delayed_scales
# differs: builds each step's history with an explicit loop over indices, keeps the scales in a dict by step, and
#   raises a ValueError subclass
class HistoryLengthError(ValueError):
    pass


def delayed_scales(amaxes, fp8_max, history_len, margin=0, algo="max"):
    if not isinstance(history_len, int) or isinstance(history_len, bool) or history_len < 1:
        raise HistoryLengthError(f"history_len must be >= 1 and an int: {history_len!r}")
    by_step = {}
    for t in range(len(amaxes)):
        history = []
        for s in range(t - history_len, t):
            if s >= 0:
                history.append(amaxes[s])
        by_step[t] = delayed_scale(history, fp8_max, margin=margin, algo=algo,
                                   previous_scale=by_step.get(t - 1, 1.0))
    return [by_step[t] for t in range(len(amaxes))]
