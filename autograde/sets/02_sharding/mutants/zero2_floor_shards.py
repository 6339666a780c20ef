# replaces: Zero2Optimizer
# wrong: shards of floor(Ψ / N) elements and no padding: when N does not divide Ψ the last elements are never sent,
#   stepped or gathered
# must-lose: zero2_matches_adamw, zero2_holds_one_shard
# must-keep: zero2_rejects_bad_input
@@ -20,6 +20,6 @@
         self.world_size, self.rank = dist.get_world_size(group), dist.get_rank(group)
         numel = sum(p.numel() for p in self.params)
-        self.shard_numel = -(-numel // self.world_size)  # S = ceil(Ψ / N)
-        self.padding = self.shard_numel * self.world_size - numel
+        self.shard_numel = numel // self.world_size
+        self.padding = 0
         flat = torch.cat([p.detach().reshape(-1) for p in self.params] + [self.params[0].new_zeros(self.padding)])
         self.shard = flat[self.rank * self.shard_numel: (self.rank + 1) * self.shard_numel].clone()
@@ -32,5 +32,5 @@
     @torch.no_grad()
     def step(self):
-        flat_grad = torch.cat([p.grad.reshape(-1) for p in self.params] + [self.shard.new_zeros(self.padding)])
+        flat_grad = torch.cat([p.grad.reshape(-1) for p in self.params])[: self.shard_numel * self.world_size]
         for p in self.params:
             p.grad = None  # ZeRO-2: the full gradients go; this rank keeps only its averaged shard
@@ -42,5 +42,5 @@
         flat = torch.empty(self.shard_numel * self.world_size, dtype=self.shard.dtype)
         dist.all_gather_single(flat, self.shard, group=self.group)  # every rank's updated shard, in rank order
-        offset = 0
+        offset, flat = 0, torch.cat([flat, torch.cat([p.detach().reshape(-1) for p in self.params])[flat.numel():]])
         for p in self.params:
             p.copy_(flat[offset: offset + p.numel()].view_as(p))
