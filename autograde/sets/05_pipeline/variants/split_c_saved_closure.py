# replaces: backward_input
# differs: backward_input prepares W as a closure kept in a dict keyed by the output's id (the deferred callable),
#   and backward_weight runs it; W sums each gradient with torch.add into a fresh .grad
_deferred = {}


def backward_input(output, input, grad_output):
    """B: the gradient of the loss with respect to `input`; no parameter's .grad changes, the graph is kept for W."""
    grad_input = torch.autograd.grad(output, input, grad_output, retain_graph=True)[0]

    def weight_gradients(params):
        return torch.autograd.grad(output, params, grad_output, allow_unused=True)

    _deferred[id(output)] = weight_gradients
    return grad_input


def backward_weight(output, params, grad_output):
    """W: add the gradient of the loss with respect to each of `params` into its .grad."""
    params = list(params)
    weight_gradients = _deferred.pop(id(output), None)
    grads = weight_gradients(params) if weight_gradients else torch.autograd.grad(output, params, grad_output)
    for w, g in zip(params, grads):
        if g is not None:
            w.grad = g if w.grad is None else torch.add(w.grad, g)
