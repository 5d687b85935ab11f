#!/usr/bin/env python3
# bench/watch_rss.py [BIN] [--edits N] [TREE ...]: resident memory of `index --watch` per edit.
"""Resident memory of `index --watch` across edits (issue: RSS grew with every edit).

usage: bench/watch_rss.py [BIN] [--edits N] [TREE ...]
       (default BIN target/release/codegraph-tui, 8 edits, trees npm; a TREE is a name
       under ~/.cache/codegraph-corpus or an absolute path)

Per tree: copy it (old mtimes), index it once with a private cache, start
`index --watch --json`, then append a function to one source file at a time (files
spread over the tree). After the start and after each update line, wait until the
process is idle (no CPU time used for 1 s: the snapshot save is done) and print its
VmRSS and VmHWM from /proc in MB. Linux only.
"""
import json, os, select, shutil, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import CORPUS as corpus, copy_tree, cpu_ticks as cpu, memory as status, parse_args, private_env

binary, edits, trees = parse_args(["npm"], default_edits=8)
EDIT = {".py": "\n\ndef cg_rss_added_{n}():\n    return {n}\n",
        ".rs": "\n\npub fn cg_rss_added_{n}() -> u32 {{ {n} }}\n",
        ".go": "\n\nfunc cgRssAdded{n}() int {{ return {n} }}\n",
        ".js": "\n\nfunction cgRssAdded{n}() {{ return {n}; }}\n",
        ".ts": "\n\nexport function cgRssAdded{n}(): number {{ return {n}; }}\n",
        ".java": "\nclass CgRssAdded{n} {{ int added() {{ return {n}; }} }}\n"}




def idle(pid):
    last = cpu(pid)
    while True:
        time.sleep(1.0)
        now = cpu(pid)
        if now == last:
            return
        last = now


for tree in trees:
    src = tree if os.path.isabs(tree) else os.path.join(corpus, tree)
    with tempfile.TemporaryDirectory() as tmp:
        repo = os.path.join(tmp, os.path.basename(tree))
        copy_tree(src, repo)
        env = private_env(tmp)
        subprocess.run([binary, "-C", repo, "index", "--json"], env=env, check=True,
                       capture_output=True)
        g = json.loads(subprocess.run([binary, "-C", repo, "graph", "--json"], env=env,
                                      check=True, capture_output=True).stdout)
        found = sorted(n["id"] for n in g["nodes"] if n["kind"] == "file"
                       and os.path.splitext(n["id"])[1] in EDIT and not n["id"].endswith(".d.ts"))
        del g
        step = max(1, len(found) // edits)
        files = [os.path.join(repo, f) for f in found[::step][:edits]]
        p = subprocess.Popen([binary, "-C", repo, "index", "--watch", "--json"], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            p.stdout.readline()
            idle(p.pid)
            s = status(p.pid)
            print(f"{os.path.basename(tree):8} start   rss {s['VmRSS']:7.0f} MB  peak {s['VmHWM']:7.0f} MB", flush=True)
            for n, f in enumerate(files):
                with open(f, "a") as h:
                    h.write(EDIT[os.path.splitext(f)[1]].format(n=n))
                ready, _, _ = select.select([p.stdout], [], [], 300)
                assert ready, f"no update within 300 s after editing {f}"
                p.stdout.readline()
                idle(p.pid)
                s = status(p.pid)
                print(f"{os.path.basename(tree):8} edit {n:2} rss {s['VmRSS']:7.0f} MB  peak {s['VmHWM']:7.0f} MB", flush=True)
        finally:
            p.kill()
            p.wait()
