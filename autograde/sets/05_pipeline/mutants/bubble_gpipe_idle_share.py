# replaces: bubble_fraction
# wrong: returns GPipe's idle share of the whole step, (p - 1)/(v m + p - 1), labelled as Megatron's bubble / ideal
# must-lose: bubble_fraction_values
@@ -5,3 +5,3 @@
         if not value > 0:
             raise ValueError(f"{name} must be positive, got {value!r}")
-    return (num_stages - 1) / (num_chunks * num_microbatches)
+    return (num_stages - 1) / (num_chunks * num_microbatches + num_stages - 1)
