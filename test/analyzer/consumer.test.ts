/**
 * The consumer model's reconciliation, rule by rule of events/state#messages_snapshot, the conversation
 * after any step with what it changed (src/detail/conversation.ts), and what a rejected terminal event
 * leaves said about the run. What the model holds is checked against the real clients in
 * consumer-differential.test.ts; here each rule is named on its own.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeExchange, ConsumerModel, ExchangeAnalyzer, type HeldMessage } from '../../src/analyzer/index.ts';
import { ExchangeReading } from '../../src/detail/index.ts';

const ids = (m: ConsumerModel): unknown[] => m.messages.map((x) => x.id);

function held(history: unknown[], events: object[], legacy = false): ConsumerModel {
  const model = new ConsumerModel({ history, legacy: () => legacy });
  events.forEach((e, i) => model.apply(e as never, i));
  return model;
}

const user = (id: string, content = 'hi'): HeldMessage => ({ id, role: 'user', content });

describe('MESSAGES_SNAPSHOT reconciliation (events/state#messages_snapshot)', () => {
  it('a held message is replaced in place: it keeps its position whatever the snapshot order', () => {
    const m = held([user('a'), user('b')], [{ type: 'MESSAGES_SNAPSHOT', messages: [user('b', 'edited'), user('a', 'edited too')] }]);
    assert.deepEqual(ids(m), ['a', 'b']);
    assert.deepEqual(m.messages.map((x) => x.content), ['edited too', 'edited']);
  });

  it('a message never seen is appended, in snapshot order', () => {
    const m = held([user('a')], [{ type: 'MESSAGES_SNAPSHOT', messages: [user('c'), user('a'), user('b')] }]);
    assert.deepEqual(ids(m), ['a', 'c', 'b']);
  });

  it('a held message absent from the snapshot is dropped', () => {
    const m = held([user('a'), user('b')], [{ type: 'MESSAGES_SNAPSHOT', messages: [user('b')] }]);
    assert.deepEqual(ids(m), ['b']);
  });

  it('activity and reasoning messages survive a snapshot that carries none of their role', () => {
    const m = held([user('a')], [
      { type: 'ACTIVITY_SNAPSHOT', messageId: 'act', activityType: 'PLAN', content: { steps: [] } },
      { type: 'REASONING_MESSAGE_START', messageId: 'r', role: 'reasoning' },
      { type: 'MESSAGES_SNAPSHOT', messages: [user('a')] },
    ]);
    assert.deepEqual(ids(m), ['a', 'act', 'r']);
  });

  it('the exception is per role and self-revoking: a snapshot carrying an activity (reasoning) message drops the others of that role', () => {
    const events = [
      { type: 'ACTIVITY_SNAPSHOT', messageId: 'act-1', activityType: 'PLAN', content: {} },
      { type: 'REASONING_MESSAGE_START', messageId: 'r-1', role: 'reasoning' },
      { type: 'MESSAGES_SNAPSHOT', messages: [user('a'), { id: 'act-2', role: 'activity', activityType: 'PLAN', content: {} }] },
    ];
    assert.deepEqual(ids(held([user('a')], events)), ['a', 'r-1', 'act-2']);
    const reasoning = [events[0], events[1], { type: 'MESSAGES_SNAPSHOT', messages: [user('a'), { id: 'r-2', role: 'reasoning', content: '' }] }];
    assert.deepEqual(ids(held([user('a')], reasoning as object[])), ['a', 'act-1', 'r-2']);
  });

  it('1.0.0 lets the snapshot name its authoritative activity types in metadata; the pre-1.0 client does not know them', () => {
    const events = [
      { type: 'ACTIVITY_SNAPSHOT', messageId: 'plan', activityType: 'PLAN', content: {} },
      { type: 'ACTIVITY_SNAPSHOT', messageId: 'form', activityType: 'FORM', content: {} },
      { type: 'MESSAGES_SNAPSHOT', messages: [user('a')], metadata: { '@ag-ui/client': { authoritativeActivityTypes: ['PLAN'] } } },
    ];
    assert.deepEqual(ids(held([user('a')], events)), ['a', 'form']);
    assert.deepEqual(ids(held([user('a')], events, true)), ['a', 'plan', 'form']);
  });
});

describe('lookups by id and by call after a tool result is filed mid-conversation', () => {
  const call = (id: string) => ({ id, type: 'function', function: { name: 'f', arguments: '{}' } });

  it('a later message moved by the insert is still the one its events reach', () => {
    const events = [0, 1, 2].flatMap((i) => [
      { type: 'TOOL_CALL_START', toolCallId: `c${i}`, toolCallName: 'f', parentMessageId: `a${i}` },
      { type: 'TOOL_CALL_END', toolCallId: `c${i}` },
      { type: 'TEXT_MESSAGE_START', messageId: `n${i}`, role: 'assistant' },
      { type: 'TOOL_CALL_RESULT', messageId: `r${i}`, toolCallId: `c${i}`, content: `result ${i}` },
    ]);
    const m = held([], [...events, ...[0, 1, 2].map((i) => ({ type: 'TEXT_MESSAGE_CONTENT', messageId: `n${i}`, delta: `note ${i}` }))]);
    assert.deepEqual(ids(m), ['a0', 'r0', 'n0', 'a1', 'r1', 'n1', 'a2', 'r2', 'n2']);
    assert.deepEqual(m.messages.map((x) => x.content ?? (x.toolCalls as { id: string }[])[0]!.id), ['c0', 'result 0', 'note 0', 'c1', 'result 1', 'note 1', 'c2', 'result 2', 'note 2']);
  });

  it('an id held twice is found at its first place, also when the insert puts a new first one before both', () => {
    const history = [user('u'), { id: 'a', role: 'assistant', toolCalls: [call('c1'), call('c2')] }, { id: 'x', role: 'assistant', content: '' }, { id: 'x', role: 'assistant', content: '' }];
    const m = held(history, [
      { type: 'TOOL_CALL_RESULT', messageId: 'r1', toolCallId: 'c1', content: 'one' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'x', delta: 'A' },
      // A result reusing the id: filed before both held ones, it is the first "x" now.
      { type: 'TOOL_CALL_RESULT', messageId: 'x', toolCallId: 'c2', content: 'two' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'x', delta: 'B' },
    ]);
    assert.deepEqual(ids(m), ['u', 'a', 'r1', 'x', 'x', 'x']);
    assert.deepEqual(m.messages.map((x) => x.content), ['hi', undefined, 'one', 'twoB', 'A', '']);
  });

  it('a result is filed under the first assistant message holding its call, after the results already there', () => {
    const history = [{ id: 'u', role: 'user', content: 'hi', toolCalls: [call('c')] }, { id: 'a', role: 'assistant', toolCalls: [call('c')] }, user('later')];
    const m = held(history, [
      { type: 'TOOL_CALL_RESULT', messageId: 'r1', toolCallId: 'c', content: 'one' },
      { type: 'TOOL_CALL_RESULT', messageId: 'r2', toolCallId: 'c', content: 'two' },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'c', delta: 'more' },
    ]);
    assert.deepEqual(ids(m), ['u', 'a', 'r1', 'r2', 'later']);
    // The arguments go to the first message holding the call, whatever its role, as the reference's lookup does.
    assert.deepEqual(m.messages.map((x) => (x.toolCalls as { function: { arguments: string } }[] | undefined)?.[0]?.function.arguments), ['{}more', '{}', undefined, undefined, undefined]);
  });
});

describe('what the model reports', () => {
  function analyse(input: object, events: object[]) {
    const a = new ExchangeAnalyzer({ source: 'x', requestBody: JSON.stringify(input), contentType: 'text/event-stream' });
    a.push(new TextEncoder().encode(events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('')), 0);
    a.end(0);
    return a;
  }
  const input = { threadId: 't', runId: 'r', protocolVersion: '1.0', messages: [user('u')] };

  it('a snapshot dropping a message the client sent is the producer declaring its set, not its own message dropped', () => {
    const a = analyse(input, [
      { type: 'RUN_STARTED', threadId: 't', runId: 'r' },
      { type: 'TEXT_MESSAGE_START', messageId: 'm', role: 'assistant' },
      { type: 'TEXT_MESSAGE_END', messageId: 'm' },
      { type: 'MESSAGES_SNAPSHOT', messages: [{ id: 'm', role: 'assistant', content: 'summary' }] },
      { type: 'RUN_FINISHED', threadId: 't', runId: 'r' },
    ]);
    assert.deepEqual(a.report().findings.filter((f) => f.category === 'conversation'), []);
    assert.deepEqual(ids(a.consumer), ['m']);
  });

  it('a report, holding only a digest of streamed text, finds the counterpart of a dropped message as the text would', () => {
    const stream = (snapshotText: string) => [
      { type: 'RUN_STARTED', threadId: 't', runId: 'r' },
      { type: 'TEXT_MESSAGE_START', messageId: 'm', role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: 'hel' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: 'lo' },
      { type: 'TEXT_MESSAGE_END', messageId: 'm' },
      { type: 'MESSAGES_SNAPSHOT', messages: [user('u'), { id: 'm2', role: 'assistant', content: snapshotText }] },
      { type: 'RUN_FINISHED', threadId: 't', runId: 'r' },
    ];
    for (const [text, says] of [['hello', /listing its counterpart as "m2"/], ['hellO', /: the consumer drops it/], ['hell', /: the consumer drops it/]] as const) {
      const events = stream(text);
      const body = new TextEncoder().encode(events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join(''));
      const digested = analyzeExchange({ source: 'x', requestBody: JSON.stringify(input), responseContentType: 'text/event-stream' }, [{ time: 0, bytes: body }]);
      const [f] = digested.findings.filter((g) => g.category === 'conversation');
      assert.match(f!.message, says);
      assert.deepEqual(digested.findings, analyse(input, events).report().findings);
    }
  });

  it('a re-streamed call that restates no arguments says its arguments stay as they were', () => {
    const a = analyse({ ...input, messages: [user('u'), { id: 'a1', role: 'assistant', toolCalls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"x":1}' } }] }] }, [
      { type: 'RUN_STARTED', threadId: 't', runId: 'r' },
      { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'f', parentMessageId: 'a1' },
      { type: 'TOOL_CALL_END', toolCallId: 'c1' },
      { type: 'RUN_FINISHED', threadId: 't', runId: 'r' },
    ]);
    const [f, ...rest] = a.report().findings.filter((g) => g.category === 'tool-call' || g.category === 'conversation');
    assert.equal(rest.length, 0);
    assert.equal(f?.rule, 'tool-call/restreamed');
    assert.match(f!.message, /its arguments stay "\{\\"x\\":1\}"/);
  });

  it('a malformed RUN_FINISHED is named by the truncation it leaves (§4 of issue 19: CopilotKit\'s bare finalizer after Stop)', () => {
    const a = analyse(input, [{ type: 'RUN_STARTED', threadId: 't', runId: 'r' }, { type: 'RUN_FINISHED' }]);
    const truncated = a.report().findings.find((f) => f.rule === 'lifecycle/truncated');
    assert.ok(a.report().findings.some((f) => f.rule === 'schema/malformed' && f.event === 1));
    assert.equal(truncated?.message, 'The stream ended while run "r" was active: the RUN_FINISHED at event 1 was malformed and rejected, and no well-formed RUN_FINISHED or RUN_ERROR followed, so the run has no outcome');
  });
});

describe('the conversation after any step, and what the step changed', () => {
  it('replays the exchange to any step: the streamed message growing, then the snapshot that drops it', () => {
    const reading = new ExchangeReading({
      source: 'x',
      requestBody: JSON.stringify({ threadId: 't', runId: 'r', protocolVersion: '1.0', messages: [user('u')] }),
      contentType: 'text/event-stream',
    });
    const events = [
      { type: 'RUN_STARTED', threadId: 't', runId: 'r' },
      { type: 'TEXT_MESSAGE_START', messageId: 'm', role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: 'Hel' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: 'lo' },
      { type: 'TEXT_MESSAGE_END', messageId: 'm' },
      { type: 'MESSAGES_SNAPSHOT', messages: [user('u'), { id: 'm2', role: 'assistant', content: 'Hello' }] },
      { type: 'RUN_FINISHED', threadId: 't', runId: 'r' },
    ];
    reading.push(new TextEncoder().encode(events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('')), 0);
    reading.end(0);
    // TEXT_MESSAGE_END without metadata and the run boundaries change nothing: they are no steps.
    assert.deepEqual(reading.part('conversationSteps'), [
      { event: 1, type: 'TEXT_MESSAGE_START' },
      { event: 2, type: 'TEXT_MESSAGE_CONTENT' },
      { event: 3, type: 'TEXT_MESSAGE_CONTENT' },
      { event: 5, type: 'MESSAGES_SNAPSHOT' },
    ]);
    const grown = reading.conversationAt(2)!;
    assert.deepEqual(grown.messages.map((m) => [m.id, m.content, m.event, m.origin]), [['u', 'hi', null, 'input'], ['m', 'Hello', 3, 'stream']]);
    assert.deepEqual(reading.conversationDiff(2)!.changes, [{ change: 'replaced', id: 'm', role: 'assistant', kind: 'message' }]);
    const snap = reading.conversationDiff(3)!;
    assert.deepEqual(snap.changes.map((c) => [c.change, c.id]), [['dropped', 'm'], ['added', 'm2']]);
    assert.deepEqual(reading.conversationAt(3)!.messages, reading.part('conversation'));
    assert.equal(reading.conversationAt(4), null);
    assert.equal(reading.conversationAt(-1), null);
    assert.equal(reading.conversationDiff(4), null);
  });
});
