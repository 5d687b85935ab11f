#!/usr/bin/env python3
"""Several instances on one repository while a script edits it.

Usage: bench/concurrency.py BIN TREE [EDITS] [SECONDS]

Copies TREE to a scratch folder and starts, on that copy, with private XDG folders:
`index --watch --json` (the first instance: it takes the cache's lock and writes), a
second `index --watch --json` (read-only), the TUI in a detached tmux session and the MCP
server (`mcp`, spoken to over stdio, its `status` asked every 50 ms). Then it
makes EDITS edits (default 1000) spread over SECONDS (default 180): functions appended to
files, files added, deleted and renamed. Meanwhile it samples `/proc/locks` every 20 ms:
at no moment may more than one instance hold the cache's lock.

When the edits end and every watcher has been quiet for 5 s, each instance must answer as
a fresh `--no-cache index --json` of the same tree does: the watchers' last update (files
and edges), the TUI's status bar (files, symbols, calls), the MCP server's `status`
(files, definitions, edges). Prints edits per second absorbed and, per watcher and for
the server, the lag from an edit to the first update (a new snapshot generation, for the
server) that followed it (p50, worst).
Exit status 1 when an instance disagrees or two held the lock at once.
"""
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import Client  # noqa: E402


def main() -> None:
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    bin_, tree = os.path.abspath(sys.argv[1]), sys.argv[2]
    edits = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
    seconds = float(sys.argv[4]) if len(sys.argv) > 4 else 180.0
    scratch = tempfile.mkdtemp(prefix="cg-concurrency-")
    repo = os.path.join(scratch, "repo")
    shutil.copytree(tree, repo, symlinks=True)
    env = dict(
        os.environ,
        XDG_CACHE_HOME=os.path.join(scratch, "cache"),
        XDG_STATE_HOME=os.path.join(scratch, "state"),
        CODEGRAPH_CONFIG="/nonexistent/codegraph.toml",
    )
    ok = True

    def fresh() -> dict:
        out = subprocess.run([bin_, "-C", repo, "--no-cache", "index", "--json"],
                             env=env, capture_output=True, check=True, text=True).stdout
        return json.loads(out)["stats"]

    updates: dict[str, list[tuple[float, dict]]] = {"writer": [], "reader": []}

    def watcher(name: str) -> subprocess.Popen:
        p = subprocess.Popen([bin_, "-C", repo, "index", "--watch", "--json"], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)

        def read() -> None:
            for line in p.stdout:
                try:
                    updates[name].append((time.monotonic(), json.loads(line)))
                except json.JSONDecodeError:
                    pass
        threading.Thread(target=read, daemon=True).start()
        return p

    writer = watcher("writer")
    lock_dir = None
    deadline = time.monotonic() + 120
    while lock_dir is None and time.monotonic() < deadline:
        for root, _, files in os.walk(env["XDG_CACHE_HOME"]):
            if "CURRENT" in files:
                lock_dir = root
        time.sleep(0.1)
    if lock_dir is None:
        sys.exit("the first instance saved no snapshot within 120 s")
    lock_inode = os.stat(os.path.join(lock_dir, "lock")).st_ino
    reader = watcher("reader")
    session = f"cg-concurrency-{os.getpid()}"
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", "160", "-y", "40",
                    "env", f"XDG_CACHE_HOME={env['XDG_CACHE_HOME']}",
                    f"XDG_STATE_HOME={env['XDG_STATE_HOME']}",
                    "CODEGRAPH_CONFIG=/nonexistent/codegraph.toml", bin_, repo], check=True)

    server = Client([bin_, "mcp", repo], env)
    server.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                  "clientInfo": {"name": "concurrency", "version": "1"}})
    server.notify("notifications/initialized")
    generations: list[tuple[float, int]] = []

    def mcp_status() -> dict:
        return server.call("status", {})[1]["structuredContent"]["result"]

    def poll_server() -> None:
        while not stop.is_set():
            g = mcp_status().get("generation")
            if g is not None and (not generations or generations[-1][1] != g):
                generations.append((time.monotonic(), g))
            time.sleep(0.05)

    pids = {writer.pid: "writer", reader.pid: "reader", server.p.pid: "mcp"}
    most_holders = [0]
    stop = threading.Event()

    def sample_locks() -> None:
        while not stop.is_set():
            tui = subprocess.run(["tmux", "display-message", "-p", "-t", session, "#{pane_pid}"],
                                 capture_output=True, text=True).stdout.strip()
            watched = set(pids) | ({int(tui)} if tui.isdigit() else set())
            holders = set()
            with open("/proc/locks") as f:
                for line in f:
                    parts = line.split()
                    # "1: FLOCK  ADVISORY  WRITE 1234 00:2a:5678 0 EOF"
                    # A "->" line is a waiter, not a holder.
                    if len(parts) >= 6 and parts[1] != "->" and \
                            parts[5].split(":")[-1] == str(lock_inode):
                        pid = int(parts[4])
                        if pid in watched:
                            holders.add(pid)
            most_holders[0] = max(most_holders[0], len(holders))
            time.sleep(0.02)
    sampler = threading.Thread(target=sample_locks, daemon=True)
    sampler.start()
    poller = threading.Thread(target=poll_server, daemon=True)
    poller.start()

    # The edits: a seeded mix so runs are comparable.
    rnd = random.Random(7)
    sources = [os.path.join(d, f) for d, _, fs in os.walk(repo) for f in fs
               if f.endswith((".py", ".rs", ".ts", ".js", ".go", ".java"))]
    added: list[str] = []
    edit_times = []
    start = time.monotonic()
    for i in range(edits):
        target = start + seconds * i / edits
        time.sleep(max(0.0, target - time.monotonic()))
        kind = rnd.random()
        if kind < 0.55 or not added:
            path = rnd.choice(sources)
            with open(path, "a") as f:
                if path.endswith(".py"):
                    f.write(f"\n\ndef concurrency_{i}():\n    return concurrency_{i}()\n")
                else:
                    f.write(f"\n// concurrency edit {i}\n")
        elif kind < 0.75:
            path = os.path.join(repo, f"concurrency_{i}.py")
            with open(path, "w") as f:
                f.write(f"def added_{i}():\n    return added_{i}()\n")
            added.append(path)
        elif kind < 0.9:
            os.remove(added.pop(rnd.randrange(len(added))))
        else:
            old = added.pop(rnd.randrange(len(added)))
            new = os.path.join(repo, f"renamed_{i}.py")
            os.rename(old, new)
            added.append(new)
        edit_times.append(time.monotonic())
    edits_done = time.monotonic()

    # Quiet: no update from either watcher or the server for 5 s (at most 120 s).
    while time.monotonic() - edits_done < 120:
        last = max([t for u in updates.values() for t, _ in u[-1:]]
                   + [t for t, _ in generations[-1:]] or [edits_done])
        if time.monotonic() - last > 5:
            break
        time.sleep(0.5)
    time.sleep(2)
    stop.set()
    sampler.join()
    poller.join()

    want = fresh()
    want_files = want["files_indexed"] + want["files_windowed"]
    want_edges = sum(want["edges"].values())
    for name, ups in updates.items():
        if not ups:
            print(f"{name}: no update at all")
            ok = False
            continue
        got = ups[-1][1]
        same = got["files"] == want_files and got["edges"] == want_edges
        ok &= same
        lags = []
        times = [t for t, _ in ups]
        for e in edit_times:
            nxt = next((t for t in times if t >= e), None)
            if nxt is not None:
                lags.append(nxt - e)
        print(f"{name}: {len(ups)} updates; last {got['files']} files, {got['edges']} edges "
              f"(fresh: {want_files}, {want_edges}) {'same' if same else 'DIFFERENT'}; "
              f"lag edit -> update p50 {statistics.median(lags) * 1000:.0f} ms, "
              f"worst {max(lags) * 1000:.0f} ms")
    st = mcp_status()
    counts = st.get("counts", {})
    got_files = counts.get("files_indexed", 0) + counts.get("files_windowed", 0)
    mcp_same = (got_files == want_files and counts.get("definitions") == want["definitions"]
                and counts.get("edges") == want_edges)
    ok &= mcp_same
    times = [t for t, _ in generations]
    lags = [next(t for t in times if t >= e) - e for e in edit_times if times and times[-1] >= e]
    lag = (f"lag edit -> new generation p50 {statistics.median(lags) * 1000:.0f} ms, worst "
           f"{max(lags) * 1000:.0f} ms") if lags else "no new generation after an edit"
    print(f"mcp: {len(generations)} generations seen; last {got_files} files, "
          f"{counts.get('definitions')} definitions, {counts.get('edges')} edges (fresh: "
          f"{want_files}, {want['definitions']}, {want_edges}) "
          f"{'same' if mcp_same else 'DIFFERENT'}; read_only {st['cache']['read_only']}; {lag}")
    screen = subprocess.run(["tmux", "capture-pane", "-p", "-t", session],
                            capture_output=True, text=True).stdout
    # The status bar is the screen's last line with the counts.
    status = next((line for line in reversed(screen.splitlines()) if " symbols " in line), "")
    tui_same = (f" {want_files} files " in status and f" {want['definitions']} symbols " in status
                and f" {want['edges'].get('calls', 0)} calls" in status)
    ok &= tui_same
    print(f"tui: {status.strip()[:150]!r} {'same' if tui_same else 'DIFFERENT'} "
          f"(fresh: {want_files} files, {want['definitions']} symbols, "
          f"{want['edges'].get('calls', 0)} calls)")
    span = (max(t for u in updates.values() for t, _ in u) - start) if any(updates.values()) else 0
    print(f"{edits} edits in {edits_done - start:.1f} s; absorbed at {edits / max(span, 1e-9):.1f} "
          f"edits/s; most lock holders at one moment: {most_holders[0]}")
    ok &= most_holders[0] <= 1
    subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
    server.close()
    for p in (writer, reader):
        p.terminate()
        p.wait(timeout=30)
    shutil.rmtree(scratch, ignore_errors=True)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
