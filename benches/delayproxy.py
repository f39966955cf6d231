#!/usr/bin/env python3
"""A latency link for benches/realnet.sh and tests/sshfs.rs (issue 41): a
TCP proxy on 127.0.0.1 that forwards each connection to 127.0.0.1:TARGET,
holding every chunk for DELAY_MS in each direction (so a round trip costs
twice that), with an optional bandwidth per direction of a connection.
This kernel has no netem; a proxy is what a user without root can have too.

    delayproxy.py PORT TARGET DELAY_MS [--bandwidth MB/S] [--lifetime SECS]

PORT 0 picks a free port. Prints "listening PORT" once it accepts. Ends by
itself after --lifetime seconds (default 3600), or when killed; it never
listens beyond 127.0.0.1.

Two threads a direction, one receiving and one sending, the sender
sleeping with the system's precision (nanosleep) until each chunk is due
and then sending every chunk that is due at once. (An asyncio loop's timers
wait in whole milliseconds of epoll: a chunk due 0.1 ms after the one
before waited a millisecond more, and the link carried about one chunk a
millisecond a direction, the same for every client: a floor of the proxy's,
not the network's.)
"""
import argparse
import collections
import socket
import sys
import threading
import time


class Line:
    """Chunks in flight one way, each with the time it is due."""

    def __init__(self):
        self.chunks = collections.deque()
        self.ready = threading.Condition()

    def put(self, due, chunk):
        with self.ready:
            self.chunks.append((due, chunk))
            self.ready.notify()

    def take(self):
        """Wait for the first chunk, then until it is due; return it with
        every other chunk due by then (None ends the line)."""
        with self.ready:
            while not self.chunks:
                self.ready.wait()
            due = self.chunks[0][0]
        wait = due - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        now = time.monotonic()
        out = []
        with self.ready:
            while self.chunks and self.chunks[0][0] <= now:
                chunk = self.chunks.popleft()[1]
                if chunk is None:
                    return out, True
                out.append(chunk)
        return out, False


def pipe(src, dst, delay, bandwidth):
    """Copy src to dst, each chunk sent `delay` seconds after it came and
    no sooner than the link (bytes per second) has sent the ones before."""
    line = Line()

    def receive():
        try:
            while chunk := src.recv(1 << 16):
                line.put(time.monotonic() + delay, chunk)
        except OSError:
            pass
        line.put(time.monotonic() + delay, None)

    threading.Thread(target=receive, daemon=True).start()
    free = time.monotonic()
    try:
        while True:
            chunks, end = line.take()
            for chunk in chunks:
                if bandwidth:
                    free = max(free, time.monotonic()) + len(chunk) / bandwidth
                    wait = free - time.monotonic()
                    if wait > 0:
                        time.sleep(wait)
                dst.sendall(chunk)
            if end:
                break
        dst.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def connection(down, target, delay, bandwidth):
    try:
        up = socket.create_connection(("127.0.0.1", target))
    except OSError:
        down.close()
        return
    for s in (up, down):
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    there = threading.Thread(target=pipe, args=(down, up, delay, bandwidth), daemon=True)
    there.start()
    pipe(up, down, delay, bandwidth)
    there.join()
    for s in (up, down):
        s.close()


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("port", type=int)
    p.add_argument("target", type=int)
    p.add_argument("delay_ms", type=float, help="each direction")
    p.add_argument("--bandwidth", type=float, help="MB/s (10^6 bytes) each direction")
    p.add_argument("--lifetime", type=float, default=3600)
    args = p.parse_args()
    delay = args.delay_ms / 1000.0
    bandwidth = args.bandwidth * 1e6 if args.bandwidth else None
    server = socket.create_server(("127.0.0.1", args.port))
    print("listening", server.getsockname()[1], flush=True)

    def accept():
        while True:
            down, _ = server.accept()
            threading.Thread(
                target=connection, args=(down, args.target, delay, bandwidth), daemon=True
            ).start()

    threading.Thread(target=accept, daemon=True).start()
    try:
        time.sleep(args.lifetime)
    except KeyboardInterrupt:
        pass
    sys.exit(0)


if __name__ == "__main__":
    main()
