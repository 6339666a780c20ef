# replaces: Zero2Optimizer
# wrong: the reduce-scattered gradients are summed, never divided by N (AdamW barely shows it; SGD and the shard's
#   .grad do; the group= case of zero2_moves_reduce_scatter_and_all_gather trains with SGD too, issue 47.7)
# must-lose: zero2_matches_adamw, zero2_holds_one_shard, zero2_moves_reduce_scatter_and_all_gather
# must-keep: zero2_rejects_bad_input
@@ -38,5 +38,5 @@
         dist.reduce_scatter_single(grad, flat_grad, group=self.group)  # the sum of my shard, from every rank
         del flat_grad
-        self.shard.grad = grad.div_(self.world_size)
+        self.shard.grad = grad
         self.optimizer.step()
         flat = torch.empty(self.shard_numel * self.world_size, dtype=self.shard.dtype)
