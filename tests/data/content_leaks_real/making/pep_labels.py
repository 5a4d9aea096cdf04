import json,re,datetime as dt
peps=json.load(open('peps.json'))
CONTENT={1:"an obsolescence notice pointing to the Ideas Discourse category (which opened in 2022)",3:"a deferral notice written after the Python 2.1 work it describes",
11:"a rejection notice linking python-dev/2012-March",15:"'the final release, which is planned for February 2011'",25:"a deferral notice added in 2017: 'deferred until Python 3.8'",
26:"'end-of-support date (scheduled for 2020)'",27:"Resolution link to python-dev/2017-December",28:"Resolution link to python-dev/2019-May",
29:"'The migration was carried out in April 2022.' (added to a 2019 PEP)",30:"releases 'in October every year' from Python 3.9",41:"'Resolution: 14-Mar-2025'",
42:"'Resolution: 16-Apr-2026'",47:"'a period of at least two years from the release of Python 3.1', 3.2 'to be released 18-24 months after 3.1'",51:"Resolution link to python-dev/2013-November"}
REVISED={0,3,8,11,16,20,27,28,30,33,42,43}
out=[]
for i,p in enumerate(peps):
    created=dt.date.fromisoformat(p["date"]); T=created+dt.timedelta(days=60)
    header=re.sub(r"`([^`<]*?)\s*<[^>]*>`__",r"\1",p["header"])
    num=int(re.search(r"PEP: (\d+)",header)[1])
    mech="updated-article" if i in REVISED or i in (1,3,25,29) else "forward-looking" if i in (15,26,30,47) else "plain"
    out.append(dict(id=f"pep-{num:04d}",kind="repo",repo="python/peps",path=p["path"],url=f"https://peps.python.org/pep-{num:04d}/",
       licence="public domain (each PEP: 'This document has been placed in the public domain')",published=p["date"],shown={"published":p["date"]},
       as_of=T.isoformat(),title=f"PEP {num} – {p['title']}",text=header+"\n\n"+p["excerpt"],content=i in CONTENT,revised=i in REVISED,
       mechanism=mech,note=CONTENT.get(i,"")+("; " if i in CONTENT and i in REVISED else "")+("Post-History lists a posting after T" if i in REVISED else "")))
json.dump(out,open('pep_records.json','w'))
print(len(out), sum(r['content'] for r in out), sum(r['revised'] for r in out))
