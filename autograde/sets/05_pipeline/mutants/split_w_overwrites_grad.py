# replaces: backward_input
# wrong: backward_weight sets .grad to this microbatch's gradient instead of adding to it: only the last W's
#   microbatch counts
# must-lose: backward_input_then_weight, zero_bubble_runs_on_a_real_pipeline
# must-keep: zb_schedule_one_chunk, zb_schedule_interleaved, zb_schedule_rejects_invalid
@@ -9,3 +9,3 @@
     params = list(params)
     for w, grad in zip(params, torch.autograd.grad(output, params, grad_output)):
-        w.grad = grad if w.grad is None else w.grad + grad
+        w.grad = grad
