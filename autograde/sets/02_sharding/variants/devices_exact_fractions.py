# replaces: min_devices_to_fit
# differs: exact rational arithmetic (fractions.Fraction) and integer ceiling division, one branch per stage
from fractions import Fraction


def min_devices_to_fit(n_params, memory_bytes, stage, k=12):
    psi, memory = Fraction(n_params), Fraction(memory_bytes)
    if stage == 0:
        return 1 if (4 + k) * psi <= memory else None
    whole, divided = {1: (4 * psi, k * psi), 2: (2 * psi, (2 + k) * psi), 3: (0, (4 + k) * psi)}[stage]
    room = memory - whole
    if room <= 0:
        return None
    return int(max(1, -(-divided // room)))
