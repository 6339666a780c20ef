# replaces: kv_cache_bytes_per_token
# wrong: returns a float (131072.0), not the int the exercise asks for
# must-lose: kv_cache_bytes_published_models
def kv_cache_bytes_per_token(n_layers, n_kv_heads, head_dim, bytes_per_elem=2):
    """Bytes of KV cache one token adds: a key and a value of head_dim numbers per layer and key/value head."""
    return 2.0 * n_layers * n_kv_heads * head_dim * bytes_per_elem
