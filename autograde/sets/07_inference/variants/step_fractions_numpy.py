# replaces: decode_step_time
# differs: exact arithmetic with fractions.Fraction, returned as a numpy.float64; validation in one loop over a list;
#   the stages' layers from numpy.array_split; the stage times as a list summed with sum()
from fractions import Fraction

import numpy as np


def decode_step_time(model, hardware, tp, pp, batch, context_len):
    """Seconds of one decode step of `batch` sequences of `context_len` cached tokens on tp x pp devices."""
    checked = list(model.items()) + list(hardware.items()) + [("tp", tp), ("pp", pp), ("batch", batch),
                                                               ("context_len", context_len)]
    for name, value in checked:
        if value < 0 or (value == 0 and name != "link_latency"):
            raise ValueError(f"{name} must be positive (link_latency: not negative), got {value}")
    if pp > model["n_layers"]:
        raise ValueError("pp must be at most n_layers")
    if 2 * model["vocab_size"] * model["d_model"] >= model["n_params"]:
        raise ValueError("vocab_size: the embedding and the output layer take every parameter")
    shard_heads(model["n_heads"], model["n_kv_heads"], tp, 0)
    m = {k: Fraction(v) for k, v in model.items()}
    h = {k: Fraction(v) for k, v in hardware.items()}
    vocab = m["vocab_size"] * m["d_model"]
    per_layer = (m["n_params"] - 2 * vocab) / m["n_layers"]
    s = batch * m["d_model"] * m["bytes_per_param"]
    ring = Fraction(2 * (tp - 1), tp) * s / h["link_bandwidth"] + 2 * (tp - 1) * h["link_latency"]
    stage_times = []
    for stage, layers in enumerate(np.array_split(np.arange(model["n_layers"]), pp)):
        params = (len(layers) * per_layer + (vocab if stage == pp - 1 else 0)) / tp
        kv = batch * context_len * Fraction(kv_cache_bytes_per_token(model, tp, pp, stage * tp))
        stage_times.append(max((params * m["bytes_per_param"] + kv) / h["hbm_bandwidth"],
                               2 * params * batch / h["flops"]) + 2 * len(layers) * ring)
    step = sum(stage_times) + (pp - 1) * (h["link_latency"] + s / h["link_bandwidth"])
    return np.float64(float(step))
