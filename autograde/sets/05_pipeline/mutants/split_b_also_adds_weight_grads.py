# replaces: backward_input
# wrong: backward_input runs the whole backward (output.backward, retaining the graph): the weights get their
#   gradient in B and again in W, twice the gradient, and none of it waits for W
# must-lose: backward_input_then_weight, zero_bubble_runs_on_a_real_pipeline
# must-keep: zb_schedule_one_chunk, zb_schedule_interleaved, zb_schedule_rejects_invalid
@@ -1,6 +1,6 @@
 def backward_input(output, input, grad_output):
     """B: the gradient of the loss with respect to `input`; no parameter's .grad changes, the graph is kept for W."""
-    (grad_input,) = torch.autograd.grad(output, (input,), grad_output, retain_graph=True)
-    return grad_input
+    output.backward(grad_output, retain_graph=True)
+    return input.grad


