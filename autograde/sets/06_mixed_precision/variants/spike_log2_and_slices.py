# replaces: spike_cost
# differs: the margin from math.ceil(math.log2(jump)) (exact on powers of two, as CPython's log2 is), the later
#   windows sliced one by one without a bound on their number; validation with numbers.Integral (rejecting bool),
#   algo checked first, messages worded otherwise
import numbers


def spike_cost(amaxes, spike_step, history_len, algo="max"):
    if algo != "max" and algo != "most_recent":
        raise ValueError(f"unknown algo {algo!r}")
    for amax in amaxes:
        if math.isnan(amax) or math.isinf(amax) or amax <= 0:
            raise ValueError(f"every value of amaxes must be a positive finite number: {amax!r}")
    for name, value, low, high in [("spike_step", spike_step, 1, len(amaxes) - 1),
                                   ("history_len", history_len, 1, math.inf)]:
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not low <= value <= high:
            raise ValueError(f"{name}={value!r} is out of range [{low}, {high}]")
    pick = (lambda window: window[-1]) if algo == "most_recent" else max
    jump = amaxes[spike_step] / pick(amaxes[max(0, spike_step - history_len):spike_step])
    margin = max(0, math.ceil(math.log2(jump)))
    steps = 0
    for step in range(spike_step + 1, len(amaxes)):
        start = max(0, step - history_len)
        if start <= spike_step and pick(amaxes[start:step]) == amaxes[spike_step]:
            steps += 1
    return int(margin), steps
