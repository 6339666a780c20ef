# replaces: Zero2Optimizer
# wrong: frees the parameters' gradients but keeps the padded flat gradient buffer between steps (reused as the
#   reduce-scatter's input): a full gradient per rank all the same
# must-lose: zero2_holds_one_shard
# must-keep: zero2_matches_adamw, zero2_moves_reduce_scatter_and_all_gather, zero2_rejects_bad_input
@@ -37,5 +37,5 @@
         grad = torch.empty_like(self.shard)
         dist.reduce_scatter_single(grad, flat_grad, group=self.group)  # the sum of my shard, from every rank
-        del flat_grad
+        self.flat_grad = flat_grad  # reused next step (so it says)
         self.shard.grad = grad.div_(self.world_size)
         self.optimizer.step()
