#!/usr/bin/env python3
# bench/ab_index.py TREE ROUNDS BIN [BIN...]: A/B of cold `index` CPU and wall time.
"""A/B of cold `index` CPU and wall time between binaries, interleaved to share the machine's noise.

Usage: bench/ab_index.py TREE ROUNDS BIN [BIN...]

Each round runs `BIN -C <corpus>/TREE --no-cache index --json` for every BIN, then the bare
parse (`--parse-only`) of the last BIN, each timed by its wall clock and `wait4`'s CPU times.
Prints, per binary, the median wall and CPU (user+sys) seconds over the rounds and their
ratios to the bare parse's medians.
The corpus is `../shared/corpus/fetch.sh`'s (`CG_CORPUS`, default ~/.cache/codegraph-corpus);
threads: CODEGRAPH_THREADS (default 2).
"""
import os
import statistics
import subprocess
import sys
import time


def main() -> None:
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    tree, rounds, bins = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    corpus = os.environ.get("CG_CORPUS", os.path.expanduser("~/.cache/codegraph-corpus"))
    tree_dir = os.path.join(corpus, tree)
    env = dict(os.environ, CODEGRAPH_THREADS=os.environ.get("CODEGRAPH_THREADS", "2"))

    def run(cmd: list[str]) -> tuple[float, float]:
        # Timed by `perf_counter` and `wait4` (`/usr/bin/time` rounds wall time to 10 ms).
        t = time.perf_counter()
        p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t
        p.returncode = os.waitstatus_to_exitcode(status)
        if p.returncode != 0:
            sys.exit(f"{cmd} exited with {p.returncode}")
        return wall, ru.ru_utime + ru.ru_stime

    runs: dict[str, list[tuple[float, float]]] = {b: [] for b in bins}
    parse: list[tuple[float, float]] = []
    for _ in range(rounds):
        for b in bins:
            runs[b].append(run([b, "-C", tree_dir, "--no-cache", "index", "--json"]))
        parse.append(run([bins[-1], "-C", tree_dir, "--no-cache", "index", "--parse-only"]))
    pw = statistics.median(w for w, _ in parse)
    pc = statistics.median(c for _, c in parse)
    print(f"{tree}: bare parse median wall {pw:.3f} s, CPU {pc:.3f} s "
          f"(all CPU {[round(c, 3) for _, c in parse]})")
    for b in bins:
        w = statistics.median(x for x, _ in runs[b])
        c = statistics.median(x for _, x in runs[b])
        print(f"  {b}: median wall {w:.3f} s, CPU {c:.3f} s; wall/parse {w / pw:.3f}, "
              f"CPU/parse {c / pc:.3f} (all CPU {[round(x, 3) for _, x in runs[b]]})")


if __name__ == "__main__":
    main()
