#!/usr/bin/env python3
# bench/mcp_bench.py [BIN] [--calls N] [--edits N] [TREE ...]: the MCP server's answer times.
"""Answer times, memory and edit-to-answer latency of `codegraph-tui mcp`.

usage: bench/mcp_bench.py [BIN] [--calls N] [--edits N] [TREE ...]
       (default BIN target/release/codegraph-tui, 200 calls, 5 edits, trees rust python;
       a TREE is a name under ~/.cache/codegraph-corpus or an absolute path)

Per tree: copy it (old mtimes) and index it once with a private cache (the warm cache a
user has after the first run). Then start `mcp` and speak MCP to it over stdio, as an
agent does: newline-delimited JSON-RPC, one request at a time, each timed from the write
of the request to the read of its whole answer.

* start: spawn to `initialize` answered, and spawn to the first `callers` answered from a
  snapshot (the cached one);
* `callers` (depth 1) of a definition with 20-200 callers, picked from the root's
  `outline` (its most-called definitions); `symbols` of that name; `search` in text and
  hybrid mode (the first search call, which builds the search index, timed apart);
  N calls each, p50 / p99 / max in ms;
* edit to answer: append a function that calls a top-level function of the same file,
  then call `callers` of that function every 5 ms until the new caller is in the answer;
  each edit once the server is idle, N edits before any search and N after it (the
  search indexes then follow at the next search, not at the edit);
* memory: the server's VmRSS and VmHWM (/proc, MB) once idle after the calls, and the
  TUI's on the same tree and cache (in a 120x40 tmux pane, idle after its first
  snapshot), the comparison the issue asks for.

Linux only (it reads /proc); needs tmux for the TUI row.
"""
import json, os, re, shutil, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import CORPUS as corpus, Client, copy_tree, cpu_ticks, memory, parse_args, private_env

args = sys.argv[1:]
calls = 200
if "--calls" in args:
    i = args.index("--calls")
    calls = int(args[i + 1])
    del args[i:i + 2]
sys.argv[1:] = args
binary, edits, trees = parse_args(["rust", "python"], default_edits=5)

# A new function calling `{callee}` at the end of a file, by the file's extension.
PROBE = {".py": "\n\ndef cg_mcp_probe_{n}():\n    return {callee}()\n",
         ".rs": "\n\npub fn cg_mcp_probe_{n}() {{ {callee}(); }}\n"}
TOP_FN = {".py": re.compile(r"^def ([A-Za-z_]\w*)\(", re.M),
          ".rs": re.compile(r"^(?:pub )?fn ([a-z_]\w*)\(", re.M)}


def wait_idle(pid, quiet=1.0, timeout=600):
    """Waits until `pid` uses no CPU time for `quiet` seconds."""
    end = time.time() + timeout
    last = cpu_ticks(pid)
    while time.time() < end:
        time.sleep(quiet)
        now = cpu_ticks(pid)
        if now == last:
            return
        last = now


def percentiles(seconds):
    ms = sorted(s * 1000 for s in seconds)
    pick = lambda q: ms[min(len(ms) - 1, int(q * len(ms)))]
    return f"p50 {pick(0.5):.2f}  p99 {pick(0.99):.2f}  max {ms[-1]:.2f} ms"


def timed(c, tool, arguments, n):
    out = []
    for _ in range(n):
        s, r = c.call(tool, arguments)
        if r.get("isError"):
            raise RuntimeError(f"{tool} {arguments}: {r['content'][0]['text'][:300]}")
        out.append(s)
    return out


def pick_callee(c):
    """A definition with 20-200 callers among the most-called ones of the root outline's
    folders, descending breadth first (at most 50 folders) while none qualifies."""
    best, folders, seen = [], [""], 0
    while folders and not best and seen < 50:
        path = folders.pop(0)
        seen += 1
        _, r = c.call("outline", {"path": path, "limit": 5000})
        for e in r["structuredContent"]["result"].get("entries", []):
            if e.get("type") == "folder":
                folders.append(e["path"])
            for t in e.get("top", []):
                if t["kind"] in ("function", "method") and 20 <= t["callers"] <= 200:
                    best.append((t["callers"], t["id"]))
    if not best:
        raise RuntimeError("no definition with 20-200 callers in the first 50 folders")
    best.sort(reverse=True)
    return best[len(best) // 2]


def probe_sites(repo, limit=40):
    """(file, function) pairs: top-level functions of source files, to call from a probe."""
    found = []
    for d, dirs, fs in os.walk(repo):
        dirs[:] = sorted(x for x in dirs if not x.startswith(".") and x not in ("tests", "test"))
        for f in sorted(fs):
            ext = os.path.splitext(f)[1]
            if ext not in TOP_FN:
                continue
            path = os.path.join(d, f)
            try:
                text = open(path, encoding="utf-8").read()
            except (OSError, UnicodeDecodeError):
                continue
            names = TOP_FN[ext].findall(text)
            if names and len(text) < 200_000:
                found.append((path, names[0]))
                if len(found) >= limit:
                    return found
    return found


def edit_latency(c, repo, n, first=0):
    """Up to `n` edits, each made once the server is idle (probe functions numbered from
    `first`); seconds from each write to the new caller in the answer."""
    out = []
    for i, (path, callee) in enumerate(probe_sites(repo), start=first):
        if len(out) >= n:
            break
        rel = os.path.relpath(path, repo)
        sym = f"{rel}::{callee}"
        _, r = c.call("callers", {"symbol": sym})
        if r.get("isError"):
            continue  # the id is not unique (a `#2` twin) or not a definition
        probe = f"cg_mcp_probe_{i}"
        with open(path, "a", encoding="utf-8") as h:
            h.write(PROBE[os.path.splitext(path)[1]].format(n=i, callee=callee))
        t = time.perf_counter()
        while time.perf_counter() - t < 30:
            _, r = c.call("callers", {"symbol": sym})
            nodes = r.get("structuredContent", {}).get("result", {}).get("nodes", [])
            if any(probe in nd.get("id", "") for nd in nodes):
                out.append(time.perf_counter() - t)
                break
            time.sleep(0.005)
        else:
            print(f"  edit {i}: {probe} not among the callers of {sym} after 30 s")
        wait_idle(c.p.pid)  # the update's save (and any search rebuild) done
    return out


def tui_memory(repo, env):
    if not shutil.which("tmux"):
        return None
    sock = f"cgbench{os.getpid()}"
    cmd = " ".join(f"{k}={v}" for k, v in env.items() if k in ("XDG_CACHE_HOME", "CODEGRAPH_CONFIG"))
    subprocess.run(["tmux", "-L", sock, "new-session", "-d", "-x", "120", "-y", "40",
                    f"env {cmd} {binary} {repo}"], check=True)
    try:
        time.sleep(1)
        pane = subprocess.run(["tmux", "-L", sock, "list-panes", "-F", "#{pane_pid}"],
                              capture_output=True, text=True, check=True).stdout.split()[0]
        # The pane's process is `env`, which execs the binary: the same pid.
        time.sleep(2)
        wait_idle(int(pane), quiet=2.0)
        return memory(int(pane))
    finally:
        subprocess.run(["tmux", "-L", sock, "kill-server"], capture_output=True)


def bench(tree):
    src = tree if os.path.isabs(tree) else os.path.join(corpus, tree)
    tmp = tempfile.mkdtemp(prefix="cg-mcp-bench-")
    try:
        repo = os.path.join(tmp, "repo")
        copy_tree(src, repo)
        env = private_env(tmp)
        t = time.perf_counter()
        subprocess.run([binary, "-C", repo, "index", "--json"], env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        print(f"{tree}: cold index {time.perf_counter() - t:.1f} s")

        c = Client([binary, "mcp", repo], env)
        init = c.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                        "clientInfo": {"name": "mcp_bench", "version": "1"}})
        t_init = time.perf_counter() - c.t0
        c.notify("notifications/initialized")
        t = time.perf_counter()
        c.request("tools/list", {})
        t_list = time.perf_counter() - t
        while True:
            _, r = c.call("status", {})
            if r["structuredContent"].get("snapshot"):
                break
            time.sleep(0.005)
        t_first = time.perf_counter() - c.t0
        print(f"  protocol {init['protocolVersion']}: initialize answered {t_init * 1000:.0f} ms"
              f" after spawn, tools/list {t_list * 1000:.1f} ms, first snapshot answer"
              f" {t_first * 1000:.0f} ms after spawn")

        wait_idle(c.p.pid)
        m = memory(c.p.pid)
        print(f"  server memory idle after start: VmRSS {m['VmRSS']:.0f} MB, VmHWM {m['VmHWM']:.0f} MB")

        n, sym = pick_callee(c)
        name = re.split(r"::|\.", sym)[-1]
        print(f"  callers of {sym} ({n} callers)")
        print(f"  callers depth 1  x{calls}: {percentiles(timed(c, 'callers', {'symbol': sym}, calls))}")
        print(f"  symbols {name!r} x{calls}: {percentiles(timed(c, 'symbols', {'query': name}, calls))}")
        lat = edit_latency(c, repo, edits)
        if lat:
            print(f"  edit to callers answer, no search index built, x{len(lat)}: "
                  + ", ".join(f"{s * 1000:.0f}" for s in lat) + " ms")
        for mode in ("text", "hybrid"):
            q = {"query": f"{name} error", "mode": mode, "limit": 20}
            s, _ = c.call("search", q)
            print(f"  search {mode}: first call {s:.2f} s (builds what it needs)")
            print(f"  search {mode} x{calls}: {percentiles(timed(c, 'search', q, calls))}")
        wait_idle(c.p.pid)
        m = memory(c.p.pid)
        print(f"  server memory after the calls: VmRSS {m['VmRSS']:.0f} MB, VmHWM {m['VmHWM']:.0f} MB")
        lat = edit_latency(c, repo, edits, first=100)
        if lat:
            print(f"  edit to callers answer, search indexes built (they follow at the next"
                  f" search), x{len(lat)}: "
                  + ", ".join(f"{s * 1000:.0f}" for s in lat) + " ms")
        c.close()

        tm = tui_memory(repo, env)
        if tm:
            print(f"  TUI on the same tree, idle after its first snapshot: VmRSS"
                  f" {tm['VmRSS']:.0f} MB, VmHWM {tm['VmHWM']:.0f} MB")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


for tree in trees:
    bench(tree)
