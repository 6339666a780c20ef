# replaces: ring_all_reduce
# wrong: never returns on any rank; the first check's launch deadline (timeout=20 s) kills the ranks, and
#        `ring_all_reduce` is not run again: the other ring checks fail at once (issue 44, item 2: six checks took
#        20 s each, 176 s for this student on a loaded machine, 88 s since). (The ranks wait rather than spin: a
#        `while True: pass` is killed by the same deadline, but spinning ranks would starve CI's other gradings.)
# must-zero: ring_all_reduce_matches_builtin, ring_all_reduce_uneven_sizes, ring_all_reduce_in_place, ring_all_reduce_point_to_point_only, ring_all_reduce_bytes_match_cost, ring_all_reduce_subgroup
# must-keep: ring_all_reduce_cost_values, average_gradients_matches_single_process, average_gradients_frozen_and_tied
# max-seconds: 120
def ring_all_reduce(tensor, group=None):
    import threading
    while True:
        threading.Event().wait(3600)
