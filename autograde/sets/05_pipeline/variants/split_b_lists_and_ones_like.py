# replaces: backward_input
# differs: autograd.grad with lists of outputs, inputs and gradients, a scalar's gradient made explicit
#   (torch.ones_like), W adding in place under no_grad (a clone for a .grad that was None), W keeping its graph too
def _gradients_of(output, grad_output):
    return [torch.ones_like(output) if grad_output is None else grad_output]


def backward_input(output, input, grad_output):
    """B: the gradient of the loss with respect to `input`; no parameter's .grad changes, the graph is kept for W."""
    return torch.autograd.grad([output], [input], _gradients_of(output, grad_output), retain_graph=True)[0]


def backward_weight(output, params, grad_output):
    """W: add the gradient of the loss with respect to each of `params` into its .grad."""
    params = [w for w in params]
    grads = torch.autograd.grad([output], params, _gradients_of(output, grad_output), retain_graph=True)
    with torch.no_grad():
        for w, g in zip(params, grads):
            if w.grad is None:
                w.grad = g.clone()
            else:
                w.grad.add_(g)
