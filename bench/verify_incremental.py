#!/usr/bin/env python3
# bench/verify_incremental.py [BIN] [--edits N] [--watch] [TREE ...]: random edits, then the
# cached graph must equal a fresh one.
"""Randomised check of incremental updates on real code (issue 5).

usage: bench/verify_incremental.py [BIN] [--edits N] [--watch] [TREE ...]
       (default BIN target/release/codegraph-tui, 12 edits, trees python go java npm
       under ~/.cache/codegraph-corpus, from ../shared/corpus/fetch.sh; a TREE may also be
       an absolute path, such as a few crates copied out of the Rust tree)

Per tree: copy it, index it with a cache, then apply N random edits (append a function,
delete a file, copy a file elsewhere, rename a word that is a definition's name); after
each, `index` with CODEGRAPH_VERIFY_INCREMENTAL=1 (the engine then also resolves
everything and aborts if the incremental resolution differs) and compare `graph --json`
from the cache with `graph --json --no-cache`, byte for byte. Seeded: same run, same edits.

With --watch, one `index --watch --json` process (under the same check) takes every edit
instead of one `index` per edit: what a long-running watcher keeps between updates (the
resolver's tables, the written-names index, shared node chunks, carried unresolved calls)
is exercised edit after edit. After each update line the script waits for the watcher's
save (a quiet second), then compares `graph --json` (from that snapshot) with a fresh one;
a watcher that dies or reports a difference fails the run.
"""
import json, os, random, re, select, shutil, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import CORPUS as corpus, copy_tree, parse_args, private_env

WATCH = "--watch" in sys.argv
if WATCH:
    sys.argv.remove("--watch")
binary, edits, trees = parse_args(["python", "go", "java", "npm"], default_edits=12)
ADD = {".py": "\n\ndef cg_verify_{n}():\n    return helper_{n}()\n",
       ".rs": "\n\npub fn cg_verify_{n}() -> usize {{ helper_{n}() }}\n",
       ".go": "\n\nfunc cgVerify{n}() int {{ return len(\"{n}\") }}\n",
       ".js": "\n\nfunction cgVerify{n}() {{ return String({n}); }}\n",
       ".ts": "\n\nexport function cgVerify{n}(): string {{ return String({n}); }}\n",
       ".java": "\nclass CgVerify{n} {{ String f() {{ return String.valueOf({n}); }} }}\n"}


def cg(env, repo, *a, check=True):
    out = subprocess.run([binary, "-C", repo, *a], env=env, capture_output=True)
    if check and out.returncode != 0:
        sys.exit(f"{' '.join(a)} failed ({out.returncode}): {out.stderr.decode(errors='replace')[:1500]}")
    return out


failures = 0
for tree in trees:
    src = os.path.join(corpus, tree)
    if not os.path.isdir(src):
        print(f"{tree}: missing (run ../shared/corpus/fetch.sh)")
        continue
    rng = random.Random(tree)
    with tempfile.TemporaryDirectory() as tmp:
        repo = os.path.join(tmp, os.path.basename(tree))
        copy_tree(src, repo, backdate=False)
        env = dict(private_env(tmp), CODEGRAPH_VERIFY_INCREMENTAL="1")
        g = json.loads(cg(env, repo, "graph", "--json").stdout)
        files = sorted(n["id"] for n in g["nodes"] if n["kind"] == "file"
                       and os.path.splitext(n["id"])[1] in ADD)
        defs = [n["name"] for n in g["nodes"] if n["kind"] in ("function", "method", "class")
                and len(n["name"]) > 3]
        watcher = None
        if WATCH:
            watcher = subprocess.Popen([binary, "-C", repo, "index", "--watch", "--json"],
                                       env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                       text=True)
            json.loads(watcher.stdout.readline())  # the start line
            time.sleep(1.5)  # tables made while idle
        for n in range(edits):
            kind = rng.choice(["append", "delete", "copy", "rename"])
            f = rng.choice(files)
            path = os.path.join(repo, f)
            if not os.path.exists(path):
                continue
            if kind == "append":
                with open(path, "a") as h:
                    h.write(ADD[os.path.splitext(f)[1]].format(n=n))
            elif kind == "delete":
                os.remove(path)
            elif kind == "copy":
                d = os.path.join(os.path.dirname(path), f"cgcopy{n}" + os.path.splitext(f)[1])
                shutil.copyfile(path, d)
            else:
                word = rng.choice(defs)
                with open(path, encoding="utf-8", errors="replace") as h:
                    text = h.read()
                if word not in text:
                    # Rename in a file that uses it, if any of a few candidates do.
                    for cand in rng.sample(files, min(20, len(files))):
                        p2 = os.path.join(repo, cand)
                        if os.path.exists(p2):
                            t2 = open(p2, encoding="utf-8", errors="replace").read()
                            if re.search(rf"\b{re.escape(word)}\b", t2):
                                path, text, f = p2, t2, cand
                                break
                with open(path, "w", encoding="utf-8") as h:
                    h.write(re.sub(rf"\b{re.escape(word)}\b", word + "Renamed", text))
                kind = f"rename {word}"
            t = time.monotonic()
            if watcher:
                # An update line, or none when the edit changed no facts (a rename of a
                # word the file did not hold); then the save after a quiet second.
                ready, _, _ = select.select([watcher.stdout], [], [], 5)
                if ready:
                    line = watcher.stdout.readline()
                    ms = (time.monotonic() - t) * 1000
                    ok = bool(line) and "update" in json.loads(line)
                else:
                    ms, ok = 0, True
                time.sleep(2.5)
                ok = ok and watcher.poll() is None
                r = subprocess.CompletedProcess([], 0, b"", b"")
                if not ok:
                    watcher.kill()
                    r = subprocess.CompletedProcess([], 1, b"", watcher.stderr.read().encode())
            else:
                r = cg(env, repo, "index", "--json", check=False)
                ms = (time.monotonic() - t) * 1000
                ok = r.returncode == 0
            warm = cg(env, repo, "graph", "--json").stdout
            fresh = cg(env, repo, "--no-cache", "graph", "--json").stdout
            same = warm == fresh
            status = "ok" if ok and same else "FAIL"
            if status == "FAIL":
                failures += 1
                sys.stderr.write(r.stderr.decode(errors="replace")[-2000:])
            print(f"{tree:7} edit {n:2} {kind:28} {f[-60:]:60} {ms:7.0f} ms {status}", flush=True)
            if watcher and not ok:
                break  # the watcher is gone
        if watcher:
            watcher.kill()
            watcher.wait()
print("failures:", failures)
sys.exit(1 if failures else 0)
