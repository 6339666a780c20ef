"""Ports on this machine's loopback: one the OS has just given out, and whether something listens on one.

    from distlab.launching.ports import free_port, listening
    port = free_port()          # for a store, a rendezvous endpoint or a server started next
    listening(port)             # True once it accepts connections

Standard library only (no torch): the tests' cluster "nodes" and JupyterLab servers use it too.
"""
import socket

HOST = "127.0.0.1"


def free_port() -> int:
    """A TCP port of the loopback that the OS gave out a moment ago and nothing holds now (another process may take it
    before the caller does: start the server soon, or let it bind port 0 itself where it can)."""
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def listening(port: int) -> bool:
    """Whether something accepts TCP connections on `port` of the loopback now."""
    with socket.socket() as sock:
        return sock.connect_ex((HOST, port)) == 0
