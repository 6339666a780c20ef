# replaces: llama_activation_memory_per_layer
# differs: the local shapes one rank holds (s_local, a_local, a_kv_local, f_local), elements summed, then 2 bytes each
def llama_activation_memory_per_layer(s, b, h, a, a_kv, f, t=1, sequence_parallel=False, recompute="none"):
    if any(not isinstance(x, int) or x < 1 for x in (s, b, h, a, a_kv, f, t)):
        raise ValueError("s, b, h, a, a_kv, f and t must be positive integers")
    if a % a_kv or a_kv % t or f % t:
        raise ValueError("need a_kv | a, t | a_kv and t | f")
    if recompute not in ("none", "selective", "full"):
        raise ValueError("recompute is none, selective or full")
    s_whole = s / t if sequence_parallel else s  # the sequence length of what stays whole without SP
    if recompute == "full":
        return 2 * s_whole * b * h
    d = h / a
    a_local, a_kv_local, f_local = a / t, a_kv / t, f / t
    elements = (4 * s_whole * b * h  # two norms' inputs, QKV and gate/up inputs
                + s * b * a_local * d + 2 * s * b * a_kv_local * d  # Q, K, V
                + s * b * a_local * d  # the output projection's input: this rank's heads
                + 4 * s * b * f_local)
    if recompute == "none":
        elements += b * a_local * s * s
    return 2 * elements
