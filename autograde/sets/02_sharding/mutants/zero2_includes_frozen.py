# replaces: Zero2Optimizer
# wrong: flattens every parameter, frozen ones too: their gradient is None and step() raises (one mistake, one
#   cell: the comm cell's model has a tied weight and no frozen layer, issue 47.12)
# must-lose: zero2_matches_adamw
# must-keep: zero2_moves_reduce_scatter_and_all_gather, zero2_holds_one_shard, zero2_rejects_bad_input
@@ -14,6 +14,6 @@
         if not (isinstance(optimizer_cls, type) and issubclass(optimizer_cls, torch.optim.Optimizer)):
             raise ValueError(f"optimizer_cls must be a torch.optim.Optimizer class, got {optimizer_cls!r}")
-        self.params = [p for p in dict.fromkeys(params) if p.requires_grad]  # distinct, trainable, in order
-        if not self.params:
+        self.params = list(dict.fromkeys(params))
+        if not any(p.requires_grad for p in self.params):
             raise ValueError("params holds no trainable tensor (requires_grad=True): nothing to optimize")
         self.group = group
