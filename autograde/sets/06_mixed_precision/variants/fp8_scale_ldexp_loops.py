# replaces: delayed_scale
# differs: finds the amax with an explicit loop (a NaN ends it), divides by 2^margin with math.ldexp, and checks the
#   arguments in another order (algo first), a bool margin rejected by identity; prints nothing, returns the previous
#   scale unchanged in one place
def delayed_scale(amax_history, fp8_max, margin=0, algo="max", previous_scale=1.0):
    if algo != "max" and algo != "most_recent":
        raise ValueError("algo: expected 'max' or 'most_recent', got %r" % (algo,))
    for value in amax_history:
        if value < 0:
            raise ValueError("amax_history has a negative entry %r" % (value,))
    if not isinstance(margin, int) or margin is True or margin is False or margin < 0:
        raise ValueError("margin: a non-negative int is needed, not %r" % (margin,))
    if math.isnan(fp8_max) or math.isinf(fp8_max) or fp8_max <= 0:
        raise ValueError("fp8_max: a positive finite number is needed, not %r" % (fp8_max,))
    amax = None
    if algo == "most_recent":
        amax = amax_history[-1] if len(amax_history) else None
    else:
        for value in amax_history:
            if value != value:  # NaN
                amax = value
                break
            if amax is None or value > amax:
                amax = value
    usable = amax is not None and amax == amax and amax != math.inf and amax > 0
    if not usable:
        return previous_scale
    scale = math.ldexp(fp8_max / amax, -margin)
    return min(scale, torch.finfo(torch.float32).max)
