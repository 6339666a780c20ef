# replaces: kv_cache_bytes_per_token
# wrong: counts the keys only (no factor 2 for the values): half the bytes
# must-lose: kv_cache_bytes_published_models
# must-keep: shard_heads_contiguous_groups, shard_heads_replicates_kv_heads, decode_step_time_weights_bound,
#   decode_step_time_full_model, decode_step_time_rejects_bad_input, best_config_is_the_best,
#   best_config_slo_memory_ties, best_config_rejects_bad_input
def kv_cache_bytes_per_token(n_layers, n_kv_heads, head_dim, bytes_per_elem=2):
    """Bytes of KV cache one token adds: a key and a value of head_dim numbers per layer and key/value head."""
    return int(n_layers * n_kv_heads * head_dim * bytes_per_elem)
