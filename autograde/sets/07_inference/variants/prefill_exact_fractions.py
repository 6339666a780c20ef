# replaces: prefill_time
# differs: exact arithmetic with fractions.Fraction, rounded to a float once at the end; validation through
#   decode_step_time (same arguments, with the prompt as the batch); chunk_len checked with divmod; the schedule as
#   the flow shop's closed form (every stage once, the slowest once more per later chunk, the hops), not simulated
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
    b = Fraction(model["bytes_per_param"])
    latency, link = Fraction(hardware["link_latency"]), Fraction(hardware["link_bandwidth"])
    vocab = Fraction(model["vocab_size"]) * model["d_model"]
    per_layer = (Fraction(model["n_params"]) - 2 * vocab) / model["n_layers"]
    size = c * Fraction(model["d_model"]) * b
    times = []
    for stage in range(pp):
        layers = model["n_layers"] // pp + (1 if stage < model["n_layers"] % pp else 0)
        params = (layers * per_layer + (vocab if stage == pp - 1 else 0)) / tp
        t = max(params * b / Fraction(hardware["hbm_bandwidth"]), 2 * params * c / Fraction(hardware["flops"]))
        if tp > 1:
            t += layers * 2 * (Fraction(2 * (tp - 1), tp) * size / link + 2 * (tp - 1) * latency)
        times.append(t)
    return float(sum(times) + (chunks - 1) * max(times) + (pp - 1) * (latency + size / link))
