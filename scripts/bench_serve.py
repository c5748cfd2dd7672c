#!/usr/bin/env python3
"""Requests per second of `mancala-tb serve` for random positions (issue 34).

    python3 scripts/bench_serve.py build/tools/mancala-tb [--clients 8] [--requests 2000]

Makes kalah:4:empty tables up to 12 seeds in a scratch folder, starts `serve` on a free
loopback port, and runs CLIENTS client processes (no shared interpreter lock), each
sending REQUESTS GET /api/probe for random positions of up to 12 seeds over one
keep-alive connection (reopened when the server closes it). The clients run on the same
machine as the server: the figure is what the pair does together.
"""
import argparse
import http.client
import multiprocessing
import os
import random
import shutil
import subprocess
import tempfile
import time
import urllib.parse


def positions(seed, n):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        pits = [0] * 8
        for _ in range(rng.randint(1, 12)):
            pits[rng.randrange(8)] += 1
        out.append(f"kalah:4:empty {','.join(map(str, pits[:4]))}/{','.join(map(str, pits[4:]))} {rng.choice('SN')}")
    return out


def client(args):
    port, seed, n = args
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    bad = 0
    for text in positions(seed, n):
        path = "/api/probe?position=" + urllib.parse.quote(text)
        for attempt in (0, 1):
            try:
                conn.request("GET", path)
                r = conn.getresponse()
                r.read()
                bad += r.status != 200
                break
            except (http.client.HTTPException, OSError):
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.close()
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tb")
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--requests", type=int, default=2000)
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="bench_serve_")
    try:
        subprocess.run([a.tb, "generate", "kalah:4:empty", "--max-seeds", "12", "--out", work], check=True, capture_output=True)
        server = subprocess.Popen([a.tb, "serve", work, "--port", "0"], stdout=subprocess.PIPE, text=True)
        try:
            port = int(server.stdout.readline().split(":")[2].split("/")[0])
            cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
            print(f"kalah:4:empty up to 12 seeds, random positions; {cpu}, {os.cpu_count()} cores, clients on the same machine\n")
            print("| clients | requests | seconds | requests/s | non-200 |")
            print("|---|---|---|---|---|")
            for clients in sorted({1, a.clients}):
                with multiprocessing.Pool(clients) as pool:
                    t = time.perf_counter()
                    bad = sum(pool.map(client, [(port, 1000 + i, a.requests) for i in range(clients)]))
                    secs = time.perf_counter() - t
                n = clients * a.requests
                print(f"| {clients} | {n} | {secs:.2f} | {n / secs:.0f} | {bad} |")
        finally:
            server.terminate()
            server.wait(timeout=10)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
