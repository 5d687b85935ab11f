#!/usr/bin/env python3
# bench/bench_cache.py [BIN] [TREE ...]: cold, warm, query and edit times of the index cache.
"""Cache benchmark (issue 5) on the real-code corpus of ../shared/corpus/fetch.sh.

usage: bench/bench_cache.py [BIN] [TREE ...]    (default BIN target/release/codegraph-tui,
       TREEs rust python npm go java under ~/.cache/codegraph-corpus)

Per tree, with a private cache folder (XDG_CACHE_HOME in a temp dir):
  cold    `index --json` with no cache: walk, parse, resolve, save (wall, best of 1)
  warm    `index --json` again, nothing changed: read the manifest, walk and stat the tree,
          check every snapshot file's checksum, answer the counts (wall, best of 3)
  query   `symbols parse --json`, nothing changed: decode the snapshot into the graph,
          walk and stat, answer a fuzzy name query (wall, best of 3): the warm start of a
          command (or the TUI) that answers from the graph
  edit    `index --watch --json` running; append a function to one source file; time from
          the write to the update line on stdout (median of 5 edits on distinct files;
          includes the watcher's 200 ms debounce)
  cache   bytes of the snapshot on disk / bytes of the indexed sources
The corpus tree is copied to a temp dir first (edits never touch the corpus).
CG_BENCH_VERBOSE=1 prints each edit's latency, update time and files resolved to stderr.
"""
import json, os, select, shutil, subprocess, sys, tempfile, time, statistics

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import CORPUS as corpus, copy_tree, parse_args, private_env

binary, _, trees = parse_args(["rust", "python", "npm", "go", "java"])
EDIT = {".py": "\n\ndef cg_bench_added_{n}():\n    return {n}\n",
        ".rs": "\n\npub fn cg_bench_added_{n}() -> u32 {{ {n} }}\n",
        ".go": "\n\nfunc cgBenchAdded{n}() int {{ return {n} }}\n",
        ".js": "\n\nfunction cgBenchAdded{n}() {{ return {n}; }}\n",
        ".ts": "\n\nexport function cgBenchAdded{n}(): number {{ return {n}; }}\n",
        ".java": "\nclass CgBenchAdded{n} {{ int added() {{ return {n}; }} }}\n"}


def run(env, repo, *extra):
    t = time.monotonic()
    out = subprocess.run([binary, "-C", repo, *extra, "index", "--json"], env=env,
                         capture_output=True, check=True)
    return time.monotonic() - t, json.loads(out.stdout)


def query(env, repo):
    t = time.monotonic()
    subprocess.run([binary, "-C", repo, "symbols", "parse", "--json"], env=env,
                   capture_output=True, check=True)
    return time.monotonic() - t


def edit_latency(env, repo, files):
    p = subprocess.Popen([binary, "-C", repo, "index", "--watch", "--json"], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        json.loads(p.stdout.readline())
        time.sleep(1.0)
        lat = []
        for n, f in enumerate(files):
            ext = os.path.splitext(f)[1]
            with open(f, "a") as h:
                h.write(EDIT[ext].format(n=n))
            t = time.monotonic()
            ready, _, _ = select.select([p.stdout], [], [], 120)
            assert ready, f"no update within 120 s after editing {f}"
            line = p.stdout.readline()
            lat.append(time.monotonic() - t)
            upd = json.loads(line)
            assert upd["modified"], line
            if os.environ.get("CG_BENCH_VERBOSE"):
                print(f"  edit {os.path.relpath(f, repo)}: {lat[-1] * 1000:.0f} ms "
                      f"(update {upd['elapsed_ms']} ms, {upd['resolved_files']} files resolved)",
                      file=sys.stderr, flush=True)
            time.sleep(0.5)
        return lat
    finally:
        p.kill()
        p.wait()


def sources(env, repo, limit):
    """`limit` indexed source files spread over the tree (from the graph's file nodes)."""
    out = subprocess.run([binary, "-C", repo, "graph", "--json"], env=env,
                         capture_output=True, check=True)
    g = json.loads(out.stdout)
    found = sorted(n["id"] for n in g["nodes"] if n["kind"] == "file"
                   and EDIT.get(os.path.splitext(n["id"])[1]) and not n["id"].endswith(".d.ts"))
    step = max(1, len(found) // limit)
    return [os.path.join(repo, f) for f in found[::step][:limit]]


print(f"{'tree':8} {'files':>6} {'cold s':>8} {'warm s':>7} {'warm/cold':>9} {'query s':>7} {'check ms':>8} {'edit ms (p50, max)':>19} {'cache MB':>9} {'cache/src':>9}")
for tree in trees:
    src = os.path.join(corpus, tree)
    if not os.path.isdir(src):
        print(f"{tree}: missing (run ../shared/corpus/fetch.sh)")
        continue
    with tempfile.TemporaryDirectory() as tmp:
        repo = os.path.join(tmp, tree)
        copy_tree(src, repo)
        env = private_env(tmp)
        cold, j = run(env, repo)
        warm, jw = min((run(env, repo) for _ in range(3)), key=lambda r: r[0])
        assert jw["cache"]["state"] == "warm", jw["cache"]
        q = min(query(env, repo) for _ in range(3))
        cache_dir = j["cache_dir"]
        size = 0
        for d, _, fs in os.walk(cache_dir):
            size += sum(os.path.getsize(os.path.join(d, f)) for f in fs)
        lat = edit_latency(env, repo, sources(env, repo, 5))
        src_bytes = j["stats"]["bytes"]
        print(f"{tree:8} {j['stats']['files_indexed'] + j['stats']['files_windowed']:>6} {cold:8.2f} {warm:7.3f} {warm / cold:9.3f} {q:7.3f} "
              f"{jw['cache']['load_ms']:>8} {statistics.median(lat) * 1000:>10.0f}, {max(lat) * 1000:>6.0f} "
              f"{size / 1e6:9.1f} {size / max(1, src_bytes):9.2f}", flush=True)
