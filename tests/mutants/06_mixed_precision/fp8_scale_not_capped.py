# replaces: delayed_scale
# wrong: no cap: for a tiny amax it returns a scale above the largest fp32 number (inf in fp32)
# must-lose: delayed_scale_formula
# must-keep: delayed_scale_keeps_previous_scale, spike_cost_margin, spike_cost_steps,
#   delayed_scale_rejects_bad_input, spike_cost_rejects_bad_input
def delayed_scale(amax_history, fp8_max, margin=0, algo="max", previous_scale=1.0):
    """Transformer Engine's delayed scaling: (fp8_max / amax) / 2^margin, amax from the earlier steps' amaxes."""
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
    if algo == "most_recent":
        amax = amax_history[-1]
    else:
        amax = math.nan if any(math.isnan(a) for a in amax_history) else max(amax_history)
    if not (amax > 0 and math.isfinite(amax)):
        return previous_scale
    scale = fp8_max / amax / 2**margin
    fp32_max = torch.finfo(torch.float32).max
    return float(scale)
