"""Orchestration by hand: ranks that find each other on a store, a training process that is preempted, a flight
recorder of collectives. What lesson 8 runs; torchrun, SLURM and Kubernetes do the same at scale.

    run = rendezvous_by_hand(world_size=4)                 # a TCPStore here, 4 processes given torchrun's variables
    run.keys                                               # what the group wrote to the store
    rendezvous_by_hand(4, absent={3}, timeout=3)           # RendezvousTimeout: "rank 3 of 4 did not arrive ..."
    preempt(grace_s=5, sigterm_after_step=6)               # SIGTERM, then SIGKILL after the grace period
    recorder = FlightRecorder(folder)                      # in a rank: recorder.all_reduce(t) records each call

Every process started here is forked from distlab's forkserver (torch already imported: a fork, not a 3 s import;
a function defined in a notebook cannot be started that way, so the workers live here), has a deadline, and is
SIGKILLed and reaped when it passes or when the call returns. Ports are picked by the OS (port 0), never guessed.

One module per idea: `rendezvous` (section 1), `preemption` (section 3), `flight_recorder` (section 4); `_workers`,
the processes they start.

    pytest tests/test_orchestration.py
"""
from .flight_recorder import FlightRecorder, diagnose_hang, last_collectives
from .preemption import REQUEUE_EXIT, Preemption, load_checkpoint, preempt, save_atomically, train_until_preempted
from .rendezvous import ARRIVED, Rendezvous, RendezvousTimeout, rendezvous_by_hand, torchrun_env
from ._workers import new_folder

__all__ = ["ARRIVED", "REQUEUE_EXIT", "FlightRecorder", "Preemption", "Rendezvous", "RendezvousTimeout",
           "diagnose_hang", "last_collectives", "load_checkpoint", "new_folder", "preempt", "rendezvous_by_hand",
           "save_atomically", "torchrun_env", "train_until_preempted"]
