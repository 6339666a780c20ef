# replaces: kv_cache_bytes_per_token
# differs: a product of the factors with math.prod, keys and values named; no int() around it; the stage's layers
#   from its first and last layer (stage s starts at s * (n_layers // pp) + min(s, n_layers % pp)); checks in
#   another order
import math


def kv_cache_bytes_per_token(model, tp=1, pp=1, rank=0):
    """Bytes of KV cache one token adds on device `rank` of a tp x pp replica: its stage's layers, its KV heads."""
    if tp < 1 or not 0 <= rank < tp * pp:
        raise ValueError(f"device {rank} is not one of tp={tp} x pp={pp}")
    if pp < 1 or pp > model["n_layers"]:
        raise ValueError(f"pp={pp} must be from 1 to n_layers={model['n_layers']}")
    stage, tp_rank = rank // tp, rank % tp
    base, extra = divmod(model["n_layers"], pp)
    first = lambda s: s * base + min(s, extra)  # noqa: E731
    layers = first(stage + 1) - first(stage)
    query_heads, kv_heads = shard_heads(model["n_heads"], model["n_kv_heads"], tp, tp_rank)
    tensors_per_head = 2  # a key and a value
    return math.prod((tensors_per_head, layers, len(kv_heads), model["head_dim"], model["bytes_per_param"]))
