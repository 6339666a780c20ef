"""Bytes per TCP connection between the ranks of a launch, read by the grader from the kernel, outside the sandbox.

    watch = RingWatch(student.network_pid(), world_size)      # before the launch: a helper process starts watching
    results = student.launch(..., args=(watch.port_base,))     # each rank, when done, waits on a UDP port (below)
    flows = watch.flows()                                      # {"sent": [[bytes rank r -> rank s]], ...}

The counts come from the kernel's own per-socket counters (`tcp_info.tcpi_bytes_sent`, read with a sock_diag netlink
query inside the sandbox's network namespace), never from a rank's report: a thread, a dispatch mode switched off,
or a built-in collective called any way cannot hide what crossed a connection. A rank's sockets are found through
its process's file descriptors (`/proc/<pid>/fd`, read here, in the host's PID namespace).

The sync: a socket's counters go when its process exits, so the ranks must wait while they are read. After its work
(and a barrier), rank r binds UDP 127.0.0.1:`port_base + r` and waits for one datagram. The helper
(`python -m autograde.netstat <pid> <port_base> <world_size> <timeout>`, started by `RingWatch`: it must enter the
namespace, which a multi-threaded grader cannot) polls the namespace's UDP table (`/proc/<pid>/net/udp`) until all
those ports are bound, reads every TCP socket's counters, maps sockets to the processes that bound the ports, then
sends each port a datagram, and prints what it read as one JSON line. Which process is rank r is the rank's own
claim (the port it binds: the rank-side procedure does that, so a notebook must patch it to lie); what crossed each
connection is the kernel's.
"""
from __future__ import annotations

import ctypes
import fcntl
import json
import os
import secrets
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path

from distlab.launching.deadline import Deadline

CLONE_NEWUSER, CLONE_NEWNET = 0x10000000, 0x40000000
NS_GET_USERNS = 0xB701  # ioctl on a namespace's file: a file of the user namespace that owns it
NETLINK_SOCK_DIAG, SOCK_DIAG_BY_FAMILY = 4, 20
NLM_F_REQUEST, NLM_F_DUMP = 0x1, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
INET_DIAG_INFO = 2
# struct tcp_info (linux/tcp.h): tcpi_bytes_acked at 120 (Linux 4.1), tcpi_bytes_sent at 200 (Linux 4.19)
TCPI_BYTES_ACKED, TCPI_BYTES_SENT = 120, 200
POLL_S = 0.01


# --- the helper, inside the sandbox's network namespace ------------------------------------------------------

def _setns(fd: int, kind: int, what: str) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.setns(fd, kind) != 0:
        raise OSError(ctypes.get_errno(), f"setns({what})")


def enter_network_of(pid: int) -> None:
    """Join the network namespace of `pid`; a non-root grader first joins the user namespace that owns it (the
    sandbox's outer one, which the grader's user made). Only in a single-threaded process."""
    if os.stat(f"/proc/{pid}/ns/net").st_ino == os.stat("/proc/self/ns/net").st_ino:
        return
    net = os.open(f"/proc/{pid}/ns/net", os.O_RDONLY)
    try:
        if os.geteuid() != 0:
            owner = fcntl.ioctl(net, NS_GET_USERNS)
            try:
                _setns(owner, CLONE_NEWUSER, "the user namespace owning the network's")
            finally:
                os.close(owner)
        _setns(net, CLONE_NEWNET, f"/proc/{pid}/ns/net")
    finally:
        os.close(net)


def tcp_sockets() -> list[dict]:
    """Every TCP socket of this process's network namespace (IPv4 and IPv6): its ports, inode, bytes sent."""
    found = []
    for family in (socket.AF_INET, socket.AF_INET6):
        with socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_SOCK_DIAG) as nl:
            sockid = bytes(48)
            request = struct.pack("=BBBBI", family, socket.IPPROTO_TCP, 1 << (INET_DIAG_INFO - 1), 0, 0xFFFFFFFF)
            body = request + sockid
            nl.send(struct.pack("=IHHII", 16 + len(body), SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | NLM_F_DUMP, 1, 0) + body)
            done = False
            while not done:
                data = nl.recv(1 << 20)
                offset = 0
                while offset + 16 <= len(data):
                    length, kind = struct.unpack_from("=IH", data, offset)
                    if kind == NLMSG_DONE:
                        done = True
                        break
                    if kind == NLMSG_ERROR:
                        (error,) = struct.unpack_from("=i", data, offset + 16)
                        raise OSError(-error, "sock_diag")
                    found.append(_diag_message(data[offset + 16: offset + length], family))
                    offset += (length + 3) & ~3
    return found


def _diag_message(message: bytes, family: int) -> dict:
    sport, dport = struct.unpack_from(">HH", message, 4)
    size = 4 if family == socket.AF_INET else 16
    local, remote = (socket.inet_ntop(family, message[o: o + size]) for o in (8, 24))
    (inode,) = struct.unpack_from("=I", message, 68)
    sent = None
    offset = 72
    while offset + 4 <= len(message):
        length, kind = struct.unpack_from("=HH", message, offset)
        if length < 4:
            break
        if kind == INET_DIAG_INFO:
            info = message[offset + 4: offset + length]
            at = TCPI_BYTES_SENT if len(info) >= TCPI_BYTES_SENT + 8 else TCPI_BYTES_ACKED
            if len(info) >= at + 8:
                (sent,) = struct.unpack_from("=Q", info, at)
        offset += (length + 3) & ~3
    return {"local": [local, sport], "remote": [remote, dport], "inode": inode, "state": message[1], "sent": sent}


def udp_ports(pid: int) -> dict[int, int]:
    """{bound port: socket inode} of the UDP sockets in the network namespace of `pid`, read from the host."""
    ports = {}
    for name in ("udp", "udp6"):
        try:
            lines = Path(f"/proc/{pid}/net/{name}").read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            ports[int(fields[1].rsplit(":", 1)[1], 16)] = int(fields[9])
    return ports


def socket_owners(pid: int) -> dict[int, int]:
    """{socket inode: host pid} for every process in the network namespace of `pid` (the first process holding it)."""
    netns = os.stat(f"/proc/{pid}/ns/net").st_ino
    owners = {}
    for entry in sorted(os.listdir("/proc"), key=lambda e: (len(e), e)):
        if not entry.isdigit():
            continue
        try:
            if os.stat(f"/proc/{entry}/ns/net").st_ino != netns:
                continue
            for fd in os.listdir(f"/proc/{entry}/fd"):
                target = os.readlink(f"/proc/{entry}/fd/{fd}")
                if target.startswith("socket:["):
                    owners.setdefault(int(target[8:-1]), int(entry))
        except OSError:  # a process that ended, or one we may not read
            continue
    return owners


def watch(pid: int, port_base: int, world_size: int, timeout: float) -> dict:
    """Wait for the ranks' ports, read every TCP socket, release the ranks (run inside the helper)."""
    ports = [port_base + r for r in range(world_size)]
    deadline = Deadline.after(timeout)
    while True:
        bound = udp_ports(pid)
        if all(p in bound for p in ports):
            break
        if deadline.passed():
            missing = [p - port_base for p in ports if p not in bound]
            return {"error": f"rank(s) {missing} never reported done within {timeout:.0f} s"}
        time.sleep(POLL_S)
    sockets = tcp_sockets()
    owners = socket_owners(pid)
    release = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for p in ports:
        release.sendto(b"go", ("127.0.0.1", p))
    release.close()
    ranks = {r: owners.get(bound[p]) for r, p in enumerate(ports)}
    for s in sockets:
        s["pid"] = owners.get(s["inode"])
    return {"ranks": ranks, "sockets": sockets}


def main(argv: list[str]) -> int:
    pid, port_base, world_size, timeout = int(argv[0]), int(argv[1]), int(argv[2]), float(argv[3])
    try:
        enter_network_of(pid)
        result = watch(pid, port_base, world_size, timeout)
    except OSError as exc:
        result = {"error": f"could not read the sandbox's sockets: {exc}"}
    print(json.dumps(result), flush=True)
    return 0


# --- the grader's side ---------------------------------------------------------------------------------------

class RingWatch:
    """A helper process watching the launch about to start in the network namespace of `pid` (see the module's
    docstring); `flows()` after the launch."""

    def __init__(self, pid: int, world_size: int, timeout: float = 60.0):
        self.world_size, self.report = world_size, None
        self.port_base = 20000 + secrets.randbelow(40000)
        self.process = subprocess.Popen([sys.executable, "-m", "autograde.netstat", str(pid), str(self.port_base),
                                         str(world_size), str(timeout)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        stdin=subprocess.DEVNULL, text=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()

    def failure(self) -> str | None:
        """Why the helper stopped watching, if it already has (e.g. it could not enter the namespace): a launch
        whose ranks timed out waiting for it failed for that reason."""
        if self.process.poll() is None:
            return None
        read = self._read(timeout=1)
        return read if isinstance(read, str) else None

    def flows(self, timeout: float = 10.0) -> dict:
        """{"sent": sent[r][s] = bytes rank r's sockets sent on connections to rank s, "to_others": [bytes rank r sent
        on connections to no rank], "connections": {(r, s): sockets of r connected to s}, "total": bytes sent on
        every TCP socket of the ranks}. AssertionError when the ranks could not be watched."""
        read = self._read(timeout)
        if isinstance(read, str):
            raise AssertionError(read)
        return ring_flows(read, self.world_size)

    def _read(self, timeout: float) -> dict | str:
        """The helper's report, or why there is none (kept: the helper answers once)."""
        if self.report is None:
            try:
                out, err = self.process.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.close()
                out, err = "", "the grader could not read the sandbox's connections in time"
            try:
                self.report = json.loads(out.strip().splitlines()[-1])
            except (ValueError, IndexError):
                self.report = {"error": f"the grader could not read the sandbox's connections: {err.strip()[-500:]}"}
        return self.report.get("error", self.report)


def ring_flows(read: dict, world_size: int) -> dict:
    rank_of = {pid: int(r) for r, pid in read["ranks"].items() if pid is not None}
    if len(rank_of) != world_size:
        raise AssertionError(f"the ranks' processes were not found (ports bound by {read['ranks']})")
    owner = {(tuple(s["local"]), tuple(s["remote"])): rank_of.get(s["pid"]) for s in read["sockets"]}  # its ends
    sent = [[0] * world_size for _ in range(world_size)]
    to_others = [0] * world_size
    connections = {}
    for s in read["sockets"]:
        rank, peer = rank_of.get(s["pid"]), owner.get((tuple(s["remote"]), tuple(s["local"])))
        if rank is None or s["sent"] is None:
            continue
        if peer is None or peer == rank:
            to_others[rank] += s["sent"]
        else:
            sent[rank][peer] += s["sent"]
            connections[rank, peer] = connections.get((rank, peer), 0) + 1
    total = sum(s["sent"] or 0 for s in read["sockets"] if s["pid"] in rank_of)
    return {"sent": sent, "to_others": to_others, "connections": connections, "total": total}


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
