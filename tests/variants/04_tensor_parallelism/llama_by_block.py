# replaces: llama_activation_memory_per_layer
# differs: counts the attention block and the MLP block separately, per rank, with helpers; integer bytes where exact
def _check(s, b, h, a, a_kv, f, t, recompute):
    if recompute not in ("none", "selective", "full"):
        raise ValueError(f"bad recompute: {recompute}")
    for name, v in zip("s b h a a_kv f t".split(), (s, b, h, a, a_kv, f, t)):
        if v <= 0:
            raise ValueError(f"{name} must be > 0")
    if a % a_kv:
        raise ValueError("a_kv does not divide a")
    if a_kv % t or f % t:
        raise ValueError("t does not divide a_kv or f")


def _attention_bytes(s, b, h, a, a_kv, t, whole, keep_softmax):
    head_dim = h / a
    norm_and_input = 2 * (2 * s * b * h) / whole
    q_k_v_o = 2 * s * b * head_dim * (a + 2 * a_kv) / t + 2 * s * b * h / t
    softmax = 2 * b * a * s * s / t if keep_softmax else 0
    return norm_and_input + q_k_v_o + softmax


def _mlp_bytes(s, b, h, f, t, whole):
    return 2 * (2 * s * b * h) / whole + 4 * (2 * s * b * f) / t


def llama_activation_memory_per_layer(s, b, h, a, a_kv, f, t=1, sequence_parallel=False, recompute="none"):
    _check(s, b, h, a, a_kv, f, t, recompute)
    whole = t if sequence_parallel else 1
    if recompute == "full":
        return 2 * s * b * h / whole
    return (_attention_bytes(s, b, h, a, a_kv, t, whole, recompute == "none")
            + _mlp_bytes(s, b, h, f, t, whole))
