import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Ev } from '../../src/analyzer/event.ts';
import { FindingSink } from '../../src/analyzer/sink.ts';
import { StateTracker, type StateStep } from '../../src/analyzer/state.ts';

/** The state view's history: every step's state is the one a consumer held after that event, whenever and in whatever order it is read. */
describe('state steps', () => {
  const events: Ev[] = [
    { type: 'STATE_DELTA', delta: [{ op: 'add', path: '/list', value: [] }] },
    { type: 'STATE_DELTA', delta: [{ op: 'add', path: '/list/-', value: { n: 1 } }] },
    { type: 'STATE_DELTA', delta: [{ op: 'add', path: '/list/-', value: 2 }, { op: 'remove', path: '/missing' }] },
    { type: 'STATE_DELTA', delta: [{ op: 'add', path: '/list/0/m', value: 2 }, { op: 'replace', path: '/start', value: 'changed' }] },
    { type: 'STATE_SNAPSHOT', snapshot: { fresh: [1] } },
    { type: 'STATE_DELTA', delta: [{ op: 'add', path: '/fresh/-', value: 2 }] },
    { type: 'STATE_DELTA', delta: [{ op: 'copy', from: '/fresh', path: '/again' }, { op: 'add', path: '/again/-', value: 3 }] },
  ];
  const expected = [
    { start: true, list: [] },
    { start: true, list: [{ n: 1 }] },
    { start: true, list: [{ n: 1 }] },
    { start: 'changed', list: [{ n: 1, m: 2 }] },
    { fresh: [1] },
    { fresh: [1, 2] },
    { fresh: [1, 2], again: [1, 2, 3] },
  ];
  const track = (): { steps: StateStep[]; tracker: StateTracker; sink: FindingSink } => {
    const sink = new FindingSink('1.0');
    const steps: StateStep[] = [];
    const tracker = new StateTracker(sink, { start: true }, (s) => steps.push(s));
    events.forEach((e, i) => tracker.handle(e, i));
    return { steps, tracker, sink };
  };

  it('records each step, the failed delta leaving the state as it was', () => {
    const { steps, tracker, sink } = track();
    assert.deepEqual(steps.map((s) => [s.event, s.failed]), events.map((_, i) => [i, i === 2]));
    assert.deepEqual(steps.map((s) => s.state), expected);
    assert.deepEqual(tracker.state, expected.at(-1));
    assert.deepEqual(sink.findings.map((f) => [f.rule, f.event, f.path]), [['state/patch-failed', 2, '/delta/1']]);
  });
  it('gives the same states read last first, and leaves the events as they were sent', () => {
    const sent = JSON.stringify(events);
    const { steps } = track();
    assert.deepEqual([...steps].reverse().map((s) => s.state), [...expected].reverse());
    assert.deepEqual(steps.map((s) => s.state), expected, 'a second reading is the first');
    assert.equal(JSON.stringify(events), sent);
  });
});
