import json, sys, collections
ev = json.load(open(sys.argv[1]))
names = {}
for e in ev:
    if e.get('ph') == 'M' and e.get('name') == 'thread_name':
        names[(e['pid'], e['tid'])] = e['args']['name']
main = [k for k, v in names.items() if v == 'CrRendererMain']
key = max(main, key=lambda k: sum(1 for e in ev if (e['pid'], e['tid']) == k))
tasks = sorted([e for e in ev if e.get('ph') == 'X' and (e['pid'], e['tid']) == key and e['name'] in ('RunTask', 'ThreadControllerImpl::RunTask')], key=lambda t: t['ts'])
t0 = tasks[0]['ts']
big = [t for t in tasks if t.get('dur', 0) > 15000]
for t in big:
    inside = [e for e in ev if e.get('ph') == 'X' and (e['pid'], e['tid']) == key and e['ts'] >= t['ts'] and e['ts'] + e.get('dur', 0) <= t['ts'] + t['dur'] and e is not t]
    agg = collections.Counter()
    for e in inside: agg[e['name']] += e.get('dur', 0)
    print(f"{(t['ts']-t0)/1000:8.0f} dur {t['dur']/1000:5.0f}:", ', '.join(f"{n} {d/1000:.0f}" for n, d in agg.most_common(7)))
paints = [e for e in ev if e.get('ph') == 'X' and (e['pid'], e['tid']) == key and e['name'] == 'Paint' and e.get('dur',0) > 10000]
for p in paints[:5]: print(json.dumps(p.get('args'))[:400])
