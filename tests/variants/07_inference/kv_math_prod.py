# replaces: kv_cache_bytes_per_token
# differs: a product of the factors with math.prod, keys and values named; no int() around it
import math


def kv_cache_bytes_per_token(n_layers, n_kv_heads, head_dim, bytes_per_elem=2):
    """Bytes of KV cache one token adds: a key and a value of head_dim numbers per layer and key/value head."""
    tensors_per_head = 2  # a key and a value
    return math.prod((tensors_per_head, n_layers, n_kv_heads, head_dim, bytes_per_elem))
