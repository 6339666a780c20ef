# replaces: activation_memory_per_layer
# wrong: sequence parallelism leaves the 10sbh of LayerNorm and dropout regions undivided by t (as if SP did nothing)
# must-lose: activation_memory_matches_formula
# must-keep: activation_memory_rejects_bad_input
def activation_memory_per_layer(s, b, h, a, t=1, sequence_parallel=False, recompute="none"):
    """Bytes of activations one Transformer layer keeps for the backward pass (Korthikanti et al. 2022, Table 2)."""
    if recompute not in ("none", "selective", "full"):
        raise ValueError(f"recompute must be 'none', 'selective' or 'full', got {recompute!r}")
    for name, value in dict(s=s, b=b, h=h, a=a, t=t).items():
        if not value > 0:
            raise ValueError(f"{name} must be positive, got {value!r}")
    if a % t or h % t:
        raise ValueError(f"t={t} must divide the number of heads a={a} and the hidden size h={h}")
    sbh = s * b * h
    replicated = 1  # LayerNorm and dropout regions: sharded along s only with SP
    if recompute == "full":
        return 2 * sbh / replicated
    attention_core = 0 if recompute == "selective" else 5 * a * s / (h * t)
    return sbh * (10 / replicated + 24 / t + attention_core)
