# replaces: mesh_groups
# differs: decodes every rank's coordinates with divmod and collects the ranks that share the other two
#   coordinates in a dict; the groups sorted at the end
def mesh_groups(dp, pp, tp, dim):
    for value in (dp, pp, tp):
        if type(value) is not int or value < 1:
            raise ValueError(f"mesh degrees must be positive ints, got {value!r}")
    if dim not in ["dp", "pp", "tp"] or not isinstance(dim, str):
        raise ValueError(f"dim must name a mesh dimension (dp, pp, tp), got {dim!r}")
    skip = ["dp", "pp", "tp"].index(dim)
    by_key = {}
    for rank in range(dp * pp * tp):
        rest, r_tp = divmod(rank, tp)
        r_dp, r_pp = divmod(rest, pp)
        key = tuple(c for i, c in enumerate((r_dp, r_pp, r_tp)) if i != skip)
        by_key.setdefault(key, []).append(rank)
    return sorted(sorted(group) for group in by_key.values())
