# replaces: delayed_scale
# wrong: no validation: bad fp8_max, margin, algo and negative amaxes are accepted
# must-lose: delayed_scale_rejects_bad_input
# must-keep: delayed_scale_formula, delayed_scale_keeps_previous_scale, spike_cost_margin, spike_cost_steps,
#   spike_cost_rejects_bad_input
def delayed_scale(amax_history, fp8_max, margin=0, algo="max", previous_scale=1.0):
    """Transformer Engine's delayed scaling: (fp8_max / amax) / 2^margin, amax from the earlier steps' amaxes."""
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
    return fp32_max if scale > fp32_max else float(scale)
