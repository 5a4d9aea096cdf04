import json,datetime as dt
pages=json.load(open('rust.json'))
POS={0,16,29,39,42,47,48,49,50,53}
NOTES={0:"'ship the 1.0 beta around the end of the year' (end of 2014, after T)",16:"'accepting submissions until September 8th' (2018-09-08 > T)",
29:"'for the next two weeks (until September 24th)' (after T)",39:"an unconference 'the day after RustConf', a later event, no date written",
42:"'until the 19th of December', 'early 2023'",47:"an **Update** paragraph added after publication: 'delayed until Rust 1.78, due to be released in May 2024'",
48:"'Rust 1.74 (to be released on November 16th, 2023)'",49:"'in the stable compiler in 2024'",50:"'until Monday, January 15th, 2024', 'in 2024'",
53:"'Rust 1.78 (May 2nd, 2024)', 'Rust 1.84 (January 5th, 2025)'"}
out=[]
for i,p in enumerate(pages):
    as_of=p["as_of"]
    if i==47: as_of="2023-09-01"  # before the update was written
    mech="updated-article" if i in (47,10,62,63,66,70) else "forward-looking" if i in POS else "plain"
    out.append(dict(id=f"rust-{i:03d}",kind="repo",repo="rust-lang/blog.rust-lang.org",path=p["path"],url="https://blog.rust-lang.org/"+p["path"].split("/")[-1],
      licence="MIT OR Apache-2.0 (repository licence)",published=p["date"],shown={"published":p["date"]},as_of=as_of,title=p["title"],
      text=p["excerpt"],content=i in POS,revised=(i==47),mechanism=mech,note=NOTES.get(i,"")))
# unreliable metadata: the page shown with a date 400 days early, T between the shown and the true date
for j,i in enumerate((3,8,14,22,27,33,44,48,56,67)):
    p=pages[i]; d=dt.date.fromisoformat(p["date"])
    out.append(dict(id=f"rust-meta-{j:02d}",kind="repo",repo="rust-lang/blog.rust-lang.org",path=p["path"],url="https://blog.rust-lang.org/"+p["path"].split("/")[-1],
      licence="MIT OR Apache-2.0 (repository licence)",published=p["date"],shown={"published":(d-dt.timedelta(days=400)).isoformat()},as_of=(d-dt.timedelta(days=200)).isoformat(),
      title=p["title"],text=p["excerpt"],content=True,revised=False,mechanism="unreliable-metadata",
      note="metadata dates the page 400 days early; the page, published after T, announces a release made after T"))
json.dump(out,open('rust_records.json','w'))
print(len(out))
