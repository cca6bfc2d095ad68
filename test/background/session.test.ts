/**
 * A tab's session without a browser: capture messages in, the worker's analysis out, exactly as the CLI
 * analyses the same bytes; resent batches, pause, the byte cap and a restart's replay behave as the worker
 * relies on.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Budget, Session } from '../../background/session.ts';
import { analyzeExchanges, type ExchangeReport } from '../../src/analyzer/index.ts';
import { DETAIL_PARTS, SessionReader } from '../../src/detail/index.ts';
import { DEFAULT_LIMITS, type PageMessage } from '../../src/messages.ts';

const utf8 = new TextEncoder();
const input = (runId: string) => JSON.stringify({ threadId: 't1', runId, protocolVersion: '1.0', messages: [] });
const body = (runId: string, finish = true) =>
  [
    { type: 'RUN_STARTED', threadId: 't1', runId, protocolVersion: '1.0' },
    { type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' },
    { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'héllo' },
    { type: 'TEXT_MESSAGE_END', messageId: 'm1' },
    ...(finish ? [{ type: 'RUN_FINISHED', threadId: 't1', runId }] : []),
  ].map((e) => `data: ${JSON.stringify(e)}\n\n`).join('');

/** One exchange as the page script reports it, its body split in `parts` chunks (mid-character too). */
function exchange(id: number, runId: string, parts = 3, finish = true): PageMessage[] {
  const bytes = utf8.encode(body(runId, finish));
  const size = Math.ceil(bytes.length / parts);
  const chunks: PageMessage[] = [];
  for (let at = 0, t = 2; at < bytes.length; at += size, t++) chunks.push({ k: 'chunk', id, t, bytes: bytes.slice(at, at + size) });
  return [
    { k: 'open', id, api: 'fetch', t: 1, method: 'POST', url: 'http://127.0.0.1/agent', requestContentType: 'application/json', requestBody: input(runId), requestBodyNote: null },
    { k: 'response', id, t: 1.5, status: 200, statusText: 'OK', contentType: 'text/event-stream', url: 'http://127.0.0.1/agent', redirected: false, reconstructed: false },
    ...chunks,
    { k: 'end', id, t: 10, outcome: 'complete', error: null },
  ];
}

const drain = (s: Session) => {
  const applied = [];
  while (s.busy) applied.push(...s.work(() => false));
  return applied;
};
const reports = (s: Session) => s.captured().map((x) => x.analysis!.report!);
/** A report without its name: the worker names an exchange by its URL, a file reader by the file. */
const unnamed = ({ source: _, ...r }: ExchangeReport) => r;

describe('Session (the worker’s per-tab capture), in Node', () => {
  it('analyses what it is sent exactly as the CLI analyses the same bytes, across exchanges', () => {
    const s = new Session(1, 'http://127.0.0.1/', false, DEFAULT_LIMITS);
    assert.equal(s.receive('doc', 1, [...exchange(1, 'r1'), ...exchange(2, 'r2', 5, false)]), true);
    const applied = drain(s);
    assert.deepEqual(applied.map((a) => [a.doc, a.seq, a.kept.length]), [['doc', 1, 2 * 2 + 3 + 5 + 2]]);
    const exchanges = s.captured();
    assert.equal(exchanges.length, 2);
    const cli = analyzeExchanges(exchanges).map(unnamed);
    assert.deepEqual(reports(s).map(unnamed), cli);
    assert.equal(cli[1]!.verdict, 'failed', 'the second run was cut short');
  });

  it('works in bounded steps: pausing after every step still reaches the same analysis', () => {
    const whole = new Session(1, 'u', false, DEFAULT_LIMITS);
    whole.receive('doc', 1, exchange(1, 'r1', 40));
    drain(whole);
    const stepped = new Session(1, 'u', false, DEFAULT_LIMITS);
    stepped.receive('doc', 1, exchange(1, 'r1', 40));
    let steps = 0;
    while (stepped.busy) {
      stepped.work(() => true);
      steps++;
    }
    assert.ok(steps > 40, `${steps} steps`);
    assert.deepEqual(reports(stepped), reports(whole));
  });

  it('ignores a batch it received already (a relay resending after a restart), and records nothing while paused', () => {
    const s = new Session(1, 'u', false, DEFAULT_LIMITS);
    assert.equal(s.receive('doc', 1, exchange(1, 'r1')), true);
    assert.equal(s.receive('doc', 1, exchange(1, 'r1')), false);
    drain(s);
    s.recording = false;
    s.receive('doc', 2, exchange(2, 'r2'));
    drain(s);
    assert.equal(s.captured().length, 1);
  });

  it('keeps which documents the page script did not reach, once each, until reached after all or navigated away from', () => {
    const s = new Session(1, 'http://127.0.0.1/', false, DEFAULT_LIMITS);
    assert.equal(s.pageScript('top', 'http://127.0.0.1/', true), false, 'a document reached is no news');
    assert.equal(s.pageScript('top', 'http://127.0.0.1/', false), true);
    assert.equal(s.pageScript('top', 'http://127.0.0.1/', false), false, 'told again on a new connection');
    s.pageScript('frame', 'http://127.0.0.1/frame', false);
    s.pageScript('again', 'http://127.0.0.1/', false);
    assert.deepEqual(s.stats().unreached, ['http://127.0.0.1/', 'http://127.0.0.1/frame']);
    assert.equal(s.pageScript('frame', 'http://127.0.0.1/frame', true), true);
    assert.deepEqual(s.stats().unreached, ['http://127.0.0.1/']);
    s.reset(s.url);
    assert.deepEqual(s.stats().unreached, ['http://127.0.0.1/'], 'cleared, the document still captures nothing');
    s.reset('http://127.0.0.1/next', true);
    assert.deepEqual(s.stats().unreached, []);
    for (let i = 0; i < 100; i++) s.pageScript(`frame${i}`, `http://127.0.0.1/${i}`, false);
    assert.ok(s.stats().unreached.length < 100, 'bounded, whatever the page\'s frames do');
  });

  it('caps the bytes it holds: the exchange is marked capped, the drop counted, its analysis stops there', () => {
    const s = new Session(1, 'u', false, { maxEvents: DEFAULT_LIMITS.maxEvents, maxBytes: 200 });
    s.receive('doc', 1, exchange(1, 'r1', 6));
    drain(s);
    const a = s.captured()[0]!.analysis!;
    assert.equal(a.capped, true);
    assert.ok(s.stats().dropped.chunks > 0);
    assert.ok(!a.report!.findings.some((f) => f.rule === 'lifecycle/truncated'), 'a capped stream is not judged as if it ended there');
  });

  it('counts every stored byte against the tab\'s cap, URLs and heads too: long query strings cannot hide', () => {
    const url = `http://127.0.0.1/agent?q=${'x'.repeat(8000)}`;
    const long = (id: number) => exchange(id, `r${id}`).map((m) => (m.k === 'open' || m.k === 'response' ? { ...m, url } : m));
    const one = new Session(1, 'u', false, DEFAULT_LIMITS);
    one.receive('doc', 1, long(1));
    drain(one);
    const held = one.stats().bytes;
    const bodies = input('r1').length + utf8.encode(body('r1')).length;
    assert.ok(held >= bodies + 2 * url.length, `both URLs count (${held} bytes held, ${bodies} of bodies)`);
    // A cap that fits three such exchanges holds three, and refuses the rest whole, counting them.
    const s = new Session(1, 'u', false, { maxEvents: DEFAULT_LIMITS.maxEvents, maxBytes: held * 3 + 10 });
    for (let id = 1; id <= 20; id++) s.receive('doc', id, long(id));
    drain(s);
    assert.equal(s.captured().length, 3);
    assert.ok(s.stats().bytes <= held * 3 + 10, 'never over the cap');
    assert.equal(s.stats().dropped.exchanges, 17, 'the refused exchanges are counted');
    assert.ok(s.stats().dropped.bytes >= 17 * url.length, 'and their bytes');
    assert.equal(s.stats().dropped.rejected, 0, 'their later messages are let go quietly, not as rejected');
  });

  it('a cap across tabs: sessions sharing a budget hold no more than it together, and a reset gives its share back', () => {
    const one = new Session(9, 'u', false, DEFAULT_LIMITS);
    one.receive('doc', 1, exchange(1, 'r1'));
    drain(one);
    const size = one.stats().bytes;
    const budget = new Budget(size * 2 + 10);
    const tabs = [1, 2, 3].map((tab) => new Session(tab, 'u', false, DEFAULT_LIMITS, undefined, budget));
    for (const [i, t] of tabs.entries()) {
      t.receive('doc', 1, exchange(1, `r${i}`));
      drain(t);
    }
    assert.deepEqual(tabs.map((t) => t.captured().length), [1, 1, 0], 'the third tab is over the total cap');
    assert.equal(tabs[2]!.stats().dropped.exchanges, 1, 'and says what it dropped');
    assert.ok(budget.held <= budget.max);
    tabs[0]!.reset('u');
    assert.equal(budget.held, size, 'a cleared (or closed) tab frees its bytes');
    tabs[2]!.receive('doc', 2, exchange(2, 'again'));
    drain(tabs[2]!);
    assert.equal(tabs[2]!.captured().length, 1, 'so another tab may capture again');
  });

  it('after a restart, replaying the stored log restores the same session and answers once restored', async () => {
    const live = new Session(1, 'u', false, DEFAULT_LIMITS);
    live.receive('doc', 1, exchange(1, 'r1'));
    const log = drain(live).map((a) => ({ doc: a.doc, msgs: a.kept }));
    const restarted = new Session(1, 'u', false, DEFAULT_LIMITS);
    restarted.docs = { doc: 1 };
    restarted.replay(log);
    let restored = false;
    void restarted.restored.then(() => (restored = true));
    drain(restarted);
    await Promise.resolve();
    assert.equal(restored, true);
    assert.deepEqual(reports(restarted), reports(live));
    assert.equal(restarted.receive('doc', 1, exchange(1, 'r1')), false, 'what was stored is not taken again');
  });

  it('marks a resend only for an act it has outstanding, keeps the mark in its log across a restart, and judges an input without recording it', () => {
    const live = new Session(1, 'u', false, DEFAULT_LIMITS);
    const opened: string[] = [];
    live.acts.set(77, { of: 'doc:1', opened: (id) => opened.push(id) });
    const by = (msgs: PageMessage[], ref: number): PageMessage[] => msgs.map((m) => (m.k === 'open' ? { ...m, by: ref } : m));
    live.receive('doc', 1, exchange(1, 'r1'));
    // A page claiming a ref nobody asked for (5), and then the act the worker sent (77); the same ref twice is the page's own.
    live.receive('doc', 2, [...by(exchange(2, 'r2'), 5), ...by(exchange(3, 'r3'), 77), ...by(exchange(4, 'r4'), 77)]);
    const log = drain(live).map((a) => ({ doc: a.doc, msgs: a.kept }));
    const marks = (s: Session) => s.snapshot().exchanges.map((x) => x.resentFrom ?? null);
    assert.deepEqual(marks(live), [null, null, 'doc:1', null]);
    assert.deepEqual(opened, ['doc:3']);
    assert.equal(live.acts.size, 0);
    assert.ok(log.flatMap((r) => r.msgs).every((m) => m.k !== 'open' || !('by' in m)), 'the log keeps the resolved mark, not the ref');
    const restarted = new Session(1, 'u', false, DEFAULT_LIMITS);
    restarted.docs = { doc: 2 };
    restarted.replay(log);
    drain(restarted);
    assert.deepEqual(marks(restarted), marks(live));

    // Judged against the thread as the session left it; judging records nothing.
    const judged = live.checkInput(input('r5'));
    assert.equal(judged.verdict, 'valid');
    assert.deepEqual(judged.uncovered, []);
    assert.equal(live.checkInput('{').verdict, 'invalid');
    assert.equal(live.snapshot().exchanges.length, 4);
  });

  it('marks an exchange answered from a recording only for a ref the worker handed out for it, and keeps the mark across a restart', () => {
    const live = new Session(1, 'u', false, DEFAULT_LIMITS);
    const mark = { from: 'doc:1', pace: 2, idsRewritten: true, faults: ['cut@3'] };
    live.answering.set(41, mark);
    const by = (msgs: PageMessage[], ref: number): PageMessage[] => msgs.map((m) => (m.k === 'open' ? { ...m, by: ref } : m));
    live.receive('doc', 1, [...exchange(1, 'r1'), ...by(exchange(2, 'r2'), 40), ...by(exchange(3, 'r3'), 41), ...by(exchange(4, 'r4'), 41)]);
    const log = drain(live).map((a) => ({ doc: a.doc, msgs: a.kept }));
    const marks = (s: Session) => s.snapshot().exchanges.map((x) => x.override ?? null);
    assert.deepEqual(marks(live), [null, null, mark, null]);
    assert.equal(live.answering.size, 0);
    assert.deepEqual(live.captured().map((x) => x.override ?? null), [null, null, mark, null], 'the export carries it');
    const restarted = new Session(1, 'u', false, DEFAULT_LIMITS);
    restarted.replay(log);
    drain(restarted);
    assert.deepEqual(marks(restarted), marks(live));
  });

  it("answers each part of an exchange's detail from the analysis that judged it, the same as a reading of the same bytes", () => {
    const s = new Session(1, 'u', false, DEFAULT_LIMITS);
    s.receive('doc', 1, [...exchange(1, 'r1'), ...exchange(2, 'r2')]);
    drain(s);
    const reading = new SessionReader();
    const readings = s.captured().map((x) => {
      const r = reading.read({ source: x.source, requestBody: x.requestBody, contentType: x.responseContentType, status: x.status, sentAt: Date.parse(x.startedDateTime!), arrival: x.arrival });
      for (const c of x.chunks) r.push(c.bytes, c.time);
      r.end(x.chunks.at(-1)!.time);
      return r;
    });
    for (const part of DETAIL_PARTS) assert.deepEqual(s.detail('doc:2', part), readings[1]!.part(part), part);
    assert.equal(s.detail('doc:2', 'timing')?.source, 'chunks', 'a tab recorded when each chunk arrived');
    assert.deepEqual(s.detail('doc:2', 'conversation')?.map((m) => m.content), ['héllo']);
    assert.equal(s.detail('doc:9', 'input'), null, 'an exchange it does not hold');
    assert.equal(s.stateAt('doc:2', 0), null, 'no state step on this stream');
    assert.equal(s.stateDiff('doc:2', 0), null, 'nor a diff of one');
    const steps = readings[1]!.part('conversationSteps');
    assert.ok(steps.length > 0);
    for (let n = 0; n < steps.length; n++) {
      assert.deepEqual(s.conversationDiff('doc:2', n), readings[1]!.conversationDiff(n), `conversation step ${n}`);
      assert.deepEqual(s.conversationAt('doc:2', n), readings[1]!.conversationAt(n), `conversation step ${n}`);
    }
    assert.equal(s.conversationDiff('doc:2', steps.length), null);
  });

  it('keeps what changed for the subscribed panels when someone asks for a snapshot meanwhile', () => {
    const s = new Session(1, 'http://127.0.0.1/', false, DEFAULT_LIMITS);
    s.receive('doc', 1, exchange(1, 'r1'));
    drain(s);
    const snapshot = s.snapshot().exchanges;
    // Asked between the change and the worker's telling the panels (a test polls the session so), it used to take the change.
    const changes = s.takeChanges();
    assert.deepEqual(changes.map((c) => [c.exchange.id, c.exchange.outcome, c.events.length]), [['doc:1', 'complete', snapshot[0]!.events.length]]);
    assert.ok(changes[0]!.events.length > 0 && changes[0]!.exchange.report !== null);
    assert.deepEqual(s.takeChanges(), [], 'told once');
  });

  it("tells the panels an earlier exchange changed when a later request answers its pending tool calls", () => {
    const s = new Session(1, 'http://127.0.0.1/', false, DEFAULT_LIMITS);
    const tools = [{ name: 'confirm', description: 'asks the user', parameters: { type: 'object', properties: { ok: { type: 'boolean' } } } }];
    const sse = (evs: object[]) => utf8.encode(evs.map((e) => `data: ${JSON.stringify(e)}\n\n`).join(''));
    const one = (id: number, runId: string, messages: object[], evs: object[]): PageMessage[] => [
      { k: 'open', id, api: 'fetch', t: 1, method: 'POST', url: 'http://127.0.0.1/agent', requestContentType: 'application/json', requestBody: JSON.stringify({ threadId: 't1', runId, protocolVersion: '1.0', messages, tools }), requestBodyNote: null },
      { k: 'response', id, t: 1.5, status: 200, statusText: 'OK', contentType: 'text/event-stream', url: 'http://127.0.0.1/agent', redirected: false, reconstructed: false },
      { k: 'chunk', id, t: 2, bytes: sse([{ type: 'RUN_STARTED', threadId: 't1', runId }, ...evs, { type: 'RUN_FINISHED', threadId: 't1', runId }]) },
      { k: 'end', id, t: 3, outcome: 'complete', error: null },
    ];
    s.receive('doc', 1, one(1, 'r1', [], [{ type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'confirm' }, { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '{"ok":"yes"}' }, { type: 'TOOL_CALL_END', toolCallId: 'c1' }]));
    drain(s);
    s.takeChanges();
    assert.deepEqual(s.detail('doc:1', 'toolCalls')!.map((c) => [c.args.status, c.result, c.later]), [['invalid', 'pending', null]]);
    const history = [{ id: 'c1', role: 'assistant', toolCalls: [{ id: 'c1', type: 'function', function: { name: 'confirm', arguments: '{"ok":"yes"}' } }] }, { id: 't1', role: 'tool', toolCallId: 'c1', content: 'confirmed' }];
    s.receive('doc', 2, one(2, 'r2', history, []));
    drain(s);
    assert.deepEqual(s.takeChanges().map((c) => c.exchange.id), ['doc:1', 'doc:2'], 'the first exchange is sent again');
    assert.deepEqual(s.detail('doc:1', 'toolCalls')!.map((c) => [c.result, c.later]), [['present', { runId: 'r2', answered: true }]]);
  });
});
