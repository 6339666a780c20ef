# replaces: llama_activation_memory_per_layer
# wrong: counts K and V as wide as Q (multi-head attention): grouped-query attention's K and V
#   are a_kv / a as wide
# must-lose: llama_activation_memory_matches_count
# must-keep: activation_memory_matches_formula, activation_memory_rejects_bad_input, llama_activation_memory_rejects_bad_input
def llama_activation_memory_per_layer(s, b, h, a, a_kv, f, t=1, sequence_parallel=False, recompute="none"):
    """Bytes of activations one Llama layer (RMSNorm, grouped-query attention, SwiGLU MLP of width f, no dropout)
    keeps for the backward pass, counted as Korthikanti et al. (2022, §4.1) count GPT's."""
    if recompute not in ("none", "selective", "full"):
        raise ValueError(f"recompute must be 'none', 'selective' or 'full', got {recompute!r}")
    for name, value in dict(s=s, b=b, h=h, a=a, a_kv=a_kv, f=f, t=t).items():
        if not value > 0:
            raise ValueError(f"{name} must be positive, got {value!r}")
    if a % a_kv:
        raise ValueError(f"a_kv={a_kv} key/value heads must divide a={a} query heads")
    if a_kv % t or f % t:
        raise ValueError(f"t={t} must divide a_kv={a_kv} and f={f}")
    sbh, whole = s * b * h, (t if sequence_parallel else 1)
    if recompute == "full":
        return 2 * sbh / whole  # the layer's input
    # whole on every TP rank (split along s with SP): the 2 norms' inputs and the 2 column layers' inputs
    replicated = 4 * 2 * sbh
    attention = 2 * sbh + 2 * 2 * sbh + 2 * sbh  # BUG: K, V at a heads  # Q; K and V at a_kv heads; the output projection's input
    softmax = 0 if recompute == "selective" else 2 * a * s * s * b
    mlp = 4 * 2 * s * b * f  # gate's output (SiLU's input), SiLU's output, up's output, the product (down's input)
    return replicated / whole + (attention + softmax + mlp) / t
