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
"""
import argparse
import asyncio
import sys
import time


async def pipe(reader, writer, delay, bandwidth):
    """Copy reader to writer, each chunk sent `delay` seconds after it came
    and no sooner than the link (bytes per second) has sent the ones
    before it."""
    queue = asyncio.Queue()

    async def receive():
        try:
            while chunk := await reader.read(1 << 16):
                queue.put_nowait((time.monotonic() + delay, chunk))
        except OSError:
            pass
        queue.put_nowait((time.monotonic() + delay, None))

    async def send():
        free = time.monotonic()
        while True:
            due, chunk = await queue.get()
            if bandwidth and chunk:
                free = max(free, time.monotonic()) + len(chunk) / bandwidth
                due = max(due, free)
            wait = due - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            if chunk is None:
                break
            writer.write(chunk)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()

    got = asyncio.ensure_future(receive())
    try:
        await send()
    except OSError:
        pass
    finally:
        got.cancel()


async def serve(args):
    delay = args.delay_ms / 1000.0
    bandwidth = args.bandwidth * 1e6 if args.bandwidth else None

    async def connection(down_r, down_w):
        try:
            up_r, up_w = await asyncio.open_connection("127.0.0.1", args.target)
        except OSError:
            down_w.close()
            return
        await asyncio.gather(
            pipe(down_r, up_w, delay, bandwidth),
            pipe(up_r, down_w, delay, bandwidth),
        )
        for w in (up_w, down_w):
            w.close()

    server = await asyncio.start_server(connection, "127.0.0.1", args.port)
    print("listening", server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await asyncio.sleep(args.lifetime)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("port", type=int)
    p.add_argument("target", type=int)
    p.add_argument("delay_ms", type=float, help="each direction")
    p.add_argument("--bandwidth", type=float, help="MB/s (10^6 bytes) each direction")
    p.add_argument("--lifetime", type=float, default=3600)
    args = p.parse_args()
    try:
        asyncio.run(serve(args))
    except KeyboardInterrupt:
        sys.exit(0)


if __name__ == "__main__":
    main()
