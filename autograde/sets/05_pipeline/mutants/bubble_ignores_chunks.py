# replaces: bubble_fraction
# wrong: forgets the chunks: (p - 1)/m whatever v
# must-lose: bubble_fraction_values
@@ -5,3 +5,3 @@
         if not value > 0:
             raise ValueError(f"{name} must be positive, got {value!r}")
-    return (num_stages - 1) / (num_chunks * num_microbatches)
+    return (num_stages - 1) / num_microbatches
