#!/usr/bin/env python3
"""Training pairs for the built-in embedder: (first docstring sentence, code words) of every
documented Python function and class under SRC_DIR.

usage: pairs.py SRC_DIR BANNED_QUERIES OUT.jsonl

Vendored copies (`_vendor`, `vendored`, `_click`, ...) are skipped, and so is any pair whose
sentence is one of BANNED_QUERIES (the searchbench queries), so that no benchmark answer is
learned. Words are code-tokenizer parts: camelCase and snake_case pieces, lowercased,
letters only, at least 2 long, minus stop words (as in src/index/search/embed/offline.rs).
"""
import ast, os, re, sys, json, collections, math
camel = re.compile(r'[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+')
word = re.compile(r'[A-Za-z][A-Za-z0-9]*')
STOP=set("a an and are as at be by for from has have if in into is it its of on or that the this to was were will with self none null nil true false let var const def fn func pub return returns given which cls".split())
def parts(text):
    out=[]
    for w in word.findall(text):
        for p in camel.findall(w):
            p=p.lower()
            if len(p)>=2 and p not in STOP: out.append(p)
    return out
def first_sentence(doc):
    para = doc.strip().split("\n\n")[0]
    para = " ".join(l.strip() for l in para.splitlines())
    m = re.match(r"(.+?[.!?])(\s|$)", para)
    return (m.group(1) if m else para).strip()
banned=set(l.strip() for l in open(sys.argv[2])) if len(sys.argv)>2 else set()
out=open(sys.argv[3],'w')
n=0; skipped=0
VENDORED = ('_vendor', 'vendored', 'vendor', '_click', 'extern', 'third_party', '_vendored')
for dp,dns,fns in os.walk(sys.argv[1]):
    dns[:] = sorted(d for d in dns if d not in VENDORED)
    for f in sorted(fns):
        if not f.endswith('.py'): continue
        p=os.path.join(dp,f)
        try:
            src=open(p,encoding='utf-8').read(); tree=ast.parse(src)
        except Exception: continue
        lines=src.splitlines()
        for node in ast.walk(tree):
            if not isinstance(node,(ast.FunctionDef,ast.AsyncFunctionDef,ast.ClassDef)): continue
            doc=ast.get_docstring(node)
            if not doc: continue
            q=first_sentence(doc)
            if not (4<=len(q.split())<=40): continue
            if q in banned: skipped+=1; continue
            body=node.body[1:]
            code=node.name+' '+' '.join(lines[b.lineno-1:b.end_lineno] and '\n'.join(lines[b.lineno-1:b.end_lineno]) for b in body)
            if isinstance(node,(ast.FunctionDef,ast.AsyncFunctionDef)):
                code+=' '+' '.join(a.arg for a in node.args.args)
            out.write(json.dumps({"d":parts(q),"n":parts(node.name),"c":sorted(set(parts(code)))})+"\n"); n+=1
print(n,'pairs; skipped (in bench)',skipped,file=sys.stderr)
