# replaces: backward_input
# wrong: no split at all: backward_input runs the whole backward and backward_weight does nothing; the gradients are
#   right, but the weight gradients come in B, not deferred to W
# must-lose: backward_input_then_weight, zero_bubble_runs_on_a_real_pipeline
# must-keep: zb_schedule_one_chunk, zb_schedule_interleaved, zb_schedule_rejects_invalid
def backward_input(output, input, grad_output):
    """B: the gradient of the loss with respect to `input`; no parameter's .grad changes, the graph is kept for W."""
    output.backward(grad_output)
    return input.grad


def backward_weight(output, params, grad_output):
    """W: add the gradient of the loss with respect to each of `params` into its .grad."""
    pass
