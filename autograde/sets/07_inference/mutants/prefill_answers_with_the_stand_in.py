# replaces: prefill_time
# wrong: no model of its own: it answers with the grader's stand-in for prefill_time wherever the sandbox holds one (by
#   name, in the namespace, or anywhere the garbage collector sees it), else 0 (scored full marks while the rank- side
#   file defined the stand-ins)
# must-lose: prefill_time_compute_bound, prefill_time_chunks_in_a_pipeline
def prefill_time(model, hardware, tp, pp, prompt_len, chunk_len=None):
    import gc
    found = [globals().get("_prefill_time"), globals().get("STATEMENT", {}).get("prefill_time")]
    found += [f for f in gc.get_objects() if callable(f) and getattr(f, "__name__", "") == "_prefill_time"]
    for stand_in in found:
        if stand_in is not None:
            return stand_in(model, hardware, tp, pp, prompt_len, chunk_len)
    if prompt_len <= 0:
        raise ValueError(f"prompt_len must be positive, got {prompt_len}")
    return 0.0
