# attack: phones home (the network) and scans the grader's loopback ports
import socket
for host, port in [("1.1.1.1", 80), ("127.0.0.1", 22), ("127.0.0.1", 8888)]:
    try:
        socket.create_connection((host, port), timeout=2).close()
        print("HOSTILE: reached", host, port)
    except OSError:
        pass
