# replaces: backward_input
# wrong: backward_weight sets .grad to this microbatch's gradient instead of adding to it: only the last W's
#   microbatch counts
# must-lose: backward_input_then_weight, zero_bubble_runs_on_a_real_pipeline
# must-keep: zb_schedule_one_chunk, zb_schedule_interleaved, zb_schedule_rejects_invalid
def backward_input(output, input, grad_output):
    """B: the gradient of the loss with respect to `input`; no parameter's .grad changes, the graph is kept for W."""
    (grad_input,) = torch.autograd.grad(output, (input,), grad_output, retain_graph=True)
    return grad_input


def backward_weight(output, params, grad_output):
    """W: add the gradient of the loss with respect to each of `params` into its .grad."""
    params = list(params)
    for w, grad in zip(params, torch.autograd.grad(output, params, grad_output)):
        w.grad = grad
