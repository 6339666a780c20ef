# replaces: llama_activation_memory_per_layer
# differs: the closed form sbh(12 + 4 a_kv / a) + 8 sbf + 2 a s^2 b for one process, its TP and SP shares expanded
def llama_activation_memory_per_layer(s, b, h, a, a_kv, f, t=1, sequence_parallel=False, recompute="none"):
    if recompute not in ("none", "selective", "full"):
        raise ValueError("recompute must be none, selective or full")
    if not all(x > 0 for x in (s, b, h, a, a_kv, f, t)):
        raise ValueError("sizes must be positive")
    if a % a_kv != 0 or a_kv % t != 0 or f % t != 0:
        raise ValueError("a_kv must divide a; t must divide a_kv and f")
    sbh = s * b * h
    if recompute == "full":
        return 2 * sbh / t if sequence_parallel else 2.0 * sbh
    core = 0 if recompute == "selective" else 2 * a * s * s * b
    sharded = sbh * (4 + 4 * a_kv / a) + 8 * s * b * f + core
    return (8 * sbh + sharded) / t if sequence_parallel else 8 * sbh + sharded / t
