# replaces: mesh_groups
# differs: walks the other two coordinates with itertools.product (in row-major order, so the groups come out by
#   their smallest rank) and builds each rank from its coordinates; validation with a dict of degrees
import itertools


def mesh_groups(dp, pp, tp, dim):
    degrees = {"dp": dp, "pp": pp, "tp": tp}
    if any(type(v) is not int or v <= 0 for v in degrees.values()):
        raise ValueError(f"degrees must be positive ints: dp={dp!r}, pp={pp!r}, tp={tp!r}")
    if dim not in ("dp", "pp", "tp"):
        raise ValueError(f"unknown mesh dimension {dim!r}")
    axis = ["dp", "pp", "tp"].index(dim)
    others = [range(v) for name, v in degrees.items() if name != dim]
    groups = []
    for a, b in itertools.product(*others):
        group = []
        for k in range(degrees[dim]):
            c = [a, b]
            c.insert(axis, k)
            group.append((c[0] * pp + c[1]) * tp + c[2])
        groups.append(group)
    return groups
