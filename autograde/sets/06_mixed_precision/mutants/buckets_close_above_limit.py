# replaces: assign_buckets
# wrong: closes a bucket only when its bytes go past the limit (>), not when they reach it (>=)
# must-lose: assign_buckets_examples, assign_buckets_matches_ddp
# must-keep: assign_buckets_rejects_bad_input
@@ -9,5 +9,5 @@
         current.append(index)
         size += nbytes
-        if size >= limit:  # full: this bucket can be all-reduced as soon as its last gradient is ready
+        if size > limit:  # full: this bucket can be all-reduced as soon as its last gradient is ready
             buckets.append(current)
             current, size, limit = [], 0, bucket_cap_bytes
