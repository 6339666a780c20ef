# replaces: prefill_time
# differs: exact arithmetic with fractions.Fraction, rounded to a float once at the end; validation through
#   decode_step_time (same arguments, with the prompt as the batch), a warning-free print of nothing
from fractions import Fraction


def prefill_time(model, hardware, tp, pp, prompt_len):
    """Seconds until the first token of one prompt of `prompt_len` tokens on tp x pp devices."""
    decode_step_time(model, hardware, tp, pp, prompt_len, prompt_len)  # the same ValueErrors
    n, b = Fraction(model["n_params"]), Fraction(model["bytes_per_param"])
    latency, link = Fraction(hardware["link_latency"]), Fraction(hardware["link_bandwidth"])
    stage = max(n * b / (tp * pp) / Fraction(hardware["hbm_bandwidth"]),
                2 * n * prompt_len / (tp * pp) / Fraction(hardware["flops"]))
    size = prompt_len * Fraction(model["d_model"]) * b
    if tp > 1:
        stage += model["n_layers"] // pp * 2 * (Fraction(2 * (tp - 1), tp) * size / link + 2 * (tp - 1) * latency)
    return float(pp * stage + (pp - 1) * (latency + size / link))
