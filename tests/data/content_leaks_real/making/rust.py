import subprocess, re, json, datetime as dt
R="/work/.mirror/rust-lang+blog.rust-lang.org/repo"
def git(*a): return subprocess.run(["git","-C",R,*a],capture_output=True,text=True).stdout
files=[f for f in git("ls-tree","-r","--name-only","HEAD","content").split("\n") if f.endswith(".md") and not f.startswith("content/inside-rust") and f.count("/")<=2]
posts=[]
for f in files:
    src=git("show","HEAD:"+f)
    m=re.search(r'^path = "(\d{4})/(\d{2})/(\d{2})/',src,re.M)
    t=re.search(r'^title = "(.*)"',src,re.M)
    if not m or not t: continue
    body=src.split("+++",2)[2]
    body=re.sub(r"```.*?```","",body,flags=re.S)
    body=re.sub(r"!\[[^\]]*\]\([^)]*\)","",body)
    body=re.sub(r"\[([^\]]*)\]\([^)]*\)",r"\1",body)
    body=re.sub(r"\[([^\]]*)\]\[[^\]]*\]",r"\1",body)
    body=re.sub(r"^\[[^\]]+\]:.*$","",body,flags=re.M)
    body=re.sub(r"<[^>]+>","",body)
    body=re.sub(r"\n{3,}","\n\n",body).strip()
    posts.append((dt.date(int(m[1]),int(m[2]),int(m[3])),f,t[1],body))
posts.sort()
chosen=posts[::5]
out=[]
for i,(d,f,title,body) in enumerate(chosen):
    paras=body.split("\n\n")
    head=""
    for p in paras:
        if len(head)>700: break
        head+=p+"\n\n"
    extra=[p for p in paras[len(head.split("\n\n"))-1:] if re.match(r"\s*(\*\*|_)?(update|edit)",p,re.I)]
    excerpt=(head+"\n\n".join(extra)).strip()
    out.append(dict(path=f,date=d.isoformat(),title=title,excerpt=excerpt))
json.dump(out,open("/tmp/cl/rust.json","w"),indent=0)
print(len(posts),len(out))
