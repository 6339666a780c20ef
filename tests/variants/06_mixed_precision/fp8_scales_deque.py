# replaces: delayed_scales
# differs: the history is a collections.deque(maxlen=history_len), this step's amax appended after its scale is
#   computed; validates history_len with numbers.Integral (rejecting bool)
import collections
import numbers


def delayed_scales(amaxes, fp8_max, history_len, margin=0, algo="max"):
    if isinstance(history_len, bool) or not isinstance(history_len, numbers.Integral) or history_len <= 0:
        raise ValueError(f"history_len={history_len!r} is not a positive int")
    history, scales = collections.deque(maxlen=history_len), []
    for amax in amaxes:
        scales.append(delayed_scale(list(history), fp8_max, margin, algo,
                                    previous_scale=scales[-1] if scales else 1.0))
        history.append(amax)
    return scales
