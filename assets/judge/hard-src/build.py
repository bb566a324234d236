"""Writes hard-dev.json and hard-test.json from the hand-written conversations in convs_*.py (run: python3 build.py)."""
import json, os, random, sys, collections
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from convs_a import A
from convs_a2 import A2
from convs_b import B
from convs_b2 import B2
from convs_c import C
from convs_d import D, D2

convs = A() + A2() + B() + B2() + C() + D() + D2()
convs.sort(key=lambda c: c.id)
docs = [c.out() for c in convs]
assert len({d['id'] for d in docs}) == len(docs)

def split(seed):
    rng = random.Random(seed)
    strata = collections.OrderedDict()
    for c in convs:
        strata.setdefault(c.stratum, collections.OrderedDict()).setdefault(c.group, []).append(c.id)
    test = set()
    for s, groups in strata.items():
        keys = list(groups); rng.shuffle(keys)
        n = max(1, min(len(keys) - 1, int(0.4 * len(keys) + rng.random())))
        for g in keys[:n]: test.update(groups[g])
    return test

def kinds(ds): return {c['kind'] for d in ds for c in d['labels']['claims']}

seed = int(sys.argv[1]) if len(sys.argv) > 1 else 55
while True:
    test = split(seed)
    dev_d = [d for d in docs if d['id'] not in test]; test_d = [d for d in docs if d['id'] in test]
    both = kinds(dev_d) & kinds(test_d)
    # every claim kind, true and false, in both files
    fk = lambda ds: {c['kind'] for d in ds for c in d['labels']['claims'] if c['hallucination']}
    tk = lambda ds: {c['kind'] for d in ds for c in d['labels']['claims'] if not c['hallucination']}
    tiers = lambda ds: {d['labels']['tier'] for d in ds}
    if fk(dev_d) == fk(test_d) and tk(dev_d) == tk(test_d) and tiers(dev_d) == tiers(test_d) and 0.37 <= len(test_d) / len(docs) <= 0.43: break
    seed += 1
    assert seed < 5000, 'no seed splits every kind into both files'

ABOUT = ("Hard banking judge set (issue 55 item 3), {part}. Written on 2026-12-07 between 22:15 and 23:00 UTC by helper wt-55a, "
         "an AI engineer who did not open, read or grep core/judge/, the LLM judge code or any judge-eval figures while writing and labelling: "
         "only assets/judge/README.md's format and labelling guidelines, core/world/backend.ts, core/world/tool-types.ts, core/world/transcript.ts, "
         "core/world/adversities.ts (error wording), core/wire.ts and the banking pack's scenarios were consulted. Every conversation was written by hand "
         "in a real agent's voice; a small builder serialised the turns (raw = compact JSON of the action) and ran each tool call against a mirror of "
         "backend.ts's handlers so ids, balances, errors and result fields are consistent. Labels were written by the author from the guidelines; "
         "labels.claims lists every false claim and the true claims a checker might flag, each with its kind; hallucination is true exactly when a false "
         "claim is listed. Split before any judge ran on either file: conversations grouped by stratum (the 13 kinds of hard case, shown in [brackets] "
         "at the start of each note) and minimal pairs kept together, each stratum's groups shuffled with Python random.Random({seed}) and 40% of its "
         "groups (rounded at random) sent to hard-test.json (seed {seed}: the first from 55 for which every kind of false claim, every kind of true claim and every tier occurs in both files and the test part holds 37-43% of the conversations). "
         "hard-dev.json is for tuning; hard-test.json is to be read once, for the closing note.")
for name, part, ds in (('hard-dev.json', 'development part (tune on it)', dev_d), ('hard-test.json', 'test part (read once, never tune on it)', test_d)):
    with open(os.path.join(HERE, '..', name), 'w') as f:
        json.dump({'version': 1, 'about': ABOUT.format(part=part, seed=seed), 'conversations': ds}, f, indent=2, ensure_ascii=False)
        f.write('\n')

print('seed', seed, 'dev', len(dev_d), 'test', len(test_d))
for nm, ds in (('dev', dev_d), ('test', test_d)):
    st = collections.Counter(d['note'].split(']')[0][1:] for d in ds)
    print(nm, dict(st))
    ck = collections.Counter((c['kind'], c['hallucination']) for d in ds for c in d['labels']['claims'])
    print(nm, 'claims', sorted(ck.items()))
    print(nm, 'resolved', collections.Counter(d['labels']['resolved'] for d in ds), 'tier', sorted(collections.Counter(d['labels']['tier'] for d in ds).items()), 'hall', collections.Counter(d['labels']['hallucination'] for d in ds), 'imp', sum('impossible' in d['transcript'] for d in ds))
