# replaces: prefill_time
# differs: numpy arithmetic (returns a numpy.float64), the compute and memory times as an array and np.max, the
#   all-reduce written as bytes per rank over the link plus the ring's latency; chunk_len as a keyword with a
#   numpy modulo check
import numpy as np


def prefill_time(model, hardware, tp, pp, prompt_len, chunk_len=None):
    """Seconds until the first token of one prompt of `prompt_len` tokens on tp x pp devices."""
    checked = {**model, **{k: v for k, v in hardware.items() if k != "link_latency"}, "tp": tp, "pp": pp,
               "prompt_len": prompt_len}
    bad = [name for name, value in checked.items() if not value > 0]
    if bad or hardware["link_latency"] < 0:
        raise ValueError(f"not positive: {bad or ['link_latency']}")
    shard_heads(model["n_heads"], model["n_kv_heads"], tp, 0)
    if model["n_layers"] % pp:
        raise ValueError(f"pp={pp} must divide n_layers={model['n_layers']}")
    chunk = prompt_len if chunk_len is None else chunk_len
    if type(chunk) is not int or chunk <= 0 or np.mod(prompt_len, chunk) != 0:
        raise ValueError(f"chunk_len={chunk_len!r} must divide the prompt")
    share = np.float64(model["n_params"]) / (tp * pp)
    stage = np.max(np.array([share * model["bytes_per_param"] / hardware["hbm_bandwidth"],
                             2 * share * chunk / hardware["flops"]]))
    size = np.float64(chunk) * model["d_model"] * model["bytes_per_param"]
    per_rank_bytes = 2 * (tp - 1) / tp * size
    ring = per_rank_bytes / hardware["link_bandwidth"] + 2 * (tp - 1) * hardware["link_latency"]
    stage = stage + (model["n_layers"] // pp) * 2 * ring
    chunks = prompt_len // chunk
    return (chunks + pp - 1) * stage + (pp - 1) * (hardware["link_latency"] + size / hardware["link_bandwidth"])
