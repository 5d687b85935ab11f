#!/usr/bin/env python3
"""Turns a real cache folder (what `codegraph-tui index` and `search --mode hybrid` wrote)
into seeds of the cache targets, in the input layout each target documents
(src/fuzzing/): the snapshot parts without their header behind the part's selector byte,
the vector cache after its embedder id, the embedder fit after its 32-byte digest, and
the text index's meta.json and .managed.json.

Usage: fuzz/cache_seeds.py CACHE_FOLDER OUT   (writes OUT/<target>/binary-*)
"""
import os
import struct
import sys

PARTS = ["manifest", "facts", "nodes", "edges", "unresolved", "names"]


def put(out, target, name, data):
    os.makedirs(os.path.join(out, target), exist_ok=True)
    with open(os.path.join(out, target, name), "wb") as f:
        f.write(data)


def main():
    cache, out = sys.argv[1], sys.argv[2]
    snap = open(os.path.join(cache, "CURRENT")).read().strip()
    for i, part in enumerate(PARTS):
        b = open(os.path.join(cache, snap, part + ".bin"), "rb").read()
        (fp,) = struct.unpack_from("<H", b, 8)
        head = 10 + fp + 8 + 32
        put(out, "snapshot", "binary-" + part, bytes([i]) + b[head:])
    vectors = os.path.join(cache, "vectors")
    for name in sorted(os.listdir(vectors)) if os.path.isdir(vectors) else []:
        b = open(os.path.join(vectors, name), "rb").read()
        if name == "offline-fit.bin":
            put(out, "search_files", "binary-fit", b"\x01" + b[32:])
        elif b[:8] == b"CGTVEC04":
            (id_len,) = struct.unpack_from("<I", b, 8)
            put(out, "search_files", "binary-vectors", b"\x00" + b[12 + id_len:])
    for i, name in enumerate(["meta.json", ".managed.json"]):
        p = os.path.join(cache, "text", "index", name)
        if os.path.exists(p):
            put(out, "text_index", "binary-" + name.strip("."), bytes([i]) + open(p, "rb").read())


if __name__ == "__main__":
    main()
