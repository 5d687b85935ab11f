#!/usr/bin/env python3
"""Packs a word table for src/index/search/embed/wordvec.rs.

usage: pack.py WORDS.txt VECTORS.npy OUT.bin

WORDS.txt has one word per line, in the row order of VECTORS.npy (float32, n x d). Each
row is quantised to i8 with its own scale (max |x| / 127), which keeps the row's
direction and norm within 0.4%. Format: see the module docs of wordvec.rs.
"""
import struct
import sys

import numpy as np

words = [l.rstrip("\n") for l in open(sys.argv[1], encoding="utf-8")]
vec = np.load(sys.argv[2]).astype(np.float64)
assert vec.shape[0] == len(words), "one row per word"
scale = np.abs(vec).max(1) / 127.0
scale[scale == 0] = 1.0
codes = np.round(vec / scale[:, None]).clip(-127, 127).astype(np.int8)
with open(sys.argv[3], "wb") as f:
    f.write(b"CGWV1\0\0\0")
    f.write(struct.pack("<II", len(words), vec.shape[1]))
    f.write(scale.astype("<f4").tobytes())
    f.write(codes.tobytes())
    f.write("".join(w + "\n" for w in words).encode("utf-8"))
print(sys.argv[3], len(words), "words", vec.shape[1], "dims")
