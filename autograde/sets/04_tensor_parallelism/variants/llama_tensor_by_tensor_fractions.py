# replaces: llama_activation_memory_per_layer
# differs: one Fraction per kept tensor, from its shape, in a table; returns the exact Fraction
import math
from fractions import Fraction


def llama_activation_memory_per_layer(s, b, h, a, a_kv, f, t=1, sequence_parallel=False, recompute="none"):
    if recompute not in {"none", "selective", "full"}:
        raise ValueError(f"unknown recompute {recompute!r}")
    if min(s, b, h, a, a_kv, f, t) <= 0:
        raise ValueError("every size must be positive")
    if a % a_kv or a_kv % t or f % t:
        raise ValueError(f"a_kv={a_kv} must divide a={a}, and t={t} must divide a_kv and f={f}")
    sp = t if sequence_parallel else 1
    if recompute == "full":
        return Fraction(2 * s * b * h, sp)
    head = Fraction(h, a)
    tensors = [  # (elements, divided by)
        (s * b * h, sp), (s * b * h, sp),  # the two norms' inputs
        (s * b * h, sp), (s * b * h, sp),  # the QKV and gate/up inputs
        (math.prod((b, s, a)) * head, t), (b * s * a_kv * head, t), (b * s * a_kv * head, t),  # Q, K, V
        (s * b * h, t),  # the output projection's input
        (s * b * f, t), (s * b * f, t), (s * b * f, t), (s * b * f, t),  # gate, SiLU, up, product
    ]
    if recompute == "none":
        tensors.append((b * a * s * s, t))  # the softmax's output
    return sum(Fraction(2 * elements, divisor) for elements, divisor in tensors)
