# replaces: vocab_parallel_cross_entropy
# wrong: divides by every token, ignored ones included
# must-lose: vocab_parallel_ce_ignore_index
# must-keep: vocab_parallel_ce_matches_cross_entropy, vocab_parallel_ce_uneven_shards,
#   vocab_parallel_ce_large_logits, vocab_parallel_ce_moves_per_token_bytes
@@ -22,5 +22,5 @@
             target_logit = torch.where(here, logits.gather(1, column[:, None]).squeeze(1) - top, 0.0)
             dist.all_reduce(target_logit, group=group)
-            count = valid.sum()
+            count = torch.tensor(float(target.numel()))
             ctx.save_for_backward(exp / sum_exp[:, None], column, here, valid, count)
             return torch.where(valid, sum_exp.log() - target_logit, 0.0).sum() / count
