# replaces: mesh_groups
# differs: torch: the mesh as a tensor permuted so that dim is last, flattened to rows, unbound; the groups ordered
#   with torch.argsort on their first rank
def mesh_groups(dp, pp, tp, dim):
    order = {"dp": (1, 2, 0), "pp": (0, 2, 1), "tp": (0, 1, 2)}
    if not all(isinstance(d, int) and not isinstance(d, bool) and d >= 1 for d in (dp, pp, tp)):
        raise ValueError("dp, pp and tp must be positive integers")
    if not (isinstance(dim, str) and dim in order):
        raise ValueError("dim must be 'dp', 'pp' or 'tp'")
    mesh = torch.arange(dp * pp * tp).view(dp, pp, tp).permute(*order[dim]).contiguous()
    rows = mesh.view(-1, mesh.shape[-1])
    rows = rows[torch.argsort(rows[:, 0])]
    return [[int(r) for r in row] for row in rows.unbind(0)]
