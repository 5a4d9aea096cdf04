import json,subprocess,datetime as dt
R="/work/.mirror/python+peps/repo"
recs=json.load(open('pep_records.json'))
for r in recs:
    ts=int(subprocess.run(["git","-C",R,"log","-1","--format=%ct","--",r["path"]],capture_output=True,text=True).stdout.strip())
    lm=dt.datetime.fromtimestamp(ts,dt.timezone.utc)
    num=r["id"].split("-")[1]
    r["text"]=(f"Python Enhancement Proposals\nPython » PEP Index » PEP {int(num)}\nToggle light / dark / auto colour theme\n\n"
               +r["text"]+f"\n\nSource: https://github.com/python/peps/blob/main/{r['path']}\nLast modified: {lm:%Y-%m-%d %H:%M:%S} UTC")
    r["last_modified"]=lm.date().isoformat()
    if lm.date()>dt.date.fromisoformat(r["as_of"]):
        r["revised"]=True
        r["note"]=(r["note"]+"; " if r["note"] else "")+f"footer 'Last modified: {lm:%Y-%m-%d}' (the copy shown was edited after T)"
    if r["mechanism"]=="plain": r["mechanism"]="updated-stamp"
json.dump(recs,open('pep_records2.json','w'))
print(sum(r['revised'] for r in recs),len(recs))
