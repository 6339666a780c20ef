# replaces: Zero2Optimizer
# wrong: shards over every rank and runs the collectives on the default group, whatever group= says
# must-lose: zero2_moves_reduce_scatter_and_all_gather
# must-keep: zero2_matches_adamw, zero2_holds_one_shard, zero2_rejects_bad_input
@@ -17,5 +17,5 @@
         if not self.params:
             raise ValueError("params holds no trainable tensor (requires_grad=True): nothing to optimize")
-        self.group = group
+        self.group = group = None
         self.world_size, self.rank = dist.get_world_size(group), dist.get_rank(group)
         numel = sum(p.numel() for p in self.params)
