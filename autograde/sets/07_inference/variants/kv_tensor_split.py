# replaces: kv_cache_bytes_per_token
# differs: the stage's layers with torch.tensor_split (the statement's rule), the device's place from a grid of
#   ranks (torch.arange(tp * pp).view(pp, tp)), keyword calls to shard_heads
import torch


def kv_cache_bytes_per_token(model, tp=1, pp=1, rank=0):
    """Bytes of KV cache one token adds on device `rank` of a tp x pp replica: its stage's layers, its KV heads."""
    shard_heads(n_heads=model["n_heads"], n_kv_heads=model["n_kv_heads"], tp=tp, rank=0)
    if not 1 <= pp <= model["n_layers"]:
        raise ValueError(f"pp={pp}: a stage would hold no layer")
    grid = torch.arange(tp * pp).view(pp, tp)  # row: a stage; column: a tensor-parallel rank
    where = (grid == rank).nonzero()
    if len(where) != 1:
        raise ValueError(f"rank {rank} is not in the {tp} x {pp} grid")
    stage, tp_rank = where[0].tolist()
    layers = torch.tensor_split(torch.arange(model["n_layers"]), pp)[stage].numel()
    _, kv = shard_heads(n_heads=model["n_heads"], n_kv_heads=model["n_kv_heads"], tp=tp, rank=tp_rank)
    return 2 * layers * len(kv) * model["head_dim"] * model["bytes_per_param"]
