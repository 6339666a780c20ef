# replaces: kv_cache_bytes_per_token
# wrong: checks nothing: a tp of 3 for 32 heads, a stage without a layer or a rank past the devices give
#   a number (its KV heads as max(n_kv_heads // tp, 1))
# must-lose: kv_cache_bytes_rejects_bad_input
# must-keep: kv_cache_bytes_published_models, kv_cache_bytes_of_a_rank, kv_cache_bytes_uneven_stages,
#   shard_heads_contiguous_groups, shard_heads_replicates_kv_heads, decode_step_time_weights_bound,
#   decode_step_time_full_model, decode_step_time_rejects_bad_input, best_config_is_the_best,
#   best_config_slo_memory_ties, best_config_rejects_bad_input
def kv_cache_bytes_per_token(model, tp=1, pp=1, rank=0):
    """Bytes of KV cache one token adds on device `rank` of a tp x pp replica: its stage's layers, its KV heads."""
    n_layers = model["n_layers"]
    stage, tp_rank = divmod(rank, tp)  # tensor-parallel ranks next to each other
    kv_heads = range(max(model["n_kv_heads"] // tp, 1))
    layers = n_layers // pp + (1 if stage < n_layers % pp else 0)  # the first n_layers % pp stages: one more
    return int(2 * layers * len(kv_heads) * model["head_dim"] * model["bytes_per_param"])
