# replaces: prefill_time
# differs: exact arithmetic with fractions.Fraction, rounded to a float once at the end; validation through
#   decode_step_time (same arguments, with the prompt as the batch); chunk_len checked with divmod; the schedule's
#   closed form written as fill (pp stage times and pp - 1 hops for the first chunk) plus one stage time per later chunk
from fractions import Fraction


def prefill_time(model, hardware, tp, pp, prompt_len, chunk_len=None):
    """Seconds until the first token of one prompt of `prompt_len` tokens on tp x pp devices."""
    decode_step_time(model, hardware, tp, pp, prompt_len, prompt_len)  # the same ValueErrors
    c = prompt_len if chunk_len is None else chunk_len
    if isinstance(c, bool) or not isinstance(c, int) or c < 1:
        raise ValueError(f"chunk_len={chunk_len!r} is not a positive int")
    chunks, rest = divmod(prompt_len, c)
    if rest:
        raise ValueError(f"chunk_len={c} leaves {rest} tokens of the prompt over")
    n, b = Fraction(model["n_params"]), Fraction(model["bytes_per_param"])
    latency, link = Fraction(hardware["link_latency"]), Fraction(hardware["link_bandwidth"])
    stage = max(n * b / (tp * pp) / Fraction(hardware["hbm_bandwidth"]),
                2 * n * c / (tp * pp) / Fraction(hardware["flops"]))
    size = c * Fraction(model["d_model"]) * b
    if tp > 1:
        stage += model["n_layers"] // pp * 2 * (Fraction(2 * (tp - 1), tp) * size / link + 2 * (tp - 1) * latency)
    first_chunk = pp * stage + (pp - 1) * (latency + size / link)
    return float(first_chunk + (chunks - 1) * stage)
