# nbgrader's layout, <student>/03_fault_tolerance/<notebook>, with the folder a symbolic link to a classmate's.
# reason: '03_fault_tolerance' is a symbolic link (to '../honest-solution')
from pathlib import Path


def make(folder: Path, solution: dict, name: str) -> None:
    (folder / "03_fault_tolerance").symlink_to("../honest-solution")
