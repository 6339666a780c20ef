# replaces: dispatch_plan
# wrong: raises nothing on bad arguments (k = 0, a capacity of -1, 2-D logits, a rank out of range...)
# must-lose: dispatch_plan_rejects_bad_input
# must-keep: dispatch_plan_routes_top_k, dispatch_plan_capacity_and_drops
@@ -1,15 +1,5 @@
 def dispatch_plan(router_logits, k, capacity, rank):
     """(source_rank, token, expert) of each row that arrives at rank `rank` in the dispatch all-to-all, in order."""
-    if not isinstance(router_logits, torch.Tensor) or router_logits.dim() != 3:
-        raise ValueError(f"router_logits must be a 3-D tensor [ranks, tokens, experts], got {router_logits!r}")
     ranks, _, n_experts = router_logits.shape
-    if ranks == 0 or n_experts % ranks:
-        raise ValueError(f"router_logits: {ranks} ranks do not share {n_experts} experts evenly")
-    if type(k) is not int or not 1 <= k <= n_experts:
-        raise ValueError(f"k must be an int from 1 to the number of experts ({n_experts}), got {k!r}")
-    if type(capacity) is not int or capacity < 0:
-        raise ValueError(f"capacity must be a non-negative int, got {capacity!r}")
-    if type(rank) is not int or not 0 <= rank < ranks:
-        raise ValueError(f"rank must be an int from 0 to {ranks - 1}, got {rank!r}")
     experts_per_rank = n_experts // ranks
     arrived = []
