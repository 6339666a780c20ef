"""The machinery behind `distlab.launch`: how ranks start, report, fail and end. Learners never import it.

    launcher      `launch`, its arguments and deadlines (re-exported as `distlab.launch`)
    forkserver    the process ranks are forked from (`warm_up`; the grader's sandbox worker: `fork_server_from_here`)
    deadline      `Deadline`: a moment and the limit it was set from (launch, the grader's sandbox)
    preset        `LaunchPreset`: the deadlines a caller's launches share (a lesson's, an exercise set's checks)
    process_tree  `kill_tree`: a command and everything it started, ended together (torchrun, autograde, benchmarks)
    ports         `free_port`, `listening`: the loopback's ports (rendezvous endpoints, the tests' servers)
    torchrun      `torchrun`: a script under torchrun from a notebook, and the `%%torchrun` magic (`distlab.torchrun`)
    _ranks        the notebook side: the processes of one launch, their pipes, and what each rank reported
    _worker       the rank side (`LaunchOptions` is what it is told): join the group, run the function, report
    _output       the ranks' stdout and stderr, shown "[rank k]"
    _failures     the error a launch that did not return ends with; `_where` and `_explain` say where each rank was

Modules with no underscore are imported by other packages; `deadline`, `forkserver`, `ports`, `preset`, `process_tree`
and `torchrun` import no torch (the grader's own process uses them). This file imports nothing, so that
`distlab/__init__.py` can start the forkserver (standard library only) before anything imports torch.
"""
