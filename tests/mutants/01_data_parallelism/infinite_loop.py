# replaces: ring_all_reduce
# wrong: never returns on any rank; each check's launch deadline (timeout=20 s) kills the ranks, the check fails at its
#        first launch, and grading goes on. (The ranks wait rather than spin: a `while True: pass` is killed by the same
#        deadline, but 4 spinning ranks for two minutes would starve the other gradings on CI's 2 cores.)
# must-zero: ring_all_reduce_matches_builtin, ring_all_reduce_uneven_sizes, ring_all_reduce_in_place, ring_all_reduce_point_to_point_only, ring_all_reduce_bytes_match_cost, ring_all_reduce_subgroup
# must-keep: ring_all_reduce_cost_values, average_gradients_matches_single_process, average_gradients_frozen_and_tied
# max-seconds: 240
def ring_all_reduce(tensor, group=None):
    import threading
    while True:
        threading.Event().wait(3600)
