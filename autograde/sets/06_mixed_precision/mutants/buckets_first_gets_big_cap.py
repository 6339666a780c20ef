# replaces: assign_buckets
# wrong: gives the first bucket the limit of the others (bucket_cap_bytes), ignoring first_bucket_bytes
# must-lose: assign_buckets_examples, assign_buckets_matches_ddp
# must-keep: assign_buckets_rejects_bad_input
@@ -5,5 +5,5 @@
     if any(not nbytes > 0 for nbytes in param_nbytes):
         raise ValueError(f"every size must be positive, got {list(param_nbytes)}")
-    buckets, current, size, limit = [], [], 0, first_bucket_bytes
+    buckets, current, size, limit = [], [], 0, bucket_cap_bytes
     for index, nbytes in enumerate(param_nbytes):
         current.append(index)
