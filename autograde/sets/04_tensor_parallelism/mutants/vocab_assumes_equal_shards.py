# replaces: vocab_parallel_cross_entropy
# wrong: computes its offset as rank * its own width: wrong when the shards are uneven
# must-lose: vocab_parallel_ce_uneven_shards
# must-keep: vocab_parallel_ce_matches_cross_entropy, vocab_parallel_ce_moves_per_token_bytes
@@ -5,5 +5,5 @@
     widths = [torch.zeros((), dtype=torch.long) for _ in range(t)]
     dist.all_gather(widths, torch.tensor(logits_shard.shape[-1]), group=group)
-    start = int(sum(widths[:r]))
+    start = r * logits_shard.shape[-1]
     width = logits_shard.shape[-1]

