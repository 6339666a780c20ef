# replaces: ShardedOptimizer
# wrong: divides the summed gradients by dist.get_world_size() (every rank) instead of the group's size: right with
#   the default group, half the step in a group of 2 of 4 ranks (AdamW hides the scale, SGD shows it; issue 47.7)
# must-lose: sharded_optimizer_averages_gradients
# must-keep: sharded_optimizer_matches_adamw, sharded_optimizer_tied_and_frozen, sharded_optimizer_state_is_sharded
@@ -32,5 +32,5 @@
                 dist.reduce(p.grad, dst=global_rank(self.owner[i]), group=self.group)
                 if self.owner[i] == self.rank:
-                    p.grad.div_(self.world_size)
+                    p.grad.div_(dist.get_world_size())  # wrong: the default group's size, not the group's
         if self.optimizer is not None:
             self.optimizer.step()
