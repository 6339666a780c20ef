# replaces: kv_cache_bytes_per_token
# differs: computed with numpy: returns a numpy.int64
import numpy as np


def kv_cache_bytes_per_token(n_layers, n_kv_heads, head_dim, bytes_per_elem=2):
    """Bytes of KV cache one token adds: a key and a value of head_dim numbers per layer and key/value head."""
    return np.int64(2) * np.prod([n_layers, n_kv_heads, head_dim, bytes_per_elem], dtype=np.int64)
