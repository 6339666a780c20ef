# replaces: kv_cache_bytes_per_token
# wrong: every device caches every KV head, as if tensor parallelism did not split them
# must-lose: kv_cache_bytes_of_a_rank, kv_cache_bytes_uneven_stages
# must-keep: kv_cache_bytes_published_models, kv_cache_bytes_rejects_bad_input,
#   shard_heads_contiguous_groups, shard_heads_replicates_kv_heads, decode_step_time_weights_bound,
#   decode_step_time_full_model, decode_step_time_rejects_bad_input, best_config_is_the_best,
#   best_config_slo_memory_ties, best_config_rejects_bad_input
def kv_cache_bytes_per_token(model, tp=1, pp=1, rank=0):
    """Bytes of KV cache one token adds on device `rank` of a tp x pp replica: its stage's layers, its KV heads."""
    n_layers = model["n_layers"]
    if not 1 <= pp <= n_layers:
        raise ValueError(f"pp={pp}: {n_layers} layers cannot give each of {pp} stages a layer")
    shard_heads(model["n_heads"], model["n_kv_heads"], tp, 0)  # a tp that does not split the heads raises
    if not 0 <= rank < tp * pp:
        raise ValueError(f"rank {rank} is not one of the {tp * pp} devices of tp={tp} x pp={pp}")
    stage, tp_rank = divmod(rank, tp)  # tensor-parallel ranks next to each other
    _, kv_heads = shard_heads(model["n_heads"], model["n_kv_heads"], tp, tp_rank)
    layers = n_layers // pp + (1 if stage < n_layers % pp else 0)  # the first n_layers % pp stages: one more
    return int(2 * layers * model["n_kv_heads"] * model["head_dim"] * model["bytes_per_param"])
