# replaces: Zero2Optimizer
# wrong: divides the reduce-scattered gradients by dist.get_world_size() (every rank) instead of the group's size:
#   right with the default group, half the step in a group of 2 of 4 ranks (AdamW hides it, SGD shows it; issue 47.7)
# must-lose: zero2_moves_reduce_scatter_and_all_gather
# must-keep: zero2_matches_adamw, zero2_holds_one_shard, zero2_rejects_bad_input
@@ -38,5 +38,5 @@
         dist.reduce_scatter_single(grad, flat_grad, group=self.group)  # the sum of my shard, from every rank
         del flat_grad
-        self.shard.grad = grad.div_(self.world_size)
+        self.shard.grad = grad.div_(dist.get_world_size())  # wrong: the default group's size, not the group's
         self.optimizer.step()
         flat = torch.empty(self.shard_numel * self.world_size, dtype=self.shard.dtype)
