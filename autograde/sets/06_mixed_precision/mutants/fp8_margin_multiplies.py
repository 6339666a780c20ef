# replaces: delayed_scale
# wrong: multiplies by 2^margin instead of dividing: a margin makes the scale larger, not smaller
#   (spike_cost is judged with the statement's delayed_scale: one mistake, one deduction, issue 47.11)
# must-lose: delayed_scale_formula
# must-keep: spike_cost_margin, spike_cost_steps, delayed_scale_keeps_previous_scale,
#   delayed_scale_rejects_bad_input, spike_cost_rejects_bad_input
@@ -10,12 +10,12 @@
         raise ValueError(f"amax_history holds a negative amax: {list(amax_history)}")
     if not amax_history:
-        return previous_scale  # no amax seen yet
+        return previous_scale
     if algo == "most_recent":
         amax = amax_history[-1]
     else:
-        amax = math.nan if any(math.isnan(a) for a in amax_history) else max(amax_history)  # as torch.max
+        amax = math.nan if any(math.isnan(a) for a in amax_history) else max(amax_history)
     if not (amax > 0 and math.isfinite(amax)):
-        return previous_scale  # 0, inf or NaN: nothing to go by
-    scale = fp8_max / amax / 2**margin
+        return previous_scale
+    scale = fp8_max / amax * 2**margin
     fp32_max = torch.finfo(torch.float32).max
-    return fp32_max if scale > fp32_max else float(scale)  # inf in fp32, where Transformer Engine computes it
+    return fp32_max if scale > fp32_max else float(scale)
