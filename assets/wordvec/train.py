#!/usr/bin/env python3
"""Trains the built-in embedder: a neural bag-of-words dual encoder (the NBoW baseline of
CodeSearchNet, Husain et al. 2019) on pairs.py output.

usage: train.py PAIRS.jsonl OUT_DIR DIMS EPOCHS LEARNING_RATE   (we use 128 2 0.5)

A sentence is the sum of its words' query-side vectors, a definition the sum of its code
words' code-side vectors (name words counted twice); both are L2-normalised and trained
with an in-batch softmax over cosine x 20, in both directions (batch 512, AdaGrad, seed 0).
Words seen in fewer than 3 pairs are left out. Writes OUT_DIR/{query,code}-eN.npy after
each epoch N and the two word lists; 2000 pairs are held out and scored after each epoch.
Needs numpy only.
"""
import json, numpy as np, collections, sys, time
rng=np.random.default_rng(0)
P=[json.loads(l) for l in open(sys.argv[1])]
out=sys.argv[2]
dims=int(sys.argv[3])
epochs=int(sys.argv[4])
qc=collections.Counter(); cc=collections.Counter()
for r in P:
    qc.update(set(r['d'])); cc.update(set(r['c'])|set(r['n']))
qv=[w for w,c in qc.most_common(30000) if c>=3]; cv=[w for w,c in cc.most_common(60000) if c>=3]
qi={w:i for i,w in enumerate(qv)}; ci={w:i for i,w in enumerate(cv)}
print(len(P),len(qv),len(cv),flush=True)
def enc(r):
    q=sorted({qi[w] for w in r['d'] if w in qi})
    n={ci[w] for w in r['n'] if w in ci}
    c=sorted({ci[w] for w in r['c'] if w in ci}|n)
    a=[2.0 if t in n else 1.0 for t in c]
    return q,c,a
D=[enc(r) for r in P]
D=[d for d in D if d[0] and d[1]]
rng.shuffle(D)
nval=2000; val=D[:nval]; tr=D[nval:]
Eq=(rng.standard_normal((len(qv),dims))*0.1).astype(np.float32)
Ec=(rng.standard_normal((len(cv),dims))*0.1).astype(np.float32)
Gq=np.zeros(len(qv),np.float32)+1e-8; Gc=np.zeros(len(cv),np.float32)+1e-8
def pool(E,items,weights=None):
    idx=np.concatenate([np.array(x,dtype=np.int64) for x in items])
    seg=np.repeat(np.arange(len(items)),[len(x) for x in items])
    w=np.ones(len(idx),np.float32) if weights is None else np.concatenate([np.array(x,np.float32) for x in weights])
    raw=np.zeros((len(items),E.shape[1]),np.float32)
    np.add.at(raw,seg,E[idx]*w[:,None])
    n=np.linalg.norm(raw,axis=1,keepdims=True)+1e-6
    return raw/n, n, idx, seg, w
def evaluate(data):
    Q=pool(Eq,[d[0] for d in data])[0]; C=pool(Ec,[d[1] for d in data],[d[2] for d in data])[0]
    S=Q@C.T; diag=np.diag(S); rank=(S>diag[:,None]).sum(1)
    return np.mean(np.where(rank<10,1.0/(rank+1),0.0))
s=20.0; lr=float(sys.argv[5]); B=512
t=time.time()
for ep in range(epochs):
    rng.shuffle(tr)
    for b in range(0,len(tr)-B+1,B):
        batch=tr[b:b+B]
        Q,nq,iq,sq,wq=pool(Eq,[d[0] for d in batch])
        C,nc,ic,sc,wc=pool(Ec,[d[1] for d in batch],[d[2] for d in batch])
        L=s*Q@C.T; L-=L.max(1,keepdims=True); Pm=np.exp(L); Pm/=Pm.sum(1,keepdims=True)
        L2=s*C@Q.T; L2-=L2.max(1,keepdims=True); P2=np.exp(L2); P2/=P2.sum(1,keepdims=True)
        G=(Pm-np.eye(len(batch)))*s/len(batch); G2=(P2-np.eye(len(batch)))*s/len(batch)
        dQ=G@C + G2.T@C; dC=G.T@Q + G2@Q
        dQr=(dQ-Q*(Q*dQ).sum(1,keepdims=True))/nq; dCr=(dC-C*(C*dC).sum(1,keepdims=True))/nc
        gq=dQr[sq]*wq[:,None]; gc=dCr[sc]*wc[:,None]
        gE=np.zeros_like(Eq); np.add.at(gE,iq,gq)
        u=np.unique(iq); Gq[u]+=(gE[u]**2).mean(1); Eq[u]-=lr*gE[u]/np.sqrt(Gq[u])[:,None]
        gE=np.zeros_like(Ec); np.add.at(gE,ic,gc)
        u=np.unique(ic); Gc[u]+=(gE[u]**2).mean(1); Ec[u]-=lr*gE[u]/np.sqrt(Gc[u])[:,None]
    print('epoch',ep,'held-out pairs: mrr@10 among 2000',round(evaluate(val),3),round(time.time()-t),'s',flush=True)
    np.save(f'{out}/query-e{ep+1}.npy',Eq); np.save(f'{out}/code-e{ep+1}.npy',Ec)
open(f'{out}/query-words.txt','w').write(''.join(w+'\n' for w in qv))
open(f'{out}/code-words.txt','w').write(''.join(w+'\n' for w in cv))
