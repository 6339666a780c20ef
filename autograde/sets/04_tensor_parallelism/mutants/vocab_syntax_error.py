# replaces: vocab_parallel_cross_entropy
# wrong: does not compile (a missing colon), so vocab_parallel_cross_entropy is never defined
# must-zero: vocab_parallel_ce_matches_cross_entropy, vocab_parallel_ce_uneven_shards,
#   vocab_parallel_ce_ignore_index, vocab_parallel_ce_large_logits, vocab_parallel_ce_moves_per_token_bytes
# must-keep: copy_to_tp_region_forward_backward, reduce_from_tp_region_forward_backward,
#   column_parallel_matches_linear, row_parallel_matches_linear, activation_memory_matches_formula
@@ -1,3 +1,3 @@
-def vocab_parallel_cross_entropy(logits_shard, target, group=None, ignore_index=-100):
+def vocab_parallel_cross_entropy(logits_shard, target, group=None, ignore_index=-100)
     """Mean cross-entropy of `target` under logits whose vocabulary columns are split over `group` in contiguous blocks
     (rank r: the r-th block, widths may differ), with only per-token scalars crossing ranks (Megatron-LM §3)."""
