# replaces: activation_memory_per_layer
# wrong: never raises: an unknown recompute counts as 'none', t need not divide a or h
# must-lose: activation_memory_rejects_bad_input
# must-keep: activation_memory_matches_formula
def activation_memory_per_layer(s, b, h, a, t=1, sequence_parallel=False, recompute="none"):
    """Bytes of activations one Transformer layer keeps for the backward pass (Korthikanti et al. 2022, Table 2)."""
    sbh = s * b * h
    replicated = t if sequence_parallel else 1  # LayerNorm and dropout regions: sharded along s only with SP
    if recompute == "full":
        return 2 * sbh / replicated
    attention_core = 0 if recompute == "selective" else 5 * a * s / (h * t)
    return sbh * (10 / replicated + 24 / t + attention_core)
