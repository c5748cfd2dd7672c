#!/usr/bin/env python3
"""mancala-tb serve (issue 34): the JSON API against `probe -`, concurrency, hostile
requests, and the explorer page in a headless Chromium.

    test_serve.py MANCALA_TB WORK [--clients 8] [--requests 1000] [--screenshot PNG]

Generates two small table folders in WORK, starts `serve` on a free loopback port and:
  1. CLIENTS threads send REQUESTS GET /api/probe each (random positions of both folders,
     keep-alive): every answer equals what `mancala-tb probe DIR -` answers for the same
     line (the server's extra keys aside), errors with the status the code maps to;
  2. malformed and oversized requests get their 4xx with a JSON error, and the server
     still answers afterwards;
  3. the explorer page is loaded in Debian's chromium (python3-selenium and
     chromium-driver): the board's values are read, a move is clicked, the new values are
     read and checked against the API, back and forward walk the game. Without those
     packages this part prints "skipped: ..." and the test still passes.
Prints the requests per second (not asserted). Only loopback addresses are used.
"""
import argparse
import http.client
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.parse

EXTRA_KEYS = {"folder", "variant", "kind", "side", "from_children"}
EXTRA_MOVE_KEYS = {"game_over", "same_side", "position"}
STATUS = {"bad_position": 400, "invalid_argument": 400, "not_found": 404, "missing_table": 404}


def random_positions(rng, n):
    """(folder, text): Kalah(4) up to 10 seeds in folder 0, Oware up to 6 in folder 1,
    with some lines beyond the tables or malformed (their errors must match too)."""
    out = []
    for _ in range(n):
        folder = rng.randrange(2)
        pits, most = (8, 10) if folder == 0 else (12, 6)
        seeds = [0] * pits
        for _ in range(rng.randint(1, most)):
            seeds[rng.randrange(pits)] += 1
        half = pits // 2
        name = "kalah:4:empty" if folder == 0 else "oware"
        text = f"{name} {','.join(map(str, seeds[:half]))}/{','.join(map(str, seeds[half:]))} {rng.choice('SN')}"
        r = rng.random()
        if r < 0.02:
            text = text.replace("/", "//")  # malformed
        elif r < 0.04:
            text = f"{name} 5,5,5,5/5,5,5,5 S" if folder == 0 else "oware 4,4,4,4,4,4/4,4,4,4,4,4 S"  # beyond
        out.append((folder, text))
    return out


def probe_stream(tb, folder_dir, lines):
    r = subprocess.run([tb, "probe", folder_dir, "-"], input="".join(l + "\n" for l in lines),
                       capture_output=True, text=True, check=True)
    return [json.loads(l) for l in r.stdout.splitlines()]


def strip_extras(answer):
    a = {k: v for k, v in answer.items() if k not in EXTRA_KEYS}
    if "moves" in a:
        a["moves"] = [{k: v for k, v in m.items() if k not in EXTRA_MOVE_KEYS} for m in a["moves"]]
    return a


def get(conn, path, method="GET", body=None, headers=None):
    conn.request(method, path, body=body, headers=headers or {})
    r = conn.getresponse()
    data = r.read()
    return r.status, data


def client(port, jobs, expected, failures, lock):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    for folder, text in jobs:
        path = f"/api/probe?folder={folder}&position={urllib.parse.quote(text)}"
        try:
            status, data = get(conn, path)
        except (http.client.HTTPException, OSError):  # a closed keep-alive: once more
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            status, data = get(conn, path)
        got = json.loads(data)
        want = expected[(folder, text)]
        ok = strip_extras(got) == want
        if "error" in want:
            ok = ok and status == STATUS.get(want["code"], 500)
        else:
            ok = ok and status == 200
        if not ok:
            with lock:
                failures.append((folder, text, status, got, want))
    conn.close()


def check_hostile(port):
    """Malformed and oversized requests: 4xx with a JSON error body each."""
    cases = [
        ("GET", "/api/probe", None, 400),                                   # no position
        ("GET", "/api/probe?position=oware%20x&folder=7", None, 400),       # no folder 7
        ("GET", "/api/probe?position=oware&folder=-1", None, 400),
        ("GET", "/api/probe?position=not%20a%20position", None, 400),
        ("GET", "/api/probe?position=" + "x" * 20000, None, 414),           # URI too long
        ("GET", "/no/such/path", None, 404),
        ("POST", "/api/probe", b"oware 1,0/0,1 S\n" * 8000, 413),           # body over --max-body
        ("POST", "/api/probe?folder=0", b"kalah:4:empty 1,0,0,0/0,0,0,1 S\n" * 1001, 413),  # too many lines
        ("BREW", "/api", None, 400),                                        # unknown method
    ]
    for method, path, body, want in cases:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        status, data = get(conn, path, method, body)
        conn.close()
        assert status == want, (method, path[:60], status, data[:200])
        err = json.loads(data)
        assert set(err) >= {"error", "code"} and err["error"], err
        print(f"ok   {method} {path[:50]}{'...' if len(path) > 50 else ''}: {status} {err['code']}: {err['error'][:70]}")
    # Garbage that is not HTTP at all, and a connection that sends half a request and stops.
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(b"\x00\x01garbage\r\n\r\n")
        reply = s.recv(4096)
        assert reply.startswith(b"HTTP/1.1 400"), reply[:80]
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(b"GET /api HTTP/1.1\r\nHost: x\r\n")  # never finished: the server must not wait on it
    # A POST batch within bounds: errors inline.
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    status, data = get(conn, "/api/probe?folder=0", "POST", b"kalah:4:empty 1,0,3,0/2,1,0,2 S\nnope\n")
    answers = json.loads(data)
    assert status == 200 and len(answers) == 2 and "value" in answers[0] and answers[1]["code"] == "bad_position", answers
    status, data = get(conn, "/api")
    assert status == 200 and len(json.loads(data)["folders"]) == 2
    conn.close()
    print("ok   the server still answers after the hostile requests")


def browser_test(port, work, screenshot):
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support.ui import WebDriverWait
    except ImportError:
        print("skipped: browser test: python3-selenium is not installed (apt-get install python3-selenium)")
        return
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    driver_path = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    if not (os.path.exists(chromium) and os.path.exists(driver_path)):
        print("skipped: browser test: chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)")
        return
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    profile = os.path.join(work, "chromium-profile")
    for flag in ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", f"--user-data-dir={profile}", "--window-size=1000,760"]:
        opts.add_argument(flag)
    try:
        driver = webdriver.Chrome(service=Service(driver_path), options=opts)
    except Exception as e:  # a browser that cannot start here (no display libraries, ...)
        print(f"skipped: browser test: chromium did not start: {str(e).splitlines()[0][:200]}")
        return
    try:
        start = "kalah:4:empty 1,0,3,0/2,1,0,2 S"
        base = f"http://127.0.0.1:{port}/"
        driver.get(base + "?folder=0&position=" + urllib.parse.quote(start))
        wait = WebDriverWait(driver, 20)
        shown = lambda p: (lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-position") == p)
        wait.until(shown(start))
        api = json.loads(http_get(port, "/api/probe?folder=0&position=" + urllib.parse.quote(start)))
        assert driver.find_element(By.ID, "value").text == value_text(api), driver.find_element(By.ID, "value").text
        badges = {e.find_element(By.XPATH, "..").get_attribute("data-move"): e.text
                  for e in driver.find_elements(By.CSS_SELECTOR, ".pit .mv")}
        assert badges == {m["move"]: value_text(m) for m in api["moves"]}, badges
        print(f"ok   browser: {start}: value {value_text(api)}, on the pits {badges}")
        # Click the best move's pit: the page shows the position after it, with its values.
        move = api["moves"][0]
        driver.find_element(By.CSS_SELECTOR, f".pit.move[data-move='{move['move']}']").click()
        wait.until(shown(move["position"]))
        after = json.loads(http_get(port, "/api/probe?folder=0&position=" + urllib.parse.quote(move["position"])))
        assert driver.find_element(By.ID, "value").text == value_text(after)
        rows = [r.find_element(By.TAG_NAME, "td").text for r in driver.find_elements(By.CSS_SELECTOR, "tr.movrow")]
        assert rows == [m["move"] for m in after["moves"]], rows
        assert urllib.parse.quote(move["position"]) in driver.current_url or move["position"] in urllib.parse.unquote(driver.current_url)
        print(f"ok   browser: clicked move {move['move']} -> {move['position']}: value {value_text(after)}, moves {rows}")
        # Play on by clicking a row, then back twice and forward once.
        if after["moves"] and not after["moves"][0]["game_over"]:
            third = after["moves"][0]["position"]
            driver.find_element(By.CSS_SELECTOR, f"tr.movrow[data-move='{after['moves'][0]['move']}']").click()
            wait.until(shown(third))
            driver.find_element(By.ID, "back").click()
            wait.until(shown(move["position"]))
        driver.find_element(By.ID, "back").click()
        wait.until(shown(start))
        driver.find_element(By.ID, "forward").click()
        wait.until(shown(move["position"]))
        print("ok   browser: back and forward walk the game; the URL is the permalink")
        if screenshot:
            driver.get(base + "?folder=0&position=" + urllib.parse.quote(start))
            wait.until(shown(start))
            driver.save_screenshot(screenshot)
            print(f"screenshot: {screenshot}")
    finally:
        driver.quit()


def value_text(m):
    if m["value"] in ("win", "loss", "draw"):
        return "draw" if m["value"] == "draw" else f"{m['value']} in {m['depth']}"
    return f"+{m['value']}" if m["value"] > 0 else str(m["value"])


def http_get(port, path):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    status, data = get(conn, path)
    conn.close()
    assert status == 200, (path, status, data)
    return data


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tb")
    ap.add_argument("work")
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--requests", type=int, default=1000)
    ap.add_argument("--screenshot")
    ap.add_argument("--no-browser", action="store_true")
    args = ap.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    dirs = [os.path.join(args.work, "kalah4"), os.path.join(args.work, "oware")]
    subprocess.run([args.tb, "generate", "kalah:4:empty", "--max-seeds", "10", "--out", dirs[0]], check=True, capture_output=True)
    subprocess.run([args.tb, "generate", "oware", "--max-seeds", "6", "--out", dirs[1]], check=True, capture_output=True)

    # --load: the tables loaded into memory (all of them fit in 1 MiB), their answers under
    # 8 clients checked against `probe -`, which reads them in place.
    server = subprocess.Popen([args.tb, "serve", *dirs, "--port", "0", "--threads", "8", "--max-body", "65536",
                               "--load", "1"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline()
        assert line.startswith("listening on http://127.0.0.1:"), line
        port = int(line.split(":")[2].split("/")[0])
        print(line.strip())

        rng = random.Random(34)
        jobs = random_positions(rng, args.clients * args.requests)
        expected = {}
        for f in (0, 1):
            lines = sorted({t for g, t in jobs if g == f})
            for text, answer in zip(lines, probe_stream(args.tb, dirs[f], lines)):
                expected[(f, text)] = answer
        failures, lock = [], threading.Lock()
        threads = [threading.Thread(target=client, args=(port, jobs[i::args.clients], expected, failures, lock))
                   for i in range(args.clients)]
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        secs = time.perf_counter() - t0
        for f in failures[:5]:
            print("FAIL", f)
        assert not failures, f"{len(failures)} answers differ from probe -"
        errors = sum(1 for k in expected.values() if "error" in k)
        print(f"ok   {args.clients} clients x {args.requests} requests: every answer equals `probe -` "
              f"({len(expected)} distinct positions, {errors} of them errors): {len(jobs) / secs:.0f} requests/s")

        check_hostile(port)
        assert server.poll() is None, "the server died"
        if args.no_browser:
            print("skipped: browser test (--no-browser)")
        else:
            browser_test(port, args.work, args.screenshot)
        assert server.poll() is None, "the server died"
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(args.work, ignore_errors=True)
    assert server.returncode == 0, f"serve exited with {server.returncode}: {server.stderr.read()}"
    print("ok   serve stopped cleanly on SIGTERM")
    print("1 passed, 0 failed")


if __name__ == "__main__":
    main()
