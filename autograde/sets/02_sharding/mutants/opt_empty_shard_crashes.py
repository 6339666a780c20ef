# replaces: ShardedOptimizer
# wrong: builds the inner optimizer even on a rank that owns no parameter: torch optimizers refuse an empty parameter
#   list, so with fewer parameter tensors than ranks that rank raises
# must-lose: sharded_optimizer_matches_adamw
# must-keep: sharded_optimizer_averages_gradients, sharded_optimizer_tied_and_frozen, sharded_optimizer_state_is_sharded
@@ -17,5 +17,5 @@
             loads[owner] += self.params[index].numel()
         owned = [p for i, p in enumerate(self.params) if self.owner[i] == self.rank]
-        self.optimizer = optimizer_cls(owned, **optimizer_kwargs) if owned else None
+        self.optimizer = optimizer_cls(owned, **optimizer_kwargs)  # BUG: a rank that owns nothing gets optimizer_cls([])

     def zero_grad(self):
@@ -33,6 +33,5 @@
                 if self.owner[i] == self.rank:
                     p.grad.div_(self.world_size)
-        if self.optimizer is not None:
-            self.optimizer.step()
+        self.optimizer.step()
         for i, p in enumerate(self.params):
             if p.requires_grad:
