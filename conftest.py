"""pytest hooks for the whole suite (tests/, lessons/, solutions/).

`./course test` runs two workers with `--dist loadgroup`: every test gets an xdist group here, so that
- a notebook's cells (nbval) and any other test file stay together on one worker, in order (their group is the file);
- the nbgrader round trips (tests/test_nbgrader.py), the longest part, are split by exercise set: one group per
  assignment, which grades its whole class once on one worker, while another set grades on the other.
The grading groups go first, so that the two workers share the long runs and the rest fills in beside them.
"""
import pytest

GRADING_FILES = ("tests/test_nbgrader.py", "tests/test_hostile.py", "tests/test_grade_shards.py")


def xdist_group_of(item) -> str:
    path = item.nodeid.split("::")[0]
    if path == "tests/test_nbgrader.py" and hasattr(item, "callspec"):
        for value in item.callspec.params.values():
            assignment = value if isinstance(value, str) else getattr(value, "assignment", None)
            if assignment is None and hasattr(value, "values"):  # pytest.param(...) of a variant
                assignment = getattr(value.values[0], "assignment", None) if value.values else None
            if isinstance(assignment, str):
                return f"nbgrader-{assignment}"
    return path


def pytest_collection_modifyitems(items):
    for item in items:
        item.add_marker(pytest.mark.xdist_group(xdist_group_of(item)))
    items.sort(key=lambda item: item.nodeid.split("::")[0] not in GRADING_FILES)  # stable: keeps the rest in order
