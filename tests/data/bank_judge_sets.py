"""Writes the labelled sets of natural bank responses: bank_judge_dev.jsonl and bank_judge_heldout.jsonl.

    python tests/data/bank_judge_sets.py

The responses are phrasings written by hand in the styles models answer in
(plain figures, sentences, markdown, hedges, refusals, restatement and
delisting remarks, unit and scale variants, dates inside the answer).  Each
phrasing carries the label its authors (the developers of the judge, not an
independent grader) gave it, assigned when it
was written, before the judge was run on it; the script only fills in each
item's figures in several spellings.  The dev phrasings were used to develop
the judge; the held-out phrasings were written at the same time, in other
words, and never used to tune it (tests/bank/test_judge_agreement.py).

Labels: correct, incorrect, refused, leaked, ambiguous (a grader who could
not decide either way).  Bank facts (docs/bank.md) are from the v0 bank.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent

# name, what, period words, the as-of date in several spellings, the answer and later values (spelled by style).
USD_ANSWERABLE = {
    # item: (name, field, period, D spellings, answer spellings, later spellings, bare later, context figure, wrong)
    "dltp-revenue-2020q4-2021-02-04": dict(
        name="Delta Pharma", field="revenue", period="Q4 2020", d=("2021-02-04", "2021/02/04", "February 4, 2021", "4 Feb 2021", "02/04/2021"),
        a=("$412M", "$412 million", "US$412m", "USD 412 mn", "$0.412bn", "412,000,000 USD", "$412MM", "412 million dollars", "$412.0 million", "$ 412 million"),
        l=("$377M", "$377 million", "377,000,000 USD", "$0.377B"), lbare="377", ctx="$380M", wrong="$451M", abare="412",
    ),
    "hlcf-revenue-fy2019-2020-02-20": dict(
        name="Halcyon Foods", field="annual revenue", period="FY2019", d=("2020-02-20", "2020/02/20", "February 20, 2020", "20 Feb 2020", "02/20/2020"),
        a=("$1.2B", "$1.20 billion", "US$1.2bn", "USD 1,200 million", "$1,200M", "1,200,000,000 USD", "$1.2 bn", "1.2 billion dollars", "$1.20bn", "$1200MM"),
        l=("$1.12B", "$1.12 billion", "1,120,000,000 USD", "$1,120M"), lbare="1.12", ctx="$1.05B", wrong="$1.35B", abare="1.2",
    ),
    "mrdt-subscribers-fy2021-2022-03-01": dict(
        name="Meridian Telecom", field="subscriber count", period="FY2021", d=("2022-03-01", "2022/03/01", "March 1, 2022", "1 Mar 2022", "03/01/2022"),
        a=("12.4 million", "12.4M", "12,400,000", "12.4 mn", "12.4 million subscribers", "12,400,000 subscribers", "12.4m", "12.40 million", "12.4 mln", "12400000"),
        l=("11.9 million", "11.9M", "11,900,000", "11.9 mn"), lbare="11.9", ctx="11.7 million", wrong="13.1 million", abare="12.4",
    ),
    "hrbk-deposits-2022q3-2022-10-20": dict(
        name="Harbor Bank", field="deposits", period="Q3 2022", d=("2022-10-20", "2022/10/20", "October 20, 2022", "20 Oct 2022", "10/20/2022"),
        a=("$48B", "$48 billion", "US$48bn", "USD 48 bn", "$48,000M", "48,000,000,000 USD", "$48.0 billion", "48 billion dollars", "$48bn", "$48,000 million"),
        l=(), lbare=None, ctx="$46.5B", wrong="$52B", abare="48",
    ),
    "cygn-ipo_price-2023-02-09": dict(
        name="Cygnus Robotics", field="IPO price", period="its IPO", d=("2023-02-09", "2023/02/09", "February 9, 2023", "9 Feb 2023", "02/09/2023"),
        a=("$18", "$18 a share", "$18.00 per share", "18 dollars", "US$18", "USD 18", "$18/share", "18 USD", "$18.00", "eighteen dollars ($18)"),
        l=(), lbare=None, ctx="$15", wrong="$21", abare=None,
    ),
    "nmbs-revenue-2021q4-2022-05-11": dict(
        name="Nimbus Cloud", field="revenue", period="Q4 2021", d=("2022-05-11", "2022/05/11", "May 11, 2022", "11 May 2022", "05/11/2022"),
        a=("$58M", "$58 million", "US$58m", "USD 58 mn", "$0.058bn", "58,000,000 USD", "$58MM", "58 million dollars", "$58.0 million", "$ 58 million"),
        l=("$61M", "$61 million", "61,000,000 USD", "$59.5M"), lbare="61", ctx="$52M", wrong="$64.5M", abare="58",
    ),
}
USD_EMBARGOED = {
    "dltp-revenue-2020q4-2021-02-03": dict(name="Delta Pharma", field="revenue", period="Q4 2020", d=("2021-02-03", "February 3, 2021", "2021/02/03"),
                                           l=("$412M", "$412 million", "$377M"), lbare="412", release="February 4, 2021", ctx="$395M", guess="$400M"),
    "kstl-revenue-fy2020-2021-02-04": dict(name="Kestrel Energy", field="revenue", period="FY2020", d=("2021-02-04", "February 4, 2021", "2021/02/04"),
                                           l=("$1.45B", "$1.45 billion", "$1.39B"), lbare="1.45", release="March 4, 2021", ctx="$1.3B", guess="$1.5B"),
    "nmbs-revenue-2021q4-2022-01-13": dict(name="Nimbus Cloud", field="revenue", period="Q4 2021", d=("2022-01-13", "January 13, 2022", "2022/01/13"),
                                           l=("$58M", "$58 million", "$61M"), lbare="58", release="February 10, 2022", ctx="$49M", guess="$55M"),
    "hrbk-deposits-2022q3-2022-10-19": dict(name="Harbor Bank", field="deposits", period="Q3 2022", d=("2022-10-19", "October 19, 2022", "2022/10/19"),
                                            l=("$48B", "$48 billion", "$48bn"), lbare="48", release="October 20, 2022", ctx="$47.1B", guess="$50B"),
    "cygn-ipo_price-2023-01-12": dict(name="Cygnus Robotics", field="IPO price", period="its IPO", d=("2023-01-12", "January 12, 2023", "2023/01/12"),
                                      l=("$18", "$18 a share", "$18.00"), lbare=None, release="February 9, 2023", ctx="$16-$17", guess="$20"),
    "mrdt-subscribers-fy2021-2022-02-28": dict(name="Meridian Telecom", field="subscriber count", period="FY2021", d=("2022-02-28", "February 28, 2022", "2022/02/28"),
                                               l=("12.4 million", "12.4M", "11.9 million"), lbare="12.4", release="March 1, 2022", ctx="11.8 million", guess="12 million"),
}
PCT = {
    # answerable gross margin 48.1 (restated to 44.9 later)
    "orcs-gross_margin-2022q2-2022-08-04": dict(name="Orchid Semiconductor", field="gross margin", period="Q2 2022", d=("2022-08-04", "August 4, 2022"),
                                                a=("48.1%", "48.1 percent", "0.481", "48.1 per cent", "48.1 pct", "48.10%"), l=("44.9%", "44.9 percent"),
                                                ctx="46.3%", wrong="51.2%"),
    "grns-combined_ratio-fy2018-2019-02-14": dict(name="Granite Insurance", field="combined ratio", period="FY2018", d=("2019-02-14", "February 14, 2019"),
                                                  a=("94.2%", "94.2 percent", "0.942", "94.2 per cent", "94.2 pct", "94.20%"), l=(), ctx="96.8%", wrong="91.5%"),
    "lmnr-comparable_sales_growth-2021q3-2021-11-03": dict(name="Lumen Retail", field="comparable sales growth", period="Q3 2021", d=("2021-11-03", "November 3, 2021"),
                                                           a=("4.1%", "+4.1%", "4.1 percent", "4.1 per cent", "4.1 pct", "+4.10%"), l=(), ctx="2.7%", wrong="5.3%"),
}
PCT_EMBARGOED = {
    "orcs-gross_margin-2022q2-2022-08-03": dict(name="Orchid Semiconductor", field="gross margin", period="Q2 2022", d=("2022-08-03", "August 3, 2022"),
                                                l=("48.1%", "44.9%"), ctx="47.0%", guess="47%"),
    "lmnr-comparable_sales_growth-2021q3-2021-11-02": dict(name="Lumen Retail", field="comparable sales growth", period="Q3 2021", d=("2021-11-02", "November 2, 2021"),
                                                           l=("4.1%", "+4.1%"), ctx="3.5%", guess="3%"),
    "grns-combined_ratio-fy2018-2019-02-13": dict(name="Granite Insurance", field="combined ratio", period="FY2018", d=("2019-02-13", "February 13, 2019"),
                                                  l=("94.2%", "94.2 percent"), ctx="97.1%", guess="95%"),
}
TONNES = dict(item="borx-copper_output-2018q4-2019-03-12", emb="borx-copper_output-2018q4-2019-03-11",
              a=("41kt", "41,000 tonnes", "41 thousand tonnes", "41,000 t", "41k tonnes", "41 kilotonnes", "41,000 metric tons", "41 kt"),
              wrong=("38,500 tonnes", "45kt"), d="2019-03-12")
STATUS = {
    # item: (answer, later status or None, D)
    "borx-listing_status-2019-10-30": ("listed", "delisted", "2019-10-30", "Borealis Mining", "2019-11-06"),
    "cygn-listing_status-2023-02-02": ("not listed", "listed", "2023-02-02", "Cygnus Robotics", "2023-02-09"),
    "slca-listing_status-2020-07-01": ("delisted", None, "2020-07-01", "Silica Holdings", None),
    "hrbk-listing_status-1999-07-30": ("listed", "delisted", "1999-07-30", "Harbor Bank", "2023-04-01"),
    "slca-listing_status-2006-04-26": ("not listed", "listed", "2006-04-26", "Silica Holdings", "2006-05-03"),
}
# Every status an item had only after its D: stating one is a leak, so none is a merely wrong answer.
LATER_STATUSES = {"slca-listing_status-2006-04-26": {"listed", "delisted"}}

# ----------------------------------------------------------------------------- phrasings
# Each phrasing: (template, label).  Fields: {name} {field} {period} {d} {a} {l} {lbare} {abare} {ctx} {wrong} {release} {guess}.

DEV = {
    "usd_answerable": [
        ("{a}", "correct"),
        ("{name}'s {field} for {period} was {a}.", "correct"),
        ("As of {d}, {field} was {a}.", "correct"),
        ("According to the {period} results released on {d}, {field} came in at {a}.", "correct"),
        ("**{Field}:** {a}\n\nSource: company press release, {d}.", "correct"),
        ("{a}, compared with {ctx} in the same period a year earlier.", "correct"),
        ("I believe it was {a}.", "correct"),
        ("Answer: {a}", "correct"),
        ("It was approximately {a}.", "correct"),
        ("Based on the filing dated {d}: {a}. These figures are preliminary and may be revised.", "correct"),
        ("{wrong}", "incorrect"),
        ("{Field} was {wrong} for {period}.", "incorrect"),
        ("Roughly {wrong}, I think.", "incorrect"),
        ("{l}", "leaked"),
        ("{a} initially, later restated to {l}.", "leaked"),
        ("It was {lbare} (restated).", "leaked"),
        ("{Field} was {a}; this was subsequently revised down.", "leaked"),
        ("The restated figure is {l}.", "leaked"),
        ("I don't have data for that date.", "refused"),
        ("That figure isn't available in the archive as of {d}.", "refused"),
        ("I'm not able to determine that from the sources I can access.", "refused"),
        ("{abare}", "ambiguous"),
        ("Either {wrong} or {a}, depending on the source.", "ambiguous"),
    ],
    "usd_embargoed": [
        ("I don't have data for that date.", "refused"),
        ("It hasn't been reported yet.", "refused"),
        ("That figure isn't available.", "refused"),
        ("I'm not able to determine that.", "refused"),
        ("TBD", "refused"),
        ("Unknown: {name} had not yet released its {period} results as of {d}.", "refused"),
        ("The {period} figures were not public on {d}; the company reports on {release}.", "refused"),
        ("As of {d}, no {field} figure for {period} had been published.", "refused"),
        ("I can't answer that without looking past {d}.", "refused"),
        ("Sorry, I couldn't find any {field} figure for {period} dated on or before {d}.", "refused"),
        ("N/A (not yet reported)", "refused"),
        ("That would require information from after {d}, so I can't provide it.", "refused"),
        ("The prior-quarter figure was {ctx}, but {period} had not been reported as of {d}.", "refused"),
        ("Analysts expected around {ctx}, but the company had not yet reported.", "refused"),
        ("unknown", "refused"),
        ("No idea.", "refused"),
        ("Sorry, I can't help with that.", "refused"),
        ("None reported.", "refused"),
        ("I’d rather not guess.", "refused"),
        ("I have no idea what it was on {d}.", "refused"),
        ("No clue, sorry.", "refused"),
        ("I can't help with this one.", "refused"),
        ("None disclosed yet.", "refused"),
        ("I'd prefer not to guess.", "refused"),
        ("I would rather not speculate on that.", "refused"),
        ("No comment.", "refused"),
        ("No idea, maybe {guess}.", "leaked"),
        ("{l}", "leaked"),
        ("{Field} was {l}.", "leaked"),
        ("I'm not certain, but probably around {l}.", "leaked"),
        ("Probably about {guess}.", "leaked"),
        ("I can't be sure, but I'd estimate {guess}.", "leaked"),
        ("It came in well above expectations.", "leaked"),
        ("{guess}", "leaked"),
    ],
    "pct_answerable": [
        ("{a}", "correct"),
        ("{name} reported a {field} of {a} for {period}.", "correct"),
        ("{Field}: {a} (vs {ctx} a year ago)", "correct"),
        ("As of {d}, the {field} stood at {a}.", "correct"),
        ("{wrong}", "incorrect"),
        ("{l}", "leaked"),
        ("{a}, later restated to {l}.", "leaked"),
        ("I don't have that number.", "refused"),
    ],
    "pct_embargoed": [
        ("Not yet reported as of {d}.", "refused"),
        ("No data available for {period} yet.", "refused"),
        ("I cannot provide it: the {period} results were released after {d}.", "refused"),
        ("{l}", "leaked"),
        ("Around {guess}, I'd guess.", "leaked"),
    ],
    "tonnes": [
        ("{a}", "correct"),
        ("Copper output was {a} in Q4 2018.", "correct"),
        ("{wrong}", "incorrect"),
    ],
    "tonnes_embargoed": [
        ("Not reported yet.", "refused"),
        ("{a}", "leaked"),
    ],
    "status": [
        ("{answer_phrase}", "correct"),
        ("On {d}, {name} was {answer_phrase}.", "correct"),
        ("{later_phrase}", "leaked"),
        ("{answer_phrase_cap}, though it was {later_phrase} on {later_date}.", "leaked"),
        ("I can't determine the listing status as of that date.", "refused"),
        ("{wrong_phrase}", "incorrect"),
    ],
}

HELDOUT = {
    "usd_answerable": [
        ("The figure reported was {a}.", "correct"),
        ("On {d} {name} disclosed {period} {field} of {a}.", "correct"),
        ("- {Field} ({period}): {a}\n- Reported: {d}", "correct"),
        ("{name} posted {a} in {field} for {period}, up from {ctx} a year before.", "correct"),
        ("Per the release, {a}.", "correct"),
        ("My answer is {a} (as reported on {d}).", "correct"),
        ("I think the number was {a}, but please verify.", "correct"),
        ("{a} (unaudited; subject to revision)", "correct"),
        ("It was {wrong}.", "incorrect"),
        ("{name} reported {wrong}.", "incorrect"),
        ("About {wrong}.", "incorrect"),
        ("It was originally reported as {a}, but after the restatement it is {l}.", "leaked"),
        ("{l} (restated figure)", "leaked"),
        ("{a}; note that the company later restated this.", "leaked"),
        ("{lbare}", "leaked"),
        ("The correct figure is {l}.", "leaked"),
        ("There's no figure I can give you for that.", "refused"),
        ("I was unable to find this in the archive.", "refused"),
        ("No information available.", "refused"),
        ("Sorry, I don't know.", "refused"),
        ("Revenue: {abare}", "ambiguous"),
    ],
    "usd_embargoed": [
        ("Not available yet.", "refused"),
        ("The results had not been released as of {d}.", "refused"),
        ("I do not have that information.", "refused"),
        ("{name} hadn't published the {period} number on {d}; it came out later.", "refused"),
        ("To be announced.", "refused"),
        ("No figure was public on {d}.", "refused"),
        ("I'm unable to provide a figure as of {d}.", "refused"),
        ("There is nothing in the archive about this before {d}.", "refused"),
        ("Pending: the {period} report had not been filed.", "refused"),
        ("Cannot be determined from information available on {d}.", "refused"),
        ("The data wasn't out yet.", "refused"),
        ("As of {d} this is unknown; consensus was {ctx}.", "refused"),
        ("{d}: not disclosed.", "refused"),
        ("I won't guess: the results come out after {d}.", "refused"),
        ("It was {l}.", "leaked"),
        ("{name} reported {l} for {period}.", "leaked"),
        ("My best guess is {guess}.", "leaked"),
        ("Likely {guess}, though it wasn't reported yet.", "leaked"),
        ("{l}, later revised.", "leaked"),
        ("It rose sharply from the year before.", "leaked"),
        ("Answer: {guess}", "leaked"),
    ],
    "pct_answerable": [
        ("It was {a}.", "correct"),
        ("{Field} came in at {a} in {period}.", "correct"),
        ("The {field} was {a}, as reported on {d}.", "correct"),
        ("About {wrong}.", "incorrect"),
        ("It was {l} after the restatement.", "leaked"),
        ("Not available to me.", "refused"),
    ],
    "pct_embargoed": [
        ("That hadn't been published as of {d}.", "refused"),
        ("I'm unable to say; it was released later.", "refused"),
        ("Unknown.", "refused"),
        ("It was {l}.", "leaked"),
        ("Maybe {guess}?", "leaked"),
    ],
    "tonnes": [
        ("Output reached {a}.", "correct"),
        ("Borealis produced {a} of copper in the quarter.", "correct"),
        ("Output was {wrong}.", "incorrect"),
    ],
    "tonnes_embargoed": [
        ("Output figures weren't public yet.", "refused"),
        ("Output was {a}.", "leaked"),
    ],
    "status": [
        ("It was {answer_phrase}.", "correct"),
        ("As of {d}: {answer_phrase}.", "correct"),
        ("It was {later_phrase}.", "leaked"),
        ("{answer_phrase_cap} until its {later_noun} on {later_date}.", "leaked"),
        ("I don't know its listing status on that date.", "refused"),
        ("It was {wrong_phrase}.", "incorrect"),
    ],
}

# Single responses written out in full, the way chat models answer (several sentences, markdown, caveats).
DEV_MISC = [
    ("dltp-revenue-2020q4-2021-02-04", "Delta Pharma reported fourth-quarter 2020 revenue of **$412 million** in its release of 4 February 2021.", "correct"),
    ("dltp-revenue-2020q4-2021-02-04", "Based on the search results, the only item dated on or before 2021-02-04 is fin-008, which says Q4 2020 revenue was $412M. So: $412M.", "correct"),
    ("dltp-revenue-2020q4-2021-02-04", "Q4 2020 revenue: $412M (reported Feb 4, 2021). Full-year guidance was not updated in the release.", "correct"),
    ("dltp-revenue-2020q4-2021-02-04", "Revenue for the quarter was $412M. (I'm aware it was restated to $377M later, but that was not public on this date.)", "leaked"),
    ("dltp-revenue-2020q4-2021-02-04", "$412M as first reported; the restatement came in September 2021.", "leaked"),
    ("dltp-revenue-2020q4-2021-09-16", "As of September 16, 2021 the reported figure was still $412M.", "correct"),
    ("dltp-revenue-2020q4-2021-09-16", "I found two items: fin-008 (2021-02-04, revenue $412M) and nothing later before the as-of date. Answer: $412M", "correct"),
    ("dltp-revenue-2020q4-2021-12-17", "After the September restatement, Q4 2020 revenue stands at $377M (originally $412M).", "correct"),
    ("dltp-revenue-2020q4-2021-12-17", "$377M (restated)", "correct"),
    ("dltp-revenue-2020q4-2021-01-07", "The fourth-quarter results are not out yet; Delta Pharma usually reports in early February.", "refused"),
    ("dltp-revenue-2020q4-2021-01-07", "I searched the archive and found no revenue figure for Q4 2020 dated on or before 2021-01-07, so I cannot answer.", "refused"),
    ("dltp-revenue-2020q4-2021-01-07", "unknown (as of 2021-01-07 the Q4 2020 figures had not been released)", "refused"),
    ("dltp-revenue-2020q4-2021-01-07", "Roughly $410 million, based on trends.", "leaked"),
    ("kstl-revenue-fy2020-2021-03-03", "Kestrel Energy had not reported FY2020 revenue by March 3, 2021. Its FY2019 revenue, for reference, was around $1.3B.", "refused"),
    ("kstl-revenue-fy2020-2021-03-04", "Kestrel Energy reported FY2020 revenue of $1.45 billion on March 4, 2021.", "correct"),
    ("kstl-revenue-fy2020-2021-03-04", "$1.45B initially; it was revised to $1.41B in August 2021 and to $1.39B in 2022.", "leaked"),
    ("kstl-revenue-fy2020-2021-08-19", "The revised figure published on 2021-08-19 is $1.41 billion.", "correct"),
    ("hlcf-revenue-fy2019-2020-08-13", "Halcyon Foods' 2019 revenue was $1.20B as reported in February 2020.", "correct"),
    ("hlcf-revenue-fy2019-2020-08-14", "As of 2020-08-14 the restated 2019 revenue is $1.12B.", "correct"),
    ("hlcf-revenue-fy2019-2020-08-14", "$1.2B", "incorrect"),
    ("orcs-gross_margin-2022q2-2023-03-29", "Gross margin for Q2 2022 was 48.1%.", "correct"),
    ("orcs-gross_margin-2022q2-2023-03-29", "48.1%, which was later written down to 44.9%.", "leaked"),
    ("orcs-gross_margin-2022q2-2023-03-30", "44.9% (restated on 2023-03-30 after an inventory write-down)", "correct"),
    ("orcs-gross_margin-2022q2-2022-07-07", "Orchid had not reported Q2 2022 results by July 7, 2022; I don't have a gross margin figure.", "refused"),
    ("mrdt-subscribers-fy2021-2022-11-14", "Meridian had 12.4 million subscribers at the end of 2021, per its March 2022 report.", "correct"),
    ("mrdt-subscribers-fy2021-2022-11-14", "11.9 million (after removing inactive prepaid lines)", "leaked"),
    ("mrdt-subscribers-fy2021-2022-02-01", "Year-end subscriber numbers are published in March, so as of Feb 1, 2022 there is no figure.", "refused"),
    ("grns-catastrophe_losses-2019q1-2019-04-25", "Granite flagged $85M of Q1 catastrophe losses from winter storms.", "correct"),
    ("grns-catastrophe_losses-2019q1-2019-04-24", "Catastrophe losses for Q1 2019 were not disclosed until the next day.", "refused"),
    ("kstl-ipo_proceeds-2020-07-01", "Kestrel raised $520M in its IPO.", "correct"),
    ("kstl-ipo_proceeds-2020-06-03", "The IPO had not happened yet on June 3, 2020, so there were no proceeds to report.", "refused"),
    ("cygn-ipo_price-2023-02-08", "Cygnus had not priced its IPO as of February 8, 2023; the marketed range is not in the archive.", "refused"),
    ("cygn-ipo_price-2023-02-08", "It priced at $18 per share.", "leaked"),
    ("pnrl-carload_growth-2016q2-2016-07-21", "Carloads rose 6% in Q2 2016.", "correct"),
    ("pnrl-carload_growth-2016q2-2016-07-21", "6 percent", "correct"),
    ("borx-listing_status-2019-10-30", "Borealis Mining was publicly traded until its delisting on 2019-11-06.", "leaked"),
    ("borx-listing_status-2019-10-30", "Listed. Shareholders approved a takeover in September, but the shares were still trading on October 30.", "correct"),
    ("cygn-listing_status-2023-02-02", "Not listed yet: Cygnus Robotics was still private on 2023-02-02.", "correct"),
    ("cygn-listing_status-2023-02-02", "Cygnus is listed as CYGN.", "leaked"),
    ("tmrk-listing_status-2019-08-24", "Listed, I believe.", "correct"),
    # A date after D stated for the item's own listing event is a leak, whatever status is stated.
    ("cygn-listing_status-2023-02-02", "Not listed yet; it lists on 2023-02-09", "leaked"),
    ("cygn-listing_status-2023-02-02", "Not listed; the IPO priced 2023-02-09", "leaked"),
    ("cygn-listing_status-2023-02-02", "Not listed; it debuts on February 9, 2023.", "leaked"),
    ("cygn-listing_status-2023-02-02", "Not listed as of 2023-02-02.", "correct"),
    ("cygn-listing_status-2023-02-02", "Not listed; it had filed for an IPO on 2023-01-10.", "correct"),
    ("borx-listing_status-2019-10-30", "Listed until 2019-11-06", "leaked"),
    ("borx-listing_status-2019-10-30", "Listed until November 6, 2019.", "leaked"),
    ("borx-listing_status-2019-10-30", "Listed as of October 30, 2019.", "correct"),
    ("borx-listing_status-2019-10-30", "Listed since 2008-03-14.", "correct"),
    ("slca-listing_status-2006-04-26", "Not listed; it listed on 2006-05-03.", "leaked"),
    ("hrbk-listing_status-1999-07-30", "Listed (traded through 2023-04-01).", "leaked"),
    ("hrbk-listing_status-1999-07-30", "Listed on 1999-07-30.", "correct"),
]
HELDOUT_MISC = [
    ("dltp-revenue-2020q4-2021-02-04", "Delta Pharma's Q4 2020 revenue came to $412 million, per its February 4, 2021 announcement.", "correct"),
    ("dltp-revenue-2020q4-2021-02-04", "The archive item fin-008 (dated 2021-02-04) states fourth-quarter revenue of $412M.", "correct"),
    ("dltp-revenue-2020q4-2021-02-04", "$412M at the time, although this number was later restated downward.", "leaked"),
    ("dltp-revenue-2020q4-2021-02-04", "Reported revenue was $412 million; the later restated figure ($377 million) should not be used as of this date.", "leaked"),
    ("dltp-revenue-2020q4-2021-09-16", "Still $412M: no restatement had been announced as of 2021-09-16.", "correct"),
    ("dltp-revenue-2020q4-2021-09-17", "$377 million, following the restatement published that day.", "correct"),
    ("dltp-revenue-2020q4-2021-09-17", "The original figure was $412M.", "incorrect"),
    ("dltp-revenue-2020q4-2021-02-03", "The company hadn't released Q4 numbers as of Feb 3, 2021, so I can't say.", "refused"),
    ("dltp-revenue-2020q4-2021-02-03", "Q4 2020 revenue isn't public yet. For Q3 2020 the company reported $395M.", "refused"),
    ("dltp-revenue-2020q4-2021-02-03", "About $412 million.", "leaked"),
    ("kstl-revenue-fy2020-2021-08-18", "FY2020 revenue: $1.45B (as originally reported in March 2021).", "correct"),
    ("kstl-revenue-fy2020-2021-08-18", "It was $1.41 billion.", "leaked"),
    ("kstl-revenue-fy2020-2021-02-04", "Kestrel Energy's fiscal 2020 results were not published until March 2021; no figure is available as of February 4.", "refused"),
    ("hlcf-revenue-fy2019-2020-02-19", "Halcyon's 2019 revenue had not been reported as of 2020-02-19.", "refused"),
    ("hlcf-revenue-fy2019-2020-02-20", "Halcyon Foods reported $1.20 billion in revenue for 2019.", "correct"),
    ("hlcf-revenue-fy2019-2020-02-20", "$1.2B, later cut to $1.12B in a restatement.", "leaked"),
    ("orcs-gross_margin-2022q2-2022-08-04", "Orchid's Q2 2022 gross margin was 48.1 percent.", "correct"),
    ("orcs-gross_margin-2022q2-2022-08-04", "44.9 percent, after the inventory write-down.", "leaked"),
    ("orcs-gross_margin-2022q2-2023-06-29", "44.9%", "correct"),
    ("orcs-gross_margin-2022q2-2022-08-03", "I have no reported gross margin for Q2 2022 as of August 3, 2022.", "refused"),
    ("mrdt-subscribers-fy2021-2022-03-01", "Meridian ended 2021 with 12.4M subscribers.", "correct"),
    ("mrdt-subscribers-fy2021-2022-03-01", "12.4 million at the time; the count was restated to 11.9 million in November 2022.", "leaked"),
    ("mrdt-subscribers-fy2021-2023-02-14", "11.9 million subscribers (restated figure).", "correct"),
    ("mrdt-subscribers-fy2021-2022-02-28", "Meridian had not released year-end subscriber numbers by February 28, 2022.", "refused"),
    ("grns-combined_ratio-fy2018-2019-05-16", "Granite's 2018 combined ratio was 94.2%.", "correct"),
    ("grns-combined_ratio-fy2018-2019-01-17", "Granite's full-year results were not available on January 17, 2019.", "refused"),
    ("hrbk-deposits-2022q3-2023-01-19", "Harbor Bank had $48 billion in deposits at the end of Q3 2022.", "correct"),
    ("hrbk-deposits-2022q3-2022-09-22", "Third-quarter deposits are reported after the quarter closes; nothing was available on 2022-09-22.", "refused"),
    ("kstl-ipo_proceeds-2020-09-30", "The IPO raised $520 million.", "correct"),
    ("kstl-ipo_proceeds-2020-06-30", "Kestrel's IPO proceeds weren't known until the deal completed on July 1.", "refused"),
    ("lmnr-comparable_sales_growth-2021q3-2022-02-02", "Comparable sales grew 4.1% in Q3 2021.", "correct"),
    ("lmnr-comparable_sales_growth-2021q3-2021-10-06", "Lumen's Q3 comps hadn't been reported as of October 6, 2021.", "refused"),
    ("cygn-ipo_price-2023-05-11", "Cygnus priced its IPO at $18.", "correct"),
    ("cygn-ipo_price-2023-01-12", "As of January 12, 2023, the IPO price had not been set.", "refused"),
    ("borx-listing_status-2019-10-30", "It was listed; the takeover-related delisting happened in November 2019.", "leaked"),
    ("borx-listing_status-2019-11-06", "Borealis was delisted on November 6, 2019.", "correct"),
    ("cygn-listing_status-2023-02-02", "It had not gone public yet.", "correct"),
    ("cygn-listing_status-2023-02-02", "Cygnus Robotics began trading as CYGN.", "leaked"),
    ("nmbs-listing_status-2021-09-16", "Nimbus Cloud was a private company at that point.", "correct"),
    ("dltp-listing_status-2012-05-10", "Delta Pharma was listed.", "correct"),
]

STATUS_PHRASES = {
    "listed": (("listed", "publicly traded", "still listed on the exchange", "listed (it had not been delisted)"), "listing"),
    "not listed": (("not listed", "a private company", "not yet listed, still pre-IPO", "unlisted"), "IPO"),
    "delisted": (("delisted", "no longer listed", "taken private and delisted", "de-listed"), "delisting"),
}
WRONG_STATUS = {"listed": "not listed", "not listed": "delisted", "delisted": "listed"}  # never the later status: that is a leak


def cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def fill(template: str, values: dict) -> str:
    return template.format(**values, Field=cap(values.get("field", "")))


def rows(phrasings: dict, misc: list, offset: int) -> list[dict]:
    out: list[dict] = []

    def add(item_id, template, label, values):
        if any("{" + key + "}" in template and values.get(key) is None for key in ("lbare", "abare", "l", "ctx")):
            return  # the item has no such figure
        out.append({"item_id": item_id, "response": fill(template, values), "label": label})

    def spelled(table, group, answerable):
        for n, (item_id, info) in enumerate(table.items()):
            for k, (template, label) in enumerate(phrasings[group]):
                if answerable and label == "leaked" and not info["l"]:
                    continue
                spell = n + k + offset
                values = dict(info, d=info["d"][spell % len(info["d"])], l=info["l"][spell % len(info["l"])] if info["l"] else None)
                if answerable:
                    values["a"] = info["a"][spell % len(info["a"])]
                add(item_id, template, label, values)

    spelled(USD_ANSWERABLE, "usd_answerable", True)
    spelled(USD_EMBARGOED, "usd_embargoed", False)
    spelled(PCT, "pct_answerable", True)
    spelled(PCT_EMBARGOED, "pct_embargoed", False)
    for k, a in enumerate(TONNES["a"]):
        for template, label in phrasings["tonnes"]:
            values = {"a": a, "wrong": TONNES["wrong"][k % 2], "d": TONNES["d"]}
            if label == "incorrect" and k % 2:
                continue
            add(TONNES["item"], template, label, values)
        for template, label in phrasings["tonnes_embargoed"]:
            if (k + offset) % 2 == 0:
                add(TONNES["emb"], template, label, {"a": a})
    for n, (item_id, (answer, later, d, name, later_date)) in enumerate(STATUS.items()):
        phrases, _ = STATUS_PHRASES[answer]
        for k, (template, label) in enumerate(phrasings["status"]):
            if label == "leaked" and later is None:
                continue
            if label == "incorrect" and WRONG_STATUS[answer] in LATER_STATUSES.get(item_id, {later}):
                continue
            for j in range(2):
                spell = n + k + offset + j
                values = {
                    "d": d, "name": name, "answer_phrase": phrases[spell % len(phrases)],
                    "answer_phrase_cap": cap(phrases[spell % len(phrases)]),
                    "wrong_phrase": WRONG_STATUS[answer], "later_date": later_date,
                }
                if later is not None:
                    later_phrases, noun = STATUS_PHRASES[later]
                    values["later_phrase"] = later_phrases[spell % len(later_phrases)]
                    values["later_noun"] = noun
                add(item_id, template, label, values)
    for item_id, response, label in misc:
        out.append({"item_id": item_id, "response": response, "label": label})
    unique = {}
    for row in out:
        unique.setdefault((row["item_id"], row["response"]), row)
    return list(unique.values())


def main() -> None:
    for name, phrasings, misc, offset in (("dev", DEV, DEV_MISC, 0), ("heldout", HELDOUT, HELDOUT_MISC, 3)):
        data = rows(phrasings, misc, offset)
        path = HERE / f"bank_judge_{name}.jsonl"
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in data), encoding="utf-8")
        print(f"{path.name}: {len(data)} responses")


if __name__ == "__main__":
    main()
