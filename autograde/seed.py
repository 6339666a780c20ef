"""A grading run's secret seed: every check draws its inputs from it (autograde/sets/_common.py, `label_seed`).

    from autograde.seed import draw_seed
    seed = draw_seed()   # $DISTLAB_GRADING_SEED (a replay), else 63 fresh random bits

grade.py draws one per class, records it in grades.json (a regrade with --only reuses it) and hands it to the checks
in the file $DISTLAB_GRADING_SEED_FILE names, which no sandbox can read; the checks draw their own only when run
without grade.py (autograde/try_checks.py). Standard library only: grade.py does not import torch for it.
"""
import os


def draw_seed() -> int:
    """$DISTLAB_GRADING_SEED, or 63 random bits (a non-negative int64) from the operating system."""
    return int(os.environ.get("DISTLAB_GRADING_SEED") or int.from_bytes(os.urandom(8), "big") >> 1)
