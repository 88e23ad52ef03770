import json,sys,math
def load(f):
    d=json.load(open(f)); r={}
    for m in d['matrices']:
        for x in m['results']:
            if x['status']=='ok': r[m['name']]=(x['ms']['median'],m['set'],x.get('note',''))
    return r
base=load(sys.argv[1])
others=[(f,load(f)) for f in sys.argv[2:]]
print(f"{'case':28s} {'set':8s} {'base ms':>9s} "+' '.join(f"{f.split('/')[-1][:-5]:>8s}" for f,_ in others))
gm={f:{} for f,_ in others}
for k,(t,s,note) in base.items():
    row=f"{k:28s} {s:8s} {t:9.4f} "
    for f,o in others:
        if k in o:
            r=t/o[k][0]; row+=f"{r:8.3f} "; gm[f].setdefault(s,[]).append(math.log(r))
        else: row+="     -   "
    cl=note.replace('classes ','')
    print(row, cl)
for f,_ in others:
    print(f.split('/')[-1], {s:round(math.exp(sum(v)/len(v)),3) for s,v in gm[f].items()})
