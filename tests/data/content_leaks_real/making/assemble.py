import json,hashlib,datetime as dt,copy
rust=json.load(open('rust_records.json')); peps=json.load(open('pep_records2.json')); news=json.load(open('news_records.json'))
byidx={i:p for i,p in enumerate(peps)}
extra=[]
VAR={0:(False,""),11:(True,"a rejection notice linking python-dev/2012-March"),27:(False,""),28:(False,""),15:(False,"February 2011 is before T"),
     26:(False,"2020 begins before T"),29:(True,"'The migration was carried out in April 2022.'"),47:(False,"the periods the PEP names ended before T"),51:(False,"its resolution (2013-November) is before T")}
for i,(content,note) in VAR.items():
    r=copy.deepcopy(byidx[i]); T=dt.date.fromisoformat(r["published"])+dt.timedelta(days=1100)
    r["id"]+="-later"; r["as_of"]=T.isoformat(); r["content"]=content
    lm=dt.date.fromisoformat(r["last_modified"])
    r["revised"]=lm>T
    r["note"]="; ".join(x for x in (note, f"footer 'Last modified: {lm}'"+(" (after T)" if lm>T else " (before T)")) if x)
    r["mechanism"]="updated-article" if content else "updated-stamp"
    extra.append(r)
rows=rust+peps+extra+news
import re
for r in rows:  # a Rust post's address is its front matter's path
    if r["repo"]=="rust-lang/blog.rust-lang.org":
        stem=re.sub(r"@\d+$","",re.sub(r"(/index)?\.md$","",r["path"][len("content/"):]))
        y,m,d=r["published"].split("-")
        r["url"]=f"https://blog.rust-lang.org/{y}/{m}/{d}/{stem}/"
for r in rows:
    r.pop("last_modified",None)
    r["half"]="heldback" if hashlib.sha256(r["id"].encode()).digest()[0]%2 else "dev"
ids=[r["id"] for r in rows]; assert len(ids)==len(set(ids))
keys=["id","half","kind","url","repo","path","licence","published","shown","as_of","title","text","content","revised","mechanism","note"]
out=[json.dumps({k:r[k] for k in keys},ensure_ascii=False) for r in rows]
open('pages.jsonl','w').write("\n".join(out)+"\n")
import collections
print(len(rows),collections.Counter((r['half'],r['content']) for r in rows),collections.Counter((r['half'],r['revised']) for r in rows))
print(collections.Counter(r['mechanism'] for r in rows))
