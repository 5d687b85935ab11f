#!/usr/bin/env python3
"""Hybrid fusion rules scored offline on ../shared/searchbench.

usage: bench/fusion_eval.py [--bin BIN] [--corpus DIR] [--depth N] [--reuse [--hybrid]]
                            PACKAGE...

For each Python package (a folder `<corpus>/python/<package>-<version>`) it makes the
benchmark with make_bench.py, runs every query once through `search --mode text` and once
through `search --mode semantic` (`--limit DEPTH`, default 1000 as the binary's fusion
takes, with each hit's score), and
the binary's own `--mode hybrid --limit 10`. Then it fuses the two lists with each rule
below and prints MRR@10 per package and rule, with the margin over the better of the two
lists alone (the quality goal: hybrid >= max(text, semantic) + 0.02).

Rules (text rank r_t, semantic rank r_s, 1-based; a list that misses a chunk adds 0):
  rrf k=K w=W        W / (K + r_t) + 1 / (K + r_s), reciprocal rank fusion (Cormack et al.
                     2009) with a BM25 weight W
  rrf-agree k=K      rrf k=K, the list whose top hits agree more with the other list's
                     weighted up (see agreement())
  rrf-peak ... r=R    the chosen rrf, then the text list's first hit first when its BM25
                     score is at least R times the second's
  combsum a=A        A * BM25 / best BM25 + (1 - A) * cosine / best cosine, over each
                     list's first 100 hits (CombSUM, Fox and Shaw 1994, on max-normalised
                     scores)
The binary's hybrid also adds a bonus for a definition named exactly like the query,
which benchmark queries (docstring sentences) do not trigger; the `binary` column checks
that the simulated `rrf k=10 w=1` matches it.

Cost: about a minute per package on 2 cores (three batch searches), after the index.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def name_words(target):
    """The words of a target's own name, as a user types them: `Flask.register_blueprint`
    gives `register blueprint`, `SecureCookieSession` gives `secure cookie session`."""
    name = target.rsplit("::", 1)[-1].rsplit(".", 1)[-1]
    name = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return " ".join(w.lower() for w in re.split(r"[_\s]+", name) if w)


def run_lists(bin_, bench, mode, limit, names=False):
    qrels = [json.loads(l) for l in open(os.path.join(bench, "qrels.jsonl"))]
    if names:
        qrels = [dict(r, query=name_words(r["target"])) for r in qrels]
        # A one-word name is the exact-name bonus's case, not the fusion's.
        qrels = [r for r in qrels if " " in r["query"]]
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        for r in qrels:
            f.write(r["query"].replace("\n", " ") + "\n")
        qfile = f.name
    out = subprocess.run(
        [bin_, "-C", os.path.join(bench, "repo"), "search", "--batch", qfile, "--mode", mode,
         "--limit", str(limit), "--json"],
        check=True, capture_output=True, text=True)
    os.unlink(qfile)
    res = [json.loads(l) for l in out.stdout.splitlines() if l.strip()]
    assert len(res) == len(qrels), (len(res), len(qrels))
    # A chunk is its id and first line: a file's line windows share the file's id.
    return qrels, [[(f'{h["id"]}@{h["start_line"]}', h["score"]) for h in r.get("hits", [])]
                   for r in res]


def keys_all(lists):
    return [keys(h) for h in lists]


def mrr(qrels, ranked, k=10):
    rr = 0.0
    for q, keys in zip(qrels, ranked):
        ids = [c.rsplit("@", 1)[0] for c in keys[:k]]
        if q["target"] in ids:
            rr += 1.0 / (ids.index(q["target"]) + 1)
    return rr / len(qrels)


def keys(hits):
    return [c for c, _ in hits]


def is_window(chunk):
    """A line-window chunk: its id is a file's, with no `::` member part."""
    return "::" not in chunk.rsplit("@", 1)[0]


def rrf(text, sem, k, w_text=1.0, w_sem=1.0, window=1.0):
    text, sem = keys(text), keys(sem)
    score = {}
    for r, i in enumerate(text):
        score[i] = score.get(i, 0.0) + w_text / (k + r + 1)
    for r, i in enumerate(sem):
        score[i] = score.get(i, 0.0) + w_sem / (k + r + 1)
    if window != 1.0:
        for i in score:
            if is_window(i):
                score[i] *= window
    # Ties by first appearance (text list first), as stable as the binary's chunk order.
    seen = set(text)
    order = {i: n for n, i in enumerate(text + [x for x in sem if x not in seen])}
    return sorted(score, key=lambda i: (-score[i], order[i]))


def agreement(a, b, top=10):
    """Share of a's top hits that b also ranks in its top 10 * top."""
    if not a:
        return 0.0
    deep = set(b[: top * 10])
    return sum(1 for i in a[:top] if i in deep) / min(top, len(a))


def rrf_agree(text, sem, k):
    at, as_ = agreement(keys(text), keys(sem)), agreement(keys(sem), keys(text))
    return rrf(text, sem, k, 1.0 + at, 1.0 + as_)


def gap(hits, n=10):
    """How far a list's score falls from its first hit to its n-th, relative to the
    first: near 0 for a flat list (no hit stands out), near 1 for a peaked one."""
    if len(hits) < 2 or hits[0][1] <= 0:
        return 0.0
    last = hits[min(n, len(hits)) - 1][1]
    return max(0.0, (hits[0][1] - last) / hits[0][1])


def rrf_gap(text, sem, k, n=10):
    """rrf k=K with each list weighted by its share of the two lists' gap(): the list
    whose top hits stand out more counts more (weights sum to 2)."""
    gt, gs = gap(text, n), gap(sem, n)
    if gt + gs == 0:
        return rrf(text, sem, k)
    return rrf(text, sem, k, 2 * gt / (gt + gs), 2 * gs / (gt + gs))


def rrf_peak(text, sem, k, w, f, ratio):
    """rrf k=K w=W windows x F, then the text list's first hit first when its BM25 score
    is at least `ratio` times the second's: one chunk that holds the query's rare words
    far more than any other (a name typed whole) is what a rank-only sum would bury under
    the vector list's flat top."""
    fused = rrf(text, sem, k, w, 1.0, f)
    if len(text) >= 1 and (len(text) == 1 or text[0][1] >= ratio * text[1][1]):
        top = text[0][0]
        fused = [top] + [c for c in fused if c != top]
    return fused


def normalized(hits, top):
    """Each hit's score over the list's best, for the first `top` hits (max norm)."""
    if not hits:
        return {}
    best = hits[0][1] or 1.0
    return {c: s / best for c, s in hits[:top]}


def min_max(hits, top):
    """Each hit's score mapped to [0, 1] between the list's `top`-th and its best."""
    if not hits:
        return {}
    hits = hits[:top]
    hi, lo = hits[0][1], hits[-1][1]
    span = (hi - lo) or 1.0
    return {c: (s - lo) / span for c, s in hits}


def combsum(text, sem, a, top=100, norm=normalized):
    """a * BM25 / best BM25 + (1 - a) * cosine / best cosine (Fox and Shaw's CombSUM
    over max-normalised scores; `norm=min_max` for min-max normalised ones)."""
    nt, ns = norm(text, top), norm(sem, top)
    score = {c: a * v for c, v in nt.items()}
    for c, v in ns.items():
        score[c] = score.get(c, 0.0) + (1 - a) * v
    order = {c: n for n, c in enumerate(list(nt) + [c for c in ns if c not in nt])}
    return sorted(score, key=lambda c: (-score[c], order[c]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("packages", nargs="+")
    ap.add_argument("--bin", default=os.path.join(HERE, "..", "target", "release", "codegraph-tui"))
    ap.add_argument("--corpus", default=os.path.expanduser("~/.cache/codegraph-corpus"))
    ap.add_argument("--shared", default=os.path.join(HERE, "..", "..", "shared"))
    ap.add_argument("--depth", type=int, default=1000)
    ap.add_argument("--reuse", action="store_true",
                    help="score the lists a previous run saved in the benchmark folder")
    ap.add_argument("--hybrid", action="store_true",
                    help="with --reuse: run the binary's hybrid mode again (a new fusion)")
    ap.add_argument("--name-queries", action="store_true",
                    help="query each target by the words of its own name (`register "
                         "blueprint`), keyword queries as users type them, instead of its "
                         "docstring; one-word names are left out")
    a = ap.parse_args()
    rules = [("rrf k=10 w=1", lambda t, s: rrf(t, s, 10))]
    for k in (5, 10, 20, 30, 60):
        for w in (0.5, 0.75, 1.0):
            if (k, w) != (10, 1.0):
                rules.append((f"rrf k={k} w={w}", lambda t, s, k=k, w=w: rrf(t, s, k, w)))
    for k in (5, 10):
        rules.append((f"rrf-agree k={k}", lambda t, s, k=k: rrf_agree(t, s, k)))
    for k in (5, 10):
        for n in (10, 50):
            rules.append((f"rrf-gap k={k} n={n}", lambda t, s, k=k, n=n: rrf_gap(t, s, k, n)))
    for k in (5, 7):
        for w in (0.6, 0.7, 0.75, 1.0):
            for f in (0.5, 0.0):
                rules.append((f"rrf-win k={k} w={w} f={f}",
                              lambda t, s, k=k, w=w, f=f: rrf(t, s, k, w, 1.0, f)))
    for ratio in (1.5, 2.0, 3.0, 5.0, 10.0):
        rules.append((f"rrf-peak k=5 w=0.7 f=0.5 r={ratio}",
                      lambda t, s, r=ratio: rrf_peak(t, s, 5, 0.7, 0.5, r)))
    for x in (0.2, 0.3, 0.4, 0.5):
        rules.append((f"combsum a={x}", lambda t, s, x=x: combsum(t, s, x)))
    for x in (0.3, 0.4, 0.5):
        rules.append((f"combsum-minmax a={x}",
                      lambda t, s, x=x: combsum(t, s, x, norm=min_max)))
    table = {}
    for p in a.packages:
        src = next((os.path.join(a.corpus, "python", d) for d in sorted(os.listdir(
            os.path.join(a.corpus, "python"))) if d.lower().startswith(p.lower() + "-")), None)
        if src is None:
            sys.exit(f"no {p}-* under {a.corpus}/python")
        bench = f"/tmp/searchbench-{p}"
        if not (a.reuse and os.path.exists(os.path.join(bench, "fusion-lists.json"))
                and os.path.exists(os.path.join(bench, "repo"))):
            subprocess.run([sys.executable, os.path.join(a.shared, "searchbench",
                                                         "make_bench.py"), src, bench],
                           check=True, capture_output=True)
            subprocess.run([a.bin, "-C", os.path.join(bench, "repo"), "index"], check=True,
                           stdout=subprocess.DEVNULL)
        saved = os.path.join(bench, "fusion-names.json" if a.name_queries
                             else "fusion-lists.json")
        if a.reuse and os.path.exists(saved):
            qrels, text, sem, hyb = json.load(open(saved))
            if a.hybrid:
                _, hyb = run_lists(a.bin, bench, "hybrid", 10, a.name_queries)
        else:
            n = a.name_queries
            qrels, text = run_lists(a.bin, bench, "text", a.depth, n)
            _, sem = run_lists(a.bin, bench, "semantic", a.depth, n)
            _, hyb = run_lists(a.bin, bench, "hybrid", 10, n)
            json.dump([qrels, text, sem, hyb], open(saved, "w"))
        row = {"queries": len(qrels), "text": mrr(qrels, keys_all(text)),
               "semantic": mrr(qrels, keys_all(sem)), "binary": mrr(qrels, keys_all(hyb))}
        for name, f in rules:
            row[name] = mrr(qrels, [f(t, s) for t, s in zip(text, sem)])
        table[p] = row
        print(f"# {p}: {json.dumps({k: round(v, 3) for k, v in row.items()})}", file=sys.stderr)
    names = ["text", "semantic", "binary"] + [n for n, _ in rules]
    print("| rule | " + " | ".join(a.packages) + " | worst margin |")
    print("|---|" + "---:|" * (len(a.packages) + 1))
    for n in names:
        cells, margins = [], []
        for p in a.packages:
            r = table[p]
            cells.append(f"{r[n]:.3f}")
            margins.append(r[n] - max(r["text"], r["semantic"]))
        print(f"| {n} | " + " | ".join(cells) + f" | {min(margins):+.3f} |")


if __name__ == "__main__":
    main()
