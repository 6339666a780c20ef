# replaces: prefill_time
# differs: numpy arithmetic (returns a numpy.float64), the stages' layers from numpy.array_split and their times as an
#   array (np.sum, np.max: the flow shop's closed form), the all-reduce written as bytes per rank over the link plus
#   the ring's latency; chunk_len as a keyword with a numpy modulo check
import numpy as np


def prefill_time(model, hardware, tp, pp, prompt_len, chunk_len=None):
    """Seconds until the first token of one prompt of `prompt_len` tokens on tp x pp devices."""
    checked = {**model, **{k: v for k, v in hardware.items() if k != "link_latency"}, "tp": tp, "pp": pp,
               "prompt_len": prompt_len}
    bad = [name for name, value in checked.items() if not value > 0]
    if bad or hardware["link_latency"] < 0:
        raise ValueError(f"not positive: {bad or ['link_latency']}")
    shard_heads(model["n_heads"], model["n_kv_heads"], tp, 0)
    if pp > model["n_layers"]:
        raise ValueError(f"pp={pp} is more than n_layers={model['n_layers']}")
    vocab = np.float64(model["vocab_size"]) * model["d_model"]
    if 2 * vocab >= model["n_params"]:
        raise ValueError(f"vocab_size={model['vocab_size']}: no parameters left for the layers")
    chunk = prompt_len if chunk_len is None else chunk_len
    if type(chunk) is not int or chunk <= 0 or np.mod(prompt_len, chunk) != 0:
        raise ValueError(f"chunk_len={chunk_len!r} must divide the prompt")
    layers = np.array([len(s) for s in np.array_split(np.arange(model["n_layers"]), pp)], dtype=np.float64)
    output_layer = np.where(np.arange(pp) == pp - 1, vocab, 0.0)
    share = (layers * (model["n_params"] - 2 * vocab) / model["n_layers"] + output_layer) / tp
    size = np.float64(chunk) * model["d_model"] * model["bytes_per_param"]
    ring = 2 * (tp - 1) / tp * size / hardware["link_bandwidth"] + 2 * (tp - 1) * hardware["link_latency"]
    stages = np.maximum(share * model["bytes_per_param"] / hardware["hbm_bandwidth"],
                        2 * share * chunk / hardware["flops"]) + layers * 2 * ring
    chunks = prompt_len // chunk
    return np.sum(stages) + (chunks - 1) * np.max(stages) + (pp - 1) * (hardware["link_latency"]
                                                                          + size / hardware["link_bandwidth"])
