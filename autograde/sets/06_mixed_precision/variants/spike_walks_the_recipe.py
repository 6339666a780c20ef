# replaces: spike_cost
# differs: walks the run step by step with a collections.deque(maxlen=history_len) as Transformer Engine's amax
#   history (each step's chosen amax read before its own amax is recorded), the margin from math.frexp of the jump,
#   and the steps counted from the recorded chosen amaxes
import collections


def spike_cost(amaxes, spike_step, history_len, algo="max"):
    amaxes = list(amaxes)
    if not all(0 < amax < math.inf for amax in amaxes):
        raise ValueError("amaxes hold an amax that is not positive and finite")
    if type(spike_step) is not int or not 0 < spike_step < len(amaxes):
        raise ValueError(f"spike_step must be in 1..{len(amaxes) - 1}: {spike_step!r}")
    if type(history_len) is not int or history_len < 1:
        raise ValueError(f"history_len must be a positive int: {history_len!r}")
    if algo not in ("max", "most_recent"):
        raise ValueError(f"algo must be 'max' or 'most_recent': {algo!r}")
    history, chosen = collections.deque(maxlen=history_len), []
    for amax in amaxes:
        chosen.append((history[-1] if algo == "most_recent" else max(history)) if history else None)
        history.append(amax)
    mantissa, exponent = math.frexp(amaxes[spike_step] / chosen[spike_step])  # jump = mantissa * 2^exponent
    margin = max(0, exponent - 1 if mantissa == 0.5 else exponent)
    steps = sum(1 for step in range(spike_step + 1, min(len(amaxes), spike_step + history_len + 1))
                if chosen[step] == amaxes[spike_step])
    return margin, steps
