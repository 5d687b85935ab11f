# bench/benchlib.py (imported, not run): what the corpus bench scripts share.
"""Shared by the corpus scripts (bench_cache.py, watch_rss.py, verify_incremental.py,
mcp_bench.py, concurrency.py): their command line, a private copy of a corpus tree, a
private cache, a process's memory and CPU time from /proc, and a minimal MCP client."""
import json, os, shutil, subprocess, sys, time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.expanduser("~/.cache/codegraph-corpus")


def parse_args(default_trees, default_edits=None):
    """`[BIN] [--edits N] [TREE ...]` -> (binary, edits, trees); BIN defaults to the
    release build of this checkout."""
    args = sys.argv[1:]
    binary = args.pop(0) if args and os.path.isfile(args[0]) else os.path.join(
        HERE, "target/release/codegraph-tui")
    edits = default_edits
    if "--edits" in args:
        i = args.index("--edits")
        edits = int(args[i + 1])
        del args[i:i + 2]
    return binary, edits, args or list(default_trees)


def copy_tree(src, repo, backdate=True):
    """Copies `src` to `repo` (links kept as links). With `backdate`, every file's mtime
    is set an hour back, as in a checkout that was not just written, so stamps are not
    "racily clean"."""
    shutil.copytree(src, repo, symlinks=True)
    if not backdate:
        return
    past = time.time() - 3600
    for d, _, fs in os.walk(repo):
        for f in fs:
            try:
                os.utime(os.path.join(d, f), (past, past), follow_symlinks=False)
            except OSError:
                pass


def private_env(tmp):
    """The environment for a run with its own cache folder under `tmp` and no config."""
    return dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, "xdg"),
                CODEGRAPH_CONFIG="/nonexistent/cg.toml")


def memory(pid):
    """VmRSS and VmHWM of `pid` from /proc, in MB (Linux)."""
    out = {}
    with open(f"/proc/{pid}/status") as h:
        for line in h:
            k, _, v = line.partition(":")
            if k in ("VmRSS", "VmHWM"):
                out[k] = int(v.split()[0]) / 1024
    return out


def cpu_ticks(pid):
    """User plus system CPU time of `pid` so far, in clock ticks (/proc/PID/stat)."""
    with open(f"/proc/{pid}/stat") as h:
        f = h.read().rsplit(")", 1)[1].split()
    return int(f[11]) + int(f[12])


class Client:
    """A minimal MCP client over the server's stdio (one request in flight)."""

    def __init__(self, argv, env):
        self.t0 = time.perf_counter()
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, env=env)
        self.next_id = 0

    def request(self, method, params):
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        self.p.stdin.write((json.dumps(msg) + "\n").encode())
        self.p.stdin.flush()
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError(f"server closed stdout during {method}")
            answer = json.loads(line)
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer["result"]

    def notify(self, method):
        self.p.stdin.write((json.dumps({"jsonrpc": "2.0", "method": method}) + "\n").encode())
        self.p.stdin.flush()

    def call(self, tool, arguments):
        """(seconds, result) of one `tools/call`."""
        t = time.perf_counter()
        r = self.request("tools/call", {"name": tool, "arguments": arguments})
        return time.perf_counter() - t, r

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=60)
