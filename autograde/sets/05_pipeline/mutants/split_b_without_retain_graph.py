# replaces: backward_input
# wrong: backward_input frees the graph (no retain_graph=True): the W that follows cannot walk it again
# must-lose: backward_input_then_weight, zero_bubble_runs_on_a_real_pipeline
# must-keep: zb_schedule_one_chunk, zb_schedule_interleaved, zb_schedule_rejects_invalid,
#   schedules_run_on_a_real_pipeline
@@ -1,5 +1,5 @@
 def backward_input(output, input, grad_output):
     """B: the gradient of the loss with respect to `input`; no parameter's .grad changes, the graph is kept for W."""
-    (grad_input,) = torch.autograd.grad(output, (input,), grad_output, retain_graph=True)
+    (grad_input,) = torch.autograd.grad(output, (input,), grad_output)
     return grad_input

