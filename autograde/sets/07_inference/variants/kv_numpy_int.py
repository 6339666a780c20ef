# replaces: kv_cache_bytes_per_token
# differs: computed with numpy: the stage's layers with numpy.array_split, returns a numpy.int64
import numpy as np


def kv_cache_bytes_per_token(model, tp=1, pp=1, rank=0):
    """Bytes of KV cache one token adds on device `rank` of a tp x pp replica: its stage's layers, its KV heads."""
    if not (0 < pp <= model["n_layers"]):
        raise ValueError(f"pp={pp}: every stage needs a layer of the {model['n_layers']}")
    kv_heads = shard_heads(model["n_heads"], model["n_kv_heads"], tp, 0)[1]  # raises for a bad tp
    if rank < 0 or rank >= tp * pp:
        raise ValueError(f"rank={rank}: only {tp * pp} devices")
    layers = np.array_split(np.arange(model["n_layers"]), pp)[rank // tp].size
    kv_heads = shard_heads(model["n_heads"], model["n_kv_heads"], tp, rank % tp)[1]
    return np.int64(2) * np.prod([layers, len(kv_heads), model["head_dim"], model["bytes_per_param"]], dtype=np.int64)
