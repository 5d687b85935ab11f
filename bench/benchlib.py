# bench/benchlib.py (imported, not run): what the corpus bench scripts share.
"""Shared by the corpus scripts (bench_cache.py, watch_rss.py, verify_incremental.py,
mcp_bench.py): their command line, a private copy of a corpus tree, a private cache, and
a process's memory and CPU time from /proc."""
import os, shutil, sys, time

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
