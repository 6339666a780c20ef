"""Set 06's earlier function as the statement defines it: one mistake, one deduction (issue 47.11: spike_cost is
judged with the statement's delayed_scale in the place of the learner's, so that a wrong margin or algo in
delayed_scale costs delayed_scale's cells, not spike_cost's too). Rank-side code, never in the sandbox before a check
needs it: `_common.statement_source` sends it with each call of `06_mixed_precision_ranks.spike_cost_alone`, which
runs it in a private namespace. Its signature is the statement's (tests/test_statement_standins.py): a learner may
call it by keyword. The expected values stay in the grader.
"""

# === delayed_scale
def _delayed_scale(amax_history, fp8_max, margin=0, algo="max", previous_scale=1.0):
    import math

    import torch

    amax_history = list(amax_history)  # any sequence the learner's spike_cost hands over (a deque, a tuple)
    if not (fp8_max > 0 and math.isfinite(fp8_max)):
        raise ValueError(f"fp8_max must be positive and finite, got {fp8_max!r}")
    if type(margin) is not int or margin < 0:
        raise ValueError(f"margin must be a non-negative int, got {margin!r}")
    if algo not in ("max", "most_recent"):
        raise ValueError(f"algo must be 'max' or 'most_recent', got {algo!r}")
    if any(amax < 0 for amax in amax_history):
        raise ValueError(f"amax_history holds a negative amax: {list(amax_history)}")
    if not amax_history:
        return previous_scale
    amax = amax_history[-1] if algo == "most_recent" else (
        math.nan if any(math.isnan(a) for a in amax_history) else max(amax_history))
    if not (amax > 0 and math.isfinite(amax)):
        return previous_scale
    scale = fp8_max / amax / 2**margin
    fp32_max = torch.finfo(torch.float32).max
    return fp32_max if scale > fp32_max else float(scale)


STAND_IN["delayed_scale"] = _delayed_scale  # noqa: F821 - the preamble's
