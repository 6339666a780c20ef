# replaces: decode_step_time
# differs: exact arithmetic with fractions.Fraction, returned as a numpy.float64; validation in one loop over a list
from fractions import Fraction

import numpy as np


def decode_step_time(model, hardware, tp, pp, batch, context_len):
    """Seconds of one decode step of `batch` sequences of `context_len` cached tokens on tp x pp devices."""
    checked = list(model.items()) + list(hardware.items()) + [("tp", tp), ("pp", pp), ("batch", batch),
                                                               ("context_len", context_len)]
    for name, value in checked:
        if value < 0 or (value == 0 and name != "link_latency"):
            raise ValueError(f"{name} must be positive (link_latency: not negative), got {value}")
    if model["n_layers"] % pp:
        raise ValueError("pp must divide n_layers")
    shard_heads(model["n_heads"], model["n_kv_heads"], tp, 0)
    m = {k: Fraction(v) for k, v in model.items()}
    h = {k: Fraction(v) for k, v in hardware.items()}
    layers = m["n_layers"] / pp
    bytes_read = m["n_params"] * m["bytes_per_param"] / (tp * pp) + batch * context_len * Fraction(
        kv_cache_bytes_per_token(model, tp, pp, 0))
    stage = max(bytes_read / h["hbm_bandwidth"], 2 * m["n_params"] * batch / (tp * pp) / h["flops"])
    s = batch * m["d_model"] * m["bytes_per_param"]
    ring = Fraction(2 * (tp - 1), tp) * s / h["link_bandwidth"] + 2 * (tp - 1) * h["link_latency"]
    step = pp * (stage + 2 * layers * ring) + (pp - 1) * (h["link_latency"] + s / h["link_bandwidth"])
    return np.float64(float(step))
