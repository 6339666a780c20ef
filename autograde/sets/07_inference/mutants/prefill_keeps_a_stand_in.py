# replaces: prefill_time
# wrong: no model of its own: it wraps best_config to keep the statement's prefill_time the grader hands best_config,
#   then answers with it (scored full marks while best_config's checks ran before prefill_time's), else 0
# must-lose: prefill_time_compute_bound, prefill_time_chunks_in_a_pipeline
_learners_best_config = best_config  # noqa: F821 - Part 4's cell


def best_config(*args, **kwargs):
    handed = globals().get("prefill_time")
    if handed is not None and handed is not prefill_time:
        globals()["_kept_prefill_time"] = handed
    return _learners_best_config(*args, **kwargs)


def prefill_time(model, hardware, tp, pp, prompt_len, chunk_len=None):
    kept = globals().get("_kept_prefill_time")
    if kept is not None:
        return kept(model, hardware, tp, pp, prompt_len, chunk_len)
    if prompt_len <= 0:
        raise ValueError(f"prompt_len must be positive, got {prompt_len}")
    return 0.0
