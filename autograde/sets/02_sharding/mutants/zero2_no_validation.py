# replaces: Zero2Optimizer
# wrong: no argument checks: an empty params or a name for optimizer_cls fails later, with the wrong error
# must-lose: zero2_rejects_bad_input
# must-keep: zero2_matches_adamw, zero2_moves_reduce_scatter_and_all_gather, zero2_holds_one_shard
@@ -10,11 +10,5 @@
     def __init__(self, params, optimizer_cls, group=None, **optimizer_kwargs):
         params = list(params)  # a generator is read once
-        if not all(isinstance(p, torch.Tensor) for p in params):
-            raise ValueError("params must be an iterable of tensors")
-        if not (isinstance(optimizer_cls, type) and issubclass(optimizer_cls, torch.optim.Optimizer)):
-            raise ValueError(f"optimizer_cls must be a torch.optim.Optimizer class, got {optimizer_cls!r}")
         self.params = [p for p in dict.fromkeys(params) if p.requires_grad]  # distinct, trainable, in order
-        if not self.params:
-            raise ValueError("params holds no trainable tensor (requires_grad=True): nothing to optimize")
         self.group = group
         self.world_size, self.rank = dist.get_world_size(group), dist.get_rank(group)
