import json,re,datetime as dt,sys
pages=json.load(open(sys.argv[1]))
OFF=[0,3,30,180,0,400,14]
TEMP=re.compile(r"\b(19[89]\d|20\d\d)\b|\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?\b|\b(next|upcoming|tomorrow|weeks?|months?|later|soon|will be released|update[ds]?|until|by the end)\b",re.I)
for i,p in enumerate(pages):
    T=dt.date.fromisoformat(p["date"])+dt.timedelta(days=OFF[i%len(OFF)])
    p["as_of"]=T.isoformat()
    sents=re.split(r"(?<=[.!?:])\s+|\n+",p["excerpt"])
    hits=[s.strip()[:160] for s in sents if TEMP.search(s)]
    print(f"#{i} {p['date']} T={T} | {p['title'][:60]}")
    for h in hits[:8]: print("   -",h)
json.dump(pages,open(sys.argv[1],"w"),indent=0)
