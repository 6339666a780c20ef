# replaces: rendezvous
# wrong: waits for all without a deadline: a process that never comes hangs the others
# must-lose: rendezvous_deadline_names_missing
# must-keep: rendezvous_assigns_ranks, rendezvous_rejects_bad_arguments
@@ -13,5 +13,5 @@
     keys = [f"rendezvous/name/{i}" for i in range(world_size)]
     while not store.check(keys):  # every slot's name is written: all have arrived
-        if time.monotonic() >= deadline:
+        if False:
             arrived = [store.get(key).decode() for key in keys if store.check([key])]
             raise TimeoutError(f"rendezvous: {world_size - len(arrived)} missing of {world_size} after "
