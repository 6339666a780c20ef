# replaces: assign_buckets
# wrong: forgets the last bucket when it is not full: those gradients are never all-reduced
# must-lose: assign_buckets_examples, assign_buckets_matches_ddp
# must-keep: assign_buckets_rejects_bad_input
@@ -12,5 +12,3 @@
             buckets.append(current)
             current, size, limit = [], 0, bucket_cap_bytes
-    if current:
-        buckets.append(current)
     return buckets
