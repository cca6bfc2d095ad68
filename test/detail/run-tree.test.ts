/**
 * The run tree (src/detail/run-tree.ts) on exchanges analysed for real: subagent invocations as the
 * reading keeps them, and the thread's runs nested across exchanges.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ExchangeReading, runTree, type RunTreeNode, type ThreadExchange } from '../../src/detail/index.ts';

const enc = new TextEncoder();
const T = 'thread-1';

function analysed(exchangeId: string, input: object, events: object[]): ThreadExchange {
  const reading = new ExchangeReading({ source: exchangeId, requestBody: JSON.stringify(input), contentType: 'text/event-stream', status: 200 });
  reading.push(enc.encode(events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('')), 0);
  reading.end(0);
  const report = reading.report();
  return { exchangeId, report, subagents: reading.part('subagents', report) };
}

const input = (runId: string, extra: object = {}): object => ({ threadId: T, runId, protocolVersion: '1.0', messages: [{ id: 'u', role: 'user', content: 'go' }], ...extra });
const started = (runId: string, extra: object = {}): object => ({ type: 'RUN_STARTED', threadId: T, runId, ...extra });
const finished = (runId: string, extra: object = {}): object => ({ type: 'RUN_FINISHED', threadId: T, runId, ...extra });
const said = (id: string, owner?: string): object[] => {
  const by = owner === undefined ? {} : { subagentRunId: owner };
  return [
    { type: 'TEXT_MESSAGE_START', messageId: id, role: 'assistant', ...by },
    { type: 'TEXT_MESSAGE_CONTENT', messageId: id, delta: 'hi', ...by },
    { type: 'TEXT_MESSAGE_END', messageId: id, ...by },
  ];
};

/** The tree as `kind:id(outcome)[children]`, to compare whole. */
const shape = (nodes: RunTreeNode[]): string => nodes.map((n) => `${n.kind}:${n.id}(${n.outcome}${n.parentUnknown ? ',parent?' : ''}${n.replayed ? ',replayed' : ''})${n.children.length ? `[${shape(n.children)}]` : ''}`).join(' ');

describe('subagent invocations of one exchange', () => {
  test('nested subagents, each with how it ended and the findings on its own events', () => {
    const x = analysed('x1', input('r1'), [
      started('r1'),
      { type: 'SUBAGENT_STARTED', subagentRunId: 'planner', name: 'Planner' },
      ...said('p1', 'planner'),
      { type: 'SUBAGENT_STARTED', subagentRunId: 'searcher', name: 'Searcher', parentSubagentRunId: 'planner' },
      ...said('s1', 'searcher'),
      // A message end for a message never started: one finding, on the searcher's event.
      { type: 'TEXT_MESSAGE_END', messageId: 'nowhere', subagentRunId: 'searcher' },
      { type: 'SUBAGENT_ERROR', subagentRunId: 'searcher', message: 'index offline' },
      { type: 'SUBAGENT_FINISHED', subagentRunId: 'planner', outcome: { type: 'success' } },
      finished('r1'),
    ]);
    const rows = x.subagents!;
    assert.deepEqual(rows.map((s) => [s.id, s.name, s.parent, s.announced, s.outcome]), [
      ['planner', 'Planner', null, true, 'success'],
      ['searcher', 'Searcher', 'planner', true, 'error'],
    ]);
    const onSearcher = x.report.findings.filter((f) => f.event === 9);
    assert.ok(onSearcher.length > 0, 'the stray end is a finding');
    assert.deepEqual(rows.map((s) => s.findings), [0, onSearcher.length]);
    assert.equal(shape(runTree([x])), 'run:r1(success)[subagent:planner(success)[subagent:searcher(error)]]');
  });

  test('an invocation known only by the events attributed to it, and one never closed', () => {
    const x = analysed('x1', input('r1'), [
      started('r1'),
      ...said('a1', 'ghost'),
      { type: 'SUBAGENT_STARTED', subagentRunId: 'left-open', name: 'Open' },
      finished('r1'),
    ]);
    assert.deepEqual(x.subagents!.map((s) => [s.id, s.announced, s.outcome, s.startedAt, s.endedAt]), [['ghost', false, 'open', 1, null], ['left-open', true, 'open', 4, null]]);
  });

  test('the same id in two runs of one stream is two invocations, each under its run', () => {
    const x = analysed('x1', input('r2'), [
      started('r1'), { type: 'SUBAGENT_STARTED', subagentRunId: 'helper', name: 'H' }, { type: 'SUBAGENT_FINISHED', subagentRunId: 'helper' }, finished('r1'),
      started('r2'), { type: 'SUBAGENT_STARTED', subagentRunId: 'helper', name: 'H' }, { type: 'SUBAGENT_ERROR', subagentRunId: 'helper', message: 'x' }, finished('r2'),
    ]);
    assert.deepEqual(x.subagents!.map((s) => s.outcome), ['success', 'error']);
    assert.equal(shape(runTree([x])), 'run:r1(success,replayed)[subagent:helper(success)] run:r2(success)[subagent:helper(error)]');
  });

  test('a parent announced after its child leaves the child under the run, marked', () => {
    const x = analysed('x1', input('r1'), [
      started('r1'),
      { type: 'SUBAGENT_STARTED', subagentRunId: 'child', name: 'C', parentSubagentRunId: 'later' },
      { type: 'SUBAGENT_STARTED', subagentRunId: 'later', name: 'L' },
      finished('r1'),
    ]);
    assert.equal(shape(runTree([x])), 'run:r1(success)[subagent:child(open,parent?) subagent:later(open)]');
  });
});

describe("a thread's runs across exchanges", () => {
  test('child runs under their parent, from later exchanges; a parent not held is marked', () => {
    const a = analysed('x1', input('root'), [started('root'), ...said('m1'), finished('root')]);
    const b = analysed('x2', input('child', { parentRunId: 'root' }), [started('child', { parentRunId: 'root' }), ...said('m2'), finished('child', { outcome: { type: 'interrupt', interrupts: [{ id: 'ok?', reason: 'approval' }] } })]);
    const c = analysed('x3', input('grandchild', { parentRunId: 'child' }), [started('grandchild', { parentRunId: 'child' }), { type: 'RUN_ERROR', message: 'boom' }]);
    const orphan = analysed('x4', input('orphan', { parentRunId: 'gone' }), [started('orphan', { parentRunId: 'gone' }), finished('orphan')]);
    assert.equal(shape(runTree([a, b, c, orphan])), 'run:root(success)[run:child(interrupt)[run:grandchild(error)]] run:orphan(success,parent?)');
    const tree = runTree([a, b, c, orphan]);
    assert.equal(tree[0]!.children[0]!.exchangeId, 'x2');
  });

  test('a run a reconnect replays is shown once, from the exchange that requested it', () => {
    const first = analysed('x1', input('r1'), [started('r1'), { type: 'SUBAGENT_STARTED', subagentRunId: 'helper', name: 'H' }, { type: 'SUBAGENT_FINISHED', subagentRunId: 'helper' }, finished('r1')]);
    const reconnect = analysed('x2', input('r2'), [started('r1'), finished('r1'), started('r2'), ...said('m2'), finished('r2')]);
    assert.equal(shape(runTree([first, reconnect])), 'run:r1(success)[subagent:helper(success)] run:r2(success)');
    assert.equal(runTree([reconnect, first])[0]!.exchangeId, 'x1', 'whichever exchange comes first');
  });

  test('while a stream arrives, its last run so far is the requested one: no view reads it as replayed until the end', () => {
    const reading = new ExchangeReading({ source: 'x1', requestBody: JSON.stringify(input('r2')), contentType: 'text/event-stream', status: 200 });
    const live = (): string => {
      const report = reading.report();
      return `${report.runs.map((r) => `${r.runId}:${r.requested ? 'requested' : 'replayed'}`).join(' ')} | ${shape(runTree([{ exchangeId: 'x1', report, subagents: null }]))}`;
    };
    const steps = [started('r1'), finished('r1'), started('r2'), finished('r2')].map((e, i) => {
      reading.push(enc.encode(`data: ${JSON.stringify(e)}\n\n`), i);
      return live();
    });
    assert.deepEqual(steps, [
      'r1:requested | run:r1(running)',
      'r1:requested | run:r1(success)',
      'r1:replayed r2:requested | run:r1(success,replayed) run:r2(running)',
      'r1:replayed r2:requested | run:r1(success,replayed) run:r2(success)',
    ]);
    reading.end(4);
    assert.equal(live(), steps.at(-1), 'the end settles what the last live report said');
    assert.deepEqual(reading.report().findings.filter((f) => f.category === 'identity'), []);
  });

  test('parentRunId chains that loop are cut where they would close: every run shown once', () => {
    const a = analysed('x1', input('a', { parentRunId: 'b' }), [started('a', { parentRunId: 'b' }), finished('a')]);
    const b = analysed('x2', input('b', { parentRunId: 'a' }), [started('b', { parentRunId: 'a' }), finished('b')]);
    const self = analysed('x3', input('s', { parentRunId: 's' }), [started('s', { parentRunId: 's' }), finished('s')]);
    const tree = runTree([a, b, self]);
    const all: string[] = [];
    const walk = (ns: RunTreeNode[]): void => ns.forEach((n) => (all.push(n.id), walk(n.children)));
    walk(tree);
    assert.deepEqual(all.sort(), ['a', 'b', 's']);
    assert.equal(shape(tree), 'run:b(success)[run:a(success)] run:s(success)');
  });

  test('an exchange whose invocations are not known yet shows its runs alone', () => {
    const x = analysed('x1', input('r1'), [started('r1'), { type: 'SUBAGENT_STARTED', subagentRunId: 'h', name: 'H' }, finished('r1')]);
    assert.equal(shape(runTree([{ ...x, subagents: null }])), 'run:r1(success)');
  });
});
