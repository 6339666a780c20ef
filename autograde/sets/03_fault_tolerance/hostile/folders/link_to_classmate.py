# The notebook is a symbolic link to a classmate's (as an archive tool extracts it): followed, it scored full marks.
# reason: is a symbolic link (to '../honest-solution/
from pathlib import Path


def make(folder: Path, solution: dict, name: str) -> None:
    (folder / name).symlink_to(f"../honest-solution/{name}")
