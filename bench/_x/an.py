import json, sys, collections
ev = json.load(open(sys.argv[1]))
names = {}
for e in ev:
    if e.get('ph') == 'M' and e.get('name') == 'thread_name':
        names[(e['pid'], e['tid'])] = e['args']['name']
# find main threads with most events
cnt = collections.Counter((e['pid'], e['tid']) for e in ev if e.get('ph') == 'X')
for k, c in cnt.most_common(8): print(k, names.get(k), c)
# the renderer main thread with the most RunTask
tasks = [e for e in ev if e.get('ph') == 'X' and e['name'] in ('RunTask', 'ThreadControllerImpl::RunTask') and names.get((e['pid'], e['tid'])) == 'CrRendererMain']
long = sorted([t for t in tasks if t.get('dur', 0) > 40000], key=lambda t: t['ts'])
print('long tasks', len(long))
for t in long:
    key = (t['pid'], t['tid'])
    inside = [e for e in ev if e.get('ph') == 'X' and (e['pid'], e['tid']) == key and e['ts'] >= t['ts'] and e['ts'] + e.get('dur', 0) <= t['ts'] + t['dur'] and e is not t]
    agg = collections.Counter()
    for e in inside:
        agg[e['name']] += e.get('dur', 0)
    print('task', t['pid'], round(t['ts']/1000), 'dur', round(t['dur']/1000), 'ms:', ', '.join(f"{n} {d/1000:.0f}" for n, d in agg.most_common(10)))
