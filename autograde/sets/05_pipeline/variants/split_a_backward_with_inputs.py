# replaces: backward_input
# differs: Tensor.backward(inputs=[input]) for B (its .grad, the input being a fresh leaf) and
#   torch.autograd.backward(inputs=params) for W, which accumulates into .grad itself
def backward_input(output, input, grad_output):
    """B: the gradient of the loss with respect to `input`; no parameter's .grad changes, the graph is kept for W."""
    input.grad = None
    output.backward(grad_output, inputs=[input], retain_graph=True)
    return input.grad


def backward_weight(output, params, grad_output):
    """W: add the gradient of the loss with respect to each of `params` into its .grad."""
    torch.autograd.backward(output, grad_output, inputs=list(params))
