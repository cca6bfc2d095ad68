/**
 * What each state step changed (src/detail/state-diff.ts), read through a real analysis of an SSE stream:
 * every RFC 6902 operation, arrays, a failing patch and the operations it undid, snapshots against the
 * step before, and a 1 MB state whose one-path deltas cost the delta, not the state.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ExchangeReading, diffValues, type StateChange } from '../../src/detail/index.ts';
import { jsonEqual } from '../../src/json.ts';

function reading(state: unknown, events: object[]): ExchangeReading {
  const r = new ExchangeReading({
    source: 'x', contentType: 'text/event-stream', status: 200,
    requestBody: JSON.stringify({ threadId: 't', runId: 'r', protocolVersion: '1.0', messages: [], state }),
  });
  const all = [{ type: 'RUN_STARTED', threadId: 't', runId: 'r' }, ...events, { type: 'RUN_FINISHED', threadId: 't', runId: 'r' }];
  all.forEach((e, i) => r.push(new TextEncoder().encode(`data: ${JSON.stringify(e)}\n\n`), i));
  r.end(all.length);
  return r;
}

const delta = (...ops: object[]) => ({ type: 'STATE_DELTA', delta: ops });
const changes = (a: unknown, b: unknown): StateChange[] => {
  const out: StateChange[] = [];
  diffValues(a, b, '', out);
  return out;
};

describe('state diff', () => {
  test('each RFC 6902 operation: what it did, with the value it found and the net change', () => {
    const r = reading({ a: 1, list: ['x', 'y'], o: { k: 'v' } }, [
      delta({ op: 'add', path: '/b', value: 2 }),
      delta({ op: 'remove', path: '/a' }),
      delta({ op: 'replace', path: '/o/k', value: 'w' }),
      delta({ op: 'move', from: '/o/k', path: '/moved' }),
      delta({ op: 'copy', from: '/list', path: '/copy' }),
      delta({ op: 'test', path: '/b', value: 2 }),
      delta({ op: 'add', path: '/list/1', value: 'in' }),
    ]);
    const d = [0, 1, 2, 3, 4, 5, 6].map((n) => r.stateDiff(n)!);
    assert.deepEqual(d.map((x) => x.ops!.map((o) => [o.op, o.path, o.outcome])), [
      [['add', '/b', 'applied']], [['remove', '/a', 'applied']], [['replace', '/o/k', 'applied']], [['move', '/moved', 'applied']],
      [['copy', '/copy', 'applied']], [['test', '/b', 'applied']], [['add', '/list/1', 'applied']],
    ]);
    assert.deepEqual(d[0]!.changes, [{ op: 'add', path: '/b', value: 2 }]);
    assert.deepEqual(d[1]!.changes, [{ op: 'remove', path: '/a', old: 1 }]);
    assert.deepEqual(d[1]!.ops![0]!.old, 1);
    assert.deepEqual(d[2]!.changes, [{ op: 'replace', path: '/o/k', old: 'v', value: 'w' }]);
    assert.deepEqual(d[3]!.ops![0], { op: 'move', path: '/moved', from: '/o/k', value: 'w', outcome: 'applied' });
    assert.deepEqual(d[3]!.changes.sort((a, b) => a.path.localeCompare(b.path)), [{ op: 'add', path: '/moved', value: 'w' }, { op: 'remove', path: '/o/k', old: 'w' }]);
    assert.deepEqual(d[4]!.changes, [{ op: 'add', path: '/copy', value: ['x', 'y'] }]);
    assert.deepEqual(d[5]!.changes, [], 'a test changes nothing');
    assert.deepEqual(d[5]!.ops![0]!.old, 2, 'what the test compared against');
    // An insertion shifts the array: the net change is one added element, not a replaced one.
    assert.deepEqual(d[6]!.changes, [{ op: 'add', path: '/list/1', value: 'in' }]);
    assert.equal('old' in d[6]!.ops![0]!, false, 'an insertion overwrites nothing');
    assert.deepEqual(r.stateAt(6), { state: { list: ['x', 'in', 'y'], o: {}, b: 2, moved: 'w', copy: ['x', 'y'] } });
  });

  test('a failing patch: the failing operation marked with why, those before undone, those after not reached, no change', () => {
    const r = reading({ n: 1 }, [delta({ op: 'replace', path: '/n', value: 2 }, { op: 'remove', path: '/missing' }, { op: 'add', path: '/z', value: 0 })]);
    const d = r.stateDiff(0)!;
    assert.equal(d.failed, true);
    assert.deepEqual(d.ops!.map((o) => o.outcome), ['undone', 'failed', 'not-reached']);
    assert.match(d.ops![1]!.error!, /nothing to remove at \/missing/);
    assert.deepEqual(d.changes, []);
    assert.deepEqual(r.stateAt(0), { state: { n: 1 } });
    const test = reading({ s: 'a' }, [delta({ op: 'test', path: '/s', value: 'b' })]).stateDiff(0)!;
    assert.deepEqual([test.ops![0]!.outcome, test.ops![0]!.old, test.ops![0]!.error], ['failed', 'a', 'test failed at /s']);
  });

  test("a snapshot is diffed against the step before, the first against the input's state", () => {
    const r = reading({ keep: 1, gone: true }, [
      { type: 'STATE_SNAPSHOT', snapshot: { keep: 1, added: { deep: [1] } } },
      { type: 'STATE_SNAPSHOT', snapshot: { keep: 2, added: { deep: [1, 2] } } },
    ]);
    const [a, b] = [r.stateDiff(0)!, r.stateDiff(1)!];
    assert.equal(a.kind, 'snapshot');
    assert.equal(a.ops, null);
    assert.deepEqual(a.changes, [{ op: 'remove', path: '/gone', old: true }, { op: 'add', path: '/added', value: { deep: [1] } }]);
    assert.deepEqual(b.changes, [{ op: 'replace', path: '/keep', old: 1, value: 2 }, { op: 'add', path: '/added/deep/1', value: 2 }]);
    assert.equal(r.stateDiff(2), null);
  });

  test('arrays: common ends trimmed, the middle compared by position, tails added or removed', () => {
    assert.deepEqual(changes([1, 2, 3, 4], [1, 9, 4]), [{ op: 'replace', path: '/1', old: 2, value: 9 }, { op: 'remove', path: '/2', old: 3 }]);
    assert.deepEqual(changes([1, 4], [1, 2, 3, 4]), [{ op: 'add', path: '/1', value: 2 }, { op: 'add', path: '/2', value: 3 }]);
    assert.deepEqual(changes([{ a: 1 }], [{ a: 2 }]), [{ op: 'replace', path: '/0/a', old: 1, value: 2 }]);
    assert.deepEqual(changes({ 'a/b': { '~': 1 } }, { 'a/b': { '~': 2 } }), [{ op: 'replace', path: '/a~1b/~0', old: 1, value: 2 }]);
    assert.deepEqual(changes([1], { 0: 1 }), [{ op: 'replace', path: '', old: [1], value: { 0: 1 } }], 'an array is not an object');
    assert.deepEqual(changes({ a: [1, 2] }, { a: [1, 2] }), []);
  });

  test('hostile nesting diffs without overflowing the stack; rows stop at the cap', () => {
    let a: unknown = 1;
    let b: unknown = 2;
    for (let i = 0; i < 100_000; i++) [a, b] = [[a], [b]];
    assert.equal(changes(a, b).length, 1);
    const out: StateChange[] = [];
    const wide = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i]));
    assert.equal(diffValues({}, wide, '', out, 10), true);
    assert.equal(out.length, 10);
  });

  test('a 1 MB state with one-path deltas: each diff costs the delta, backwards as forwards', () => {
    const big = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`key${i}`, { text: 'x'.repeat(480), n: i }]));
    const steps = 600;
    const r = reading(big, Array.from({ length: steps }, (_, i) => delta({ op: 'replace', path: `/key${i % 2000}/n`, value: -i - 1 })));
    // CPU time of this process: other processes on a loaded machine stretch wall time, not this.
    const cpuMs = (f: () => void): number => {
      const t = process.cpuUsage();
      f();
      const d = process.cpuUsage(t);
      return (d.user + d.system) / 1000;
    };
    const timeOf = (from: number, to: number): number => cpuMs(() => {
      for (let n = from; n !== to; n += from < to ? 1 : -1) {
        const d = r.stateDiff(n)!;
        assert.deepEqual(d.changes, [{ op: 'replace', path: `/key${n % 2000}/n`, old: n, value: -n - 1 }]);
      }
    });
    // Backwards first, the worst order for states worked out from the snapshot forwards.
    const back = timeOf(steps - 1, steps / 2 - 1);
    const fwd = timeOf(0, steps / 2);
    // Diffing the whole state once per step would cost a whole diff a step: each step here costs under half of one.
    const wholes = [0, 1, 2].map(() => cpuMs(() => diffValues(big, structuredClone(big), '', [])));
    const whole = wholes.sort((a, b) => a - b)[1]!;
    assert.ok(back < whole * (steps / 2) / 2 && fwd < whole * (steps / 2) / 2, `back ${back.toFixed(1)} ms, forward ${fwd.toFixed(1)} ms, one whole diff ${whole.toFixed(2)} ms`);
  });

  test('40,000 deltas each adding at /arr/0 of a 200,000-item array: a step costs its own delta, not the history before it', () => {
    const base = 200_000;
    const steps = 40_000;
    const r = reading({ arr: Array.from({ length: base }, (_, i) => i) }, Array.from({ length: steps }, (_, i) => delta({ op: 'add', path: '/arr/0', value: -i - 1 })));
    const cpuMs = (f: () => void): number => {
      const t = process.cpuUsage();
      f();
      const d = process.cpuUsage(t);
      return (d.user + d.system) / 1000;
    };
    // The last step first, then a scrubber's way back and forth, then a jump to the first steps.
    for (const n of [steps - 1, steps - 2, steps - 3, steps - 2, steps - 1, 0, 1]) {
      let d!: ReturnType<ExchangeReading['stateDiff']>;
      const took = cpuMs(() => (d = r.stateDiff(n)));
      assert.deepEqual(d!.changes, [{ op: 'add', path: '/arr/0', value: -n - 1 }]);
      assert.ok(took < 150, `step ${n}: ${took.toFixed(0)} ms`);
    }
    const at = r.stateAt(steps - 3)!.state as { arr: number[] };
    assert.equal(at.arr.length, base + steps - 2);
    assert.equal(at.arr[0], -(steps - 2));
  });

  test('states worked out backwards, by inverse patches, equal those worked out forwards', () => {
    const ops = [
      { op: 'add', path: '/o/x', value: { deep: [1] } }, { op: 'remove', path: '/o/k' }, { op: 'move', from: '/list/0', path: '/list/2' },
      { op: 'copy', from: '/o', path: '/list/-' }, { op: 'replace', path: '', value: { o: { k: 'again' }, list: [] } }, { op: 'add', path: '/o/k', value: 'over' },
      { op: 'test', path: '/o/k', value: 'no' }, { op: 'add', path: '/list/0', value: 'in' }, { op: 'move', from: '/o/k', path: '/moved' },
    ];
    const events = Array.from({ length: 60 }, (_, i) => (i === 30 ? { type: 'STATE_SNAPSHOT', snapshot: { o: { k: 's' }, list: ['a', 'b', 'c'] } } : delta(ops[i % ops.length]!, ...(i % 4 === 0 ? [ops[(i + 3) % ops.length]!] : []))));
    const start = { o: { k: 'v' }, list: ['a', 'b', 'c'] };
    const forwards = reading(start, events);
    const backwards = reading(start, events);
    const n = forwards.part('states').length;
    // Kept as handed out: a state or diff once answered is never written afterwards.
    const fwd = Array.from({ length: n }, (_, i) => ({ diff: forwards.stateDiff(i)!, state: forwards.stateAt(i)!.state, text: JSON.stringify(forwards.stateAt(i)) }));
    for (let i = n - 1; i >= 0; i--) {
      const d = backwards.stateDiff(i)!;
      assert.deepEqual(d.ops, fwd[i]!.diff.ops, `step ${i}`);
      // Members put back by an inverse patch come last (objects are unordered), so the rows may come in another order.
      assert.deepEqual(new Set(d.changes.map((c) => JSON.stringify(c))), new Set(fwd[i]!.diff.changes.map((c) => JSON.stringify(c))), `step ${i}`);
      assert.equal(JSON.stringify({ state: fwd[i]!.state }), fwd[i]!.text);
      assert.ok(jsonEqual(backwards.stateAt(i)!.state, fwd[i]!.state), `step ${i}`);
    }
  });
});
