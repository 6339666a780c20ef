"""pytest hooks for the whole suite (tests/, lessons/, solutions/).

The grading tests (the nbgrader round trips of tests/test_nbgrader.py, the hostile class, the shards) take the
longest, mostly waiting on sandboxes and deadlines: they go first, so that with `./course test` (two workers,
`--dist loadfile`: a file's tests, e.g. a notebook's cells, stay together on one worker) one worker grades while the
other runs the rest.
"""
GRADING_FILES = ("tests/test_nbgrader.py", "tests/test_hostile.py", "tests/test_grade_shards.py")


def pytest_collection_modifyitems(items):
    items.sort(key=lambda item: item.nodeid.split("::")[0] not in GRADING_FILES)  # stable: keeps the rest in order
