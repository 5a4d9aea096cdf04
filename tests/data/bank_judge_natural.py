"""Writes tests/data/bank_judge_natural.jsonl: natural bank answers, each labelled as a careful grader would.

    python tests/data/bank_judge_natural.py

Unlike bank_judge_sets.py (phrasing templates filled with each item's figures), every row here is
one answer written out in full, in the way people and models actually answer: spelled-out figures,
plural scales, a figure without its unit, a listing status stated through an end date, tables,
hedges, refusals with context.  Each label follows the definitions of docs/run-rules.md
("Judgement"), decided from the item's facts (docs/bank.md) when the row was written, before the
judge was run on it.

The split is fixed by the text, not chosen: a row is in the held-back half when the first byte of
SHA-256("<item_id>\\n<response>") is odd.  The rows and their halves were committed before any rule
was changed for issue 23; the rules were then tuned on the dev half only and frozen before the
held-back half was scored (docs/bank.md, "How the judge is measured").
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent

# Short names of bank items (facts: answer, later values with their publication day).
D4 = "dltp-revenue-2020q4-2021-02-04"  # $412M; restated to $377M on 2021-09-17
D3 = "dltp-revenue-2020q4-2021-02-03"  # embargoed: $412M published 2021-02-04
D17 = "dltp-revenue-2020q4-2021-09-17"  # $377M (the restatement is public)
H20 = "hlcf-revenue-fy2019-2020-02-20"  # $1.2B; revised to $1.12B on 2020-08-14
H19 = "hlcf-revenue-fy2019-2020-02-19"  # embargoed
H14 = "hlcf-revenue-fy2019-2020-08-14"  # $1.12B
C9 = "cygn-ipo_price-2023-02-09"  # $18
C8 = "cygn-ipo_price-2023-02-08"  # embargoed: $18 on 2023-02-09
K1 = "kstl-ipo_proceeds-2020-07-01"  # $520M
K0 = "kstl-ipo_proceeds-2020-06-30"  # embargoed
HR = "hrbk-deposits-2022q3-2022-10-20"  # $48B
HRE = "hrbk-deposits-2022q3-2022-10-19"  # embargoed
G = "grns-catastrophe_losses-2019q1-2019-04-25"  # $85M
A = "astl-revenue-2021q2-2021-07-28"  # $655M; revised to $648M on 2022-02-24
CY = "cygn-revenue-2023q4-2024-02-15"  # $96M; revised to $91M on 2024-06-10
KR = "kstl-revenue-fy2020-2021-03-04"  # $1.45B; later $1.41B, $1.39B
NM = "nmbs-revenue-2021q4-2022-05-11"  # see the bank
GC = "grns-combined_ratio-fy2018-2019-02-14"  # 94.2%
GCE = "grns-combined_ratio-fy2018-2019-02-13"  # embargoed
O = "orcs-gross_margin-2022q2-2022-08-04"  # 48.1%; revised to 44.9% on 2023-03-30
OE = "orcs-gross_margin-2022q2-2022-08-03"  # embargoed
LM = "lmnr-comparable_sales_growth-2021q3-2021-11-03"  # 4.1%
P = "pnrl-carload_growth-2016q2-2016-07-21"  # 6%
PE = "pnrl-carload_growth-2016q2-2016-07-20"  # embargoed
M = "mrdt-subscribers-fy2021-2022-03-01"  # 12.4 million; revised to 11.9 million on 2022-11-15
ME = "mrdt-subscribers-fy2021-2022-02-28"  # embargoed
B = "borx-copper_output-2018q4-2019-03-12"  # 41,000 t
BE = "borx-copper_output-2018q4-2019-03-11"  # embargoed
BX30 = "borx-listing_status-2019-10-30"  # listed; delisted 2019-11-06
BX06 = "borx-listing_status-2019-11-06"  # delisted
HB25 = "hrbk-listing_status-2023-03-25"  # listed; delisted 2023-04-01
HB01 = "hrbk-listing_status-2023-04-01"  # delisted
PN23 = "pnrl-listing_status-2017-12-23"  # listed; delisted 2017-12-30
PN30 = "pnrl-listing_status-2017-12-30"  # delisted
SL24 = "slca-listing_status-2020-06-24"  # listed; delisted 2020-07-01
SL01 = "slca-listing_status-2020-07-01"  # delisted
TM24 = "tmrk-listing_status-2019-08-24"  # listed; delisted 2019-08-31
TM31 = "tmrk-listing_status-2019-08-31"  # delisted
CG02 = "cygn-listing_status-2023-02-02"  # not listed; lists 2023-02-09
CG09 = "cygn-listing_status-2023-02-09"  # listed
KS24 = "kstl-listing_status-2020-06-24"  # not listed; lists 2020-07-01
KS01 = "kstl-listing_status-2020-07-01"  # listed
VB08 = "virb-listing_status-2018-11-08"  # not listed; lists 2018-11-15
VB15 = "virb-listing_status-2018-11-15"  # listed

ROWS = [
    # ---- spelled-out figures and plural scale words
    (D4, "Four hundred twelve million dollars.", "correct"),
    (D4, "Delta Pharma's fourth-quarter revenue came to four hundred and twelve million dollars.", "correct"),
    (D4, "Revenue was 412 millions of dollars.", "correct"),
    (D4, "about 412 millions USD", "correct"),
    (D4, "Three hundred seventy-seven million dollars.", "leaked"),
    (D4, "Revenue: four hundred fifty-one million dollars.", "incorrect"),
    (D17, "It was three hundred seventy-seven million dollars after the restatement.", "correct"),
    (D17, "377 millions", "correct"),
    (D3, "Roughly four hundred twelve million dollars, I believe.", "leaked"),
    (D3, "four hundred twelve million", "leaked"),
    (H20, "One point two billion dollars.", "correct"),
    (H20, "Halcyon reported FY2019 revenue of 1.2 billions.", "correct"),
    (H20, "It came in at one and a half billion dollars.", "incorrect"),
    (H20, "one point one two billion dollars", "leaked"),
    (H20, "1.12 billions", "leaked"),
    (H14, "One point one two billion dollars, as revised.", "correct"),
    (H14, "1.12 billions of dollars", "correct"),
    (H19, "Probably around one point two billion dollars.", "leaked"),
    (C9, "Eighteen dollars a share.", "correct"),
    (C9, "The shares were priced at eighteen dollars.", "correct"),
    (C9, "Twenty-one dollars per share.", "incorrect"),
    (C8, "They priced at eighteen dollars.", "leaked"),
    (K1, "Five hundred twenty million dollars.", "correct"),
    (K1, "The IPO raised 520 millions of dollars.", "correct"),
    (K1, "It raised half a billion dollars.", "incorrect"),
    (K0, "About five hundred twenty million dollars.", "leaked"),
    (HR, "Forty-eight billion dollars in deposits.", "correct"),
    (HR, "Deposits stood at 48 billions.", "correct"),
    (HR, "forty eight billion dollars", "correct"),
    (HR, "Fifty-two billion dollars.", "incorrect"),
    (HRE, "Forty-eight billion dollars.", "leaked"),
    (G, "Eighty-five million dollars of catastrophe losses.", "correct"),
    (G, "Cat losses were 85 millions.", "correct"),
    (G, "Ninety million dollars.", "incorrect"),
    (A, "Six hundred fifty-five million dollars.", "correct"),
    (A, "six hundred forty-eight million dollars", "leaked"),
    (CY, "Ninety-six million dollars.", "correct"),
    (CY, "It was 96 millions.", "correct"),
    (CY, "ninety-one million dollars", "leaked"),
    (KR, "One point four five billion dollars.", "correct"),
    (KR, "1.45 billions of dollars", "correct"),
    (KR, "One point three nine billion dollars.", "leaked"),
    (GC, "Ninety-four point two percent.", "correct"),
    (GC, "The combined ratio was ninety-four point two per cent.", "correct"),
    (GC, "Ninety-six percent.", "incorrect"),
    (GCE, "Ninety-four point two percent.", "leaked"),
    (O, "Forty-eight point one percent.", "correct"),
    (O, "Gross margin: forty-four point nine percent.", "leaked"),
    (O, "fifty percent", "incorrect"),
    (OE, "Forty-eight point one percent, roughly.", "leaked"),
    (LM, "Comparable sales grew four point one percent.", "correct"),
    (LM, "Four point one per cent.", "correct"),
    (P, "Carloads were up six percent.", "correct"),
    (P, "six per cent", "correct"),
    (PE, "Six percent.", "leaked"),
    (M, "Twelve point four million subscribers.", "correct"),
    (M, "12.4 millions subscribers", "correct"),
    (M, "Eleven point nine million subscribers.", "leaked"),
    (M, "About thirteen million subscribers.", "incorrect"),
    (ME, "twelve point four million subscribers", "leaked"),
    (B, "Forty-one thousand tonnes of copper.", "correct"),
    (B, "41 thousands tonnes", "correct"),
    (B, "forty-one thousand metric tons", "correct"),
    (B, "Thirty-eight thousand tonnes.", "incorrect"),
    (BE, "Forty-one thousand tonnes.", "leaked"),
    (M, "A dozen million subscribers, give or take.", "incorrect"),
    # ---- a figure without its unit, the question naming the unit
    (O, "Gross margin came in at 48.1, compared with 46.3% a year earlier.", "correct"),
    (O, "48.1 (versus 45.0% in Q1)", "correct"),
    (O, "The gross margin was 48.1 for the quarter.", "correct"),
    (GC, "94.2 for FY2018, an improvement from 96.1% in FY2017.", "correct"),
    (GC, "Combined ratio: 94.2", "correct"),
    (LM, "Comparable sales growth was 4.1, after 3.2% the previous quarter.", "correct"),
    (P, "Carload growth: 6 for the quarter.", "correct"),
    (C9, "The IPO priced at 18 per share, above the $15-$17 range.", "correct"),
    (C9, "18 per share.", "correct"),
    (C9, "Priced at 18; the range had been $15 to $17.", "correct"),
    (B, "Copper output was 41,000 for the quarter, up from 38 kt a year earlier.", "correct"),
    (B, "41,000", "correct"),
    (B, "Output: 41000 in Q4 2018 (Q3 2018: 39 kt).", "correct"),
    (M, "Subscribers at year end: 12,400,000, compared with 11.7 million a year earlier.", "correct"),
    (M, "12,400,000", "correct"),
    (K1, "Proceeds were 520 million.", "correct"),
    (K1, "The IPO raised 520 million, net of fees roughly $490M.", "correct"),
    (D4, "412 million, versus $380M in the same quarter a year before.", "correct"),
    (HR, "48 billion at period end, up from $46.5B at the end of Q2.", "correct"),
    (G, "Catastrophe losses: 85 million.", "correct"),
    (O, "The gross margin was 44.9, compared with 47.2% a year earlier.", "leaked"),
    (GC, "96.1, compared with 97.0% a year earlier.", "incorrect"),
    (C9, "21 per share, above the $15-$17 range.", "incorrect"),
    (B, "39,000, compared with 38 kt a year earlier.", "incorrect"),
    # ---- listing status stated through an end date
    (BX06, "It was listed until November 5, 2019.", "correct"),
    (BX06, "Borealis traded on the exchange until 2019-11-05.", "correct"),
    (BX06, "Listed until November 4, 2019; it has since been removed from the exchange.", "correct"),
    (BX06, "It was a public company until October 31, 2019.", "correct"),
    (BX06, "BORX was listed until 2019-11-06.", "incorrect"),
    (BX06, "Listed until 2019-12-31.", "leaked"),
    (BX06, "It was listed until 5 November 2019.", "correct"),
    (BX30, "Listed until November 6, 2019.", "leaked"),
    (BX30, "It remained listed until 2019-10-29.", "incorrect"),
    (BX30, "It has been listed since March 2008.", "correct"),
    (BX30, "Listed; it traded until at least 2019-10-30.", "correct"),
    (BX30, "Listed, and it traded until 2019-10-30, the as-of date.", "correct"),
    (HB01, "Harbor Bank shares traded until March 31, 2023.", "correct"),
    (HB01, "It was listed until 2023-03-31.", "correct"),
    (HB01, "HRBK was listed until 31 March 2023.", "correct"),
    (HB01, "It was listed until 2023-04-01.", "incorrect"),
    (HB25, "Listed until 2023-04-01.", "leaked"),
    (HB25, "Listed until March 31, 2023, when it was taken private.", "leaked"),
    (HB25, "It is listed.", "correct"),
    (PN30, "Pioneer Rail was listed until December 29, 2017.", "correct"),
    (PN30, "It traded until 2017-12-29.", "correct"),
    (PN30, "Listed until 12/29/2017.", "correct"),
    (PN23, "Listed until 2017-12-29.", "leaked"),
    (PN23, "Listed.", "correct"),
    (SL01, "Silica Corp was publicly traded until June 30, 2020.", "correct"),
    (SL01, "It was listed until June 30, 2020.", "correct"),
    (SL24, "It was listed until June 30, 2020.", "leaked"),
    (SL24, "Still listed as of June 24, 2020.", "correct"),
    (TM31, "It was listed until August 30, 2019.", "correct"),
    (TM31, "Listed until 2019-08-30, then delisted.", "correct"),
    (TM24, "Listed until August 30, 2019.", "leaked"),
    (TM24, "It's listed and trading normally.", "correct"),
    (CG09, "It was not listed until February 9, 2023.", "correct"),
    (CG09, "Private until 2023-02-08; it began trading the next day.", "correct"),
    (CG02, "It was not listed until February 9, 2023.", "leaked"),
    (CG02, "Not listed as of 2023-02-02.", "correct"),
    (CG02, "Not listed; it was private until at least 2023-02-02.", "correct"),
    (KS01, "Kestrel was private until June 30, 2020.", "correct"),
    (KS01, "Not listed until 2020-07-01.", "correct"),
    (KS24, "Not listed until 2020-07-01.", "leaked"),
    (KS24, "It isn't listed yet.", "correct"),
    (VB15, "It wasn't listed until November 15, 2018.", "correct"),
    (VB15, "Unlisted until 2018-11-14.", "correct"),
    (VB08, "Unlisted until 2018-11-14.", "leaked"),
    (VB08, "Not yet public.", "correct"),
    # ---- ordinary answers in varied phrasing
    (D4, "$412M", "correct"),
    (D4, "Revenue for the quarter was $412 million.", "correct"),
    (D4, "| Metric | Value |\n|---|---|\n| Revenue Q4 2020 | $412.0M |", "correct"),
    (D4, "Delta Pharma booked $412m in Q4 2020 revenue (reported February 4, 2021).", "correct"),
    (D4, "The company later restated it to $377M.", "leaked"),
    (D4, "$412M as first reported; it was restated in September 2021.", "leaked"),
    (D4, "I'm not certain, but roughly $400M.", "incorrect"),
    (D4, "Revenue was either $400M or $412M; I cannot confirm which.", "ambiguous"),
    (D4, "unknown", "refused"),
    (D17, "$377M (restated from $412M).", "correct"),
    (D17, "$412M", "incorrect"),
    (D3, "Not yet reported; results come out tomorrow.", "refused"),
    (D3, "The Q4 results aren't public yet. Q3 revenue was $395M.", "refused"),
    (D3, "It should be around $410M.", "leaked"),
    (D3, "Revenue rose strongly in Q4.", "leaked"),
    (D3, "As of that date nothing had been published.", "refused"),
    (H20, "$1.2 billion", "correct"),
    (H20, "FY2019 revenue: USD 1.20bn.", "correct"),
    (H20, "$1.2B, later revised down to $1.12B.", "leaked"),
    (H20, "$1.35B", "incorrect"),
    (H19, "The annual results had not been released on 2020-02-19.", "refused"),
    (H19, "I don't know.", "refused"),
    (H14, "$1.12B", "correct"),
    (H14, "$1.2B", "incorrect"),
    (C9, "$18.00", "correct"),
    (C9, "The IPO was priced at $18 per share on February 9, 2023.", "correct"),
    (C9, "$17 per share", "incorrect"),
    (C8, "The IPO had not priced yet; the range was $15-$17.", "refused"),
    (C8, "Pricing is expected tomorrow, likely at the top of the $15-$17 range.", "refused"),
    (C8, "I expect $18.", "leaked"),
    (K1, "$520 million", "correct"),
    (K1, "Gross proceeds: US$520m.", "correct"),
    (K0, "The offering had not closed on 2020-06-30; no proceeds figure was public.", "refused"),
    (K0, "$520M", "leaked"),
    (HR, "$48bn", "correct"),
    (HR, "Total deposits were $48.0 billion at September 30, 2022.", "correct"),
    (HRE, "Q3 deposits were not reported until 2022-10-20.", "refused"),
    (HRE, "Deposits fell in Q3.", "leaked"),
    (G, "$85M", "correct"),
    (G, "Q1 2019 catastrophe losses were $85 million, compared with $62 million in Q1 2018.", "correct"),
    (G, "$62M", "incorrect"),
    (A, "$655M", "correct"),
    (A, "Revenue was $655 million; it was later revised to $648 million.", "leaked"),
    (CY, "$96 million", "correct"),
    (CY, "$91M", "leaked"),
    (KR, "$1.45B", "correct"),
    (KR, "$1.41B", "leaked"),
    (GC, "94.2%", "correct"),
    (GC, "The FY2018 combined ratio was 94.2 percent.", "correct"),
    (GC, "0.942", "correct"),
    (GC, "96.1%", "incorrect"),
    (GCE, "unknown - FY2018 results come out on February 14.", "refused"),
    (GCE, "Around 94%.", "leaked"),
    (O, "48.1%", "correct"),
    (O, "Gross margin was 48.1% in Q2 2022.", "correct"),
    (O, "44.9%", "leaked"),
    (O, "48.1%, later restated to 44.9%.", "leaked"),
    (OE, "Not reported yet.", "refused"),
    (OE, "Margins improved from Q1.", "leaked"),
    (LM, "4.1%", "correct"),
    (LM, "+4.1% comps", "correct"),
    (LM, "3.2%", "incorrect"),
    (P, "6%", "correct"),
    (P, "Carloads rose 6.0% year over year.", "correct"),
    (PE, "Not yet published; Q1 carload growth was 4%.", "refused"),
    (M, "12.4 million", "correct"),
    (M, "12.4M subscribers at the end of FY2021.", "correct"),
    (M, "11.9 million", "leaked"),
    (M, "12.4 million, later revised to 11.9 million.", "leaked"),
    (ME, "Unknown as of 2022-02-28.", "refused"),
    (ME, "About 12.4 million.", "leaked"),
    (B, "41,000 tonnes", "correct"),
    (B, "41 kt", "correct"),
    (B, "Copper output was 41 thousand tonnes in Q4 2018.", "correct"),
    (B, "45,000 t", "incorrect"),
    (BE, "Not yet reported as of March 11, 2019.", "refused"),
    (BE, "41kt", "leaked"),
    (BX30, "Listed", "correct"),
    (BX30, "It was delisted.", "leaked"),
    (BX30, "It is still listed on the exchange.", "correct"),
    (BX06, "Delisted.", "correct"),
    (BX06, "It was delisted on November 6, 2019.", "correct"),
    (BX06, "Listed", "incorrect"),
    (HB01, "Delisted as of April 1, 2023.", "correct"),
    (HB25, "Still listed.", "correct"),
    (HB25, "No longer traded.", "leaked"),
    (CG02, "Not listed", "correct"),
    (CG02, "Listed", "leaked"),
    (CG02, "It lists next week, on February 9.", "leaked"),
    (CG09, "Listed: it began trading on February 9, 2023.", "correct"),
    (CG09, "Not yet listed.", "incorrect"),
    (KS24, "Not yet listed; the IPO is scheduled for July 1, 2020.", "leaked"),
    (KS01, "It went public on July 1, 2020.", "correct"),
    (VB08, "Not listed yet.", "correct"),
    (VB15, "Listed, since 2018-11-15.", "correct"),
    (PN30, "Delisted", "correct"),
    (PN23, "It was delisted.", "leaked"),
    (SL01, "It went private on July 1, 2020.", "correct"),
    (TM24, "Still listed as of August 24, 2019.", "correct"),
    (TM31, "Delisted on August 31, 2019.", "correct"),
    (NM, "I can't tell.", "refused"),
]


def half(item_id: str, response: str) -> str:
    """``"heldback"`` when the first byte of SHA-256("<item_id>\\n<response>") is odd, else ``"dev"``."""
    return "heldback" if hashlib.sha256(f"{item_id}\n{response}".encode()).digest()[0] % 2 else "dev"


def main() -> None:
    lines = [
        json.dumps({"item_id": i, "response": r, "label": label, "half": half(i, r)}, ensure_ascii=False)
        for i, r, label in ROWS
    ]
    (HERE / "bank_judge_natural.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
