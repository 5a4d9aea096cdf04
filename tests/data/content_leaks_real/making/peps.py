import subprocess,re,json,datetime as dt
R="/work/.mirror/python+peps/repo"
def git(*a): return subprocess.run(["git","-C",R,*a],capture_output=True,text=True).stdout
files=sorted(f for f in git("ls-tree","-r","--name-only","HEAD","peps").split("\n") if re.match(r"peps/pep-\d{4}\.rst$",f))
MON={m:i+1 for i,m in enumerate("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split())}
out=[]
for f in files[::14]:
    src=git("show","HEAD:"+f)
    head,_,body=src.partition("\n\n")
    fields=dict(re.findall(r"^([A-Za-z-]+):\s*(.*(?:\n\s+.*)*)",head,re.M))
    c=re.match(r"(\d{1,2})-(\w{3})-(\d{4})",fields.get("Created","").strip())
    if not c: continue
    created=dt.date(int(c[3]),MON[c[2]],int(c[1]))
    shown=[f"{k}: {' '.join(fields[k].split())}" for k in ("PEP","Title","Author","Status","Type","Created","Python-Version","Post-History","Replaces","Superseded-By","Resolution") if k in fields]
    b=re.sub(r"`([^`<]*?)\s*<[^>]*>`_","\\1",body)
    b=re.sub(r":\w+:`([^`]*)`","\\1",b); b=re.sub(r"``([^`]*)``","\\1",b)
    b=re.sub(r"\.\. [^\n]*\n","",b)
    words=" ".join(b.split())
    out.append(dict(path=f,date=created.isoformat(),title=fields.get("Title","").strip(),header="\n".join(shown),excerpt=words[:700]))
json.dump(out,open("/tmp/cl/peps.json","w"))
print(len(out))
for i,p in enumerate(out): print(f"#{i} {p['date']} | {p['header']}\n   {p['excerpt'][:500]}")
