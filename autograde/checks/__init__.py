"""Trusted checks, one module per exercise set: `<assignment>.py` (run by the grader, never in the sandbox) and
`<assignment>_ranks.py` (rank-side procedures, run in the sandbox beside the student's code). See autograde/README.md."""
