/**
 * What each conversation step changed (src/detail/conversation.ts), read through a real analysis of an SSE
 * stream: each rule of events/state#messages_snapshot as a diff row — in-place replace, append new, drop
 * absent except activity and reasoning, and a held message the snapshot lists elsewhere, whose place the
 * consumer keeps — plus streamed steps, activity rows and a large conversation whose one-message step
 * answers with one row.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ExchangeReading, type ConvDiff } from '../../src/detail/index.ts';

function reading(history: object[], events: object[]): ExchangeReading {
  const r = new ExchangeReading({
    source: 'x', contentType: 'text/event-stream', status: 200,
    requestBody: JSON.stringify({ threadId: 't', runId: 'r', protocolVersion: '1.0', messages: history }),
  });
  const all = [{ type: 'RUN_STARTED', threadId: 't', runId: 'r' }, ...events, { type: 'RUN_FINISHED', threadId: 't', runId: 'r' }];
  r.push(new TextEncoder().encode(all.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('')), 0);
  r.end(1);
  return r;
}

const user = (id: string, content = 'hi') => ({ id, role: 'user', content });
const bot = (id: string, content = 'ok') => ({ id, role: 'assistant', content });
const snapshot = (...messages: object[]) => ({ type: 'MESSAGES_SNAPSHOT', messages });
const rows = (d: ConvDiff | null): string[] => d!.changes.map((c) => `${c.change} ${c.id}`);
/** The diff of the exchange's last conversation step (the snapshot, in these tests). */
const last = (r: ExchangeReading): ConvDiff => r.conversationDiff(r.part('conversationSteps').length - 1)!;

describe('conversation diff', () => {
  test('a held message the snapshot restates differently is replaced in place: before and after, same place', () => {
    const r = reading([user('a'), bot('b')], [snapshot(user('a'), bot('b', 'edited'))]);
    const d = last(r);
    assert.equal(d.type, 'MESSAGES_SNAPSHOT');
    assert.deepEqual(rows(d), ['replaced b']);
    assert.deepEqual([d.changes[0]!.was?.content, d.changes[0]!.now?.content, d.changes[0]!.listed], ['ok', 'edited', 1]);
    assert.deepEqual(r.conversationAt(0)!.messages.map((m) => [m.id, m.content]), [['a', 'hi'], ['b', 'edited']]);
  });

  test('a message restated as it was is no row', () => {
    assert.deepEqual(rows(last(reading([user('a'), bot('b')], [snapshot(user('a'), bot('b'))]))), []);
  });

  test('a message never seen is appended, in snapshot order, after every other row', () => {
    const r = reading([user('a'), user('b')], [snapshot(bot('n1'), user('a', 'changed'), bot('n2'), user('b'))]);
    assert.deepEqual(rows(last(r)), ['replaced a', 'added n1', 'added n2']);
    assert.deepEqual(last(r).changes.filter((c) => c.change === 'added').map((c) => [c.listed, c.now?.content]), [[0, 'ok'], [2, 'ok']]);
    assert.deepEqual(r.conversationAt(0)!.messages.map((m) => m.id), ['a', 'b', 'n1', 'n2']);
  });

  test('a held message absent from the snapshot is dropped, with what it was', () => {
    const r = reading([user('a'), bot('b', 'gone')], [snapshot(user('a'))]);
    const d = last(r);
    assert.deepEqual(rows(d), ['dropped b']);
    assert.equal(d.changes[0]!.was?.content, 'gone');
    assert.equal(d.changes[0]!.now, undefined);
  });

  test('activity and reasoning messages survive a snapshot carrying none of their role, and are shown as activity', () => {
    const r = reading([user('a')], [
      { type: 'ACTIVITY_SNAPSHOT', messageId: 'act', activityType: 'PLAN', content: { steps: [] } },
      { type: 'REASONING_MESSAGE_START', messageId: 'think', role: 'reasoning' },
      { type: 'REASONING_MESSAGE_CONTENT', messageId: 'think', delta: 'hmm' },
      { type: 'REASONING_MESSAGE_END', messageId: 'think' },
      snapshot(user('a'), bot('b')),
    ]);
    assert.deepEqual(rows(last(r)), ['added b']);
    const act = r.conversationDiff(0)!;
    assert.deepEqual(act.changes, [{ change: 'added', id: 'act', role: 'activity', kind: 'activity', activityType: 'PLAN' }]);
    assert.deepEqual(r.conversationAt(3)!.messages.map((m) => m.id), ['a', 'act', 'think', 'b']);
  });

  test('a snapshot carrying an activity (or reasoning) message declares the whole set: the others of that role are dropped', () => {
    const r = reading([user('a')], [
      { type: 'ACTIVITY_SNAPSHOT', messageId: 'act1', activityType: 'PLAN', content: {} },
      { type: 'REASONING_MESSAGE_START', messageId: 'think', role: 'reasoning' },
      snapshot(user('a'), { id: 'act2', role: 'activity', activityType: 'PLAN', content: {} }, { id: 'think2', role: 'reasoning', content: 'x' }),
    ]);
    const d = last(r);
    assert.deepEqual(rows(d), ['dropped act1', 'dropped think', 'added act2', 'added think2']);
    assert.deepEqual(d.changes.map((c) => c.kind), ['activity', 'message', 'activity', 'message']);
  });

  test('a snapshot listing held messages in another order reorders nothing: the fewest that moved are named, in the place the consumer keeps', () => {
    const r = reading([user('a'), bot('b'), user('c'), bot('d')], [snapshot(bot('d'), user('a'), bot('b'), user('c'))]);
    const d = last(r);
    assert.deepEqual(rows(d), ['reordered d']);
    assert.equal(d.changes[0]!.listed, 0);
    assert.equal(d.changes[0]!.was, undefined, 'restated as it was: nothing else changed');
    assert.deepEqual(r.conversationAt(0)!.messages.map((m) => m.id), ['a', 'b', 'c', 'd']);
    const reversed = last(reading([user('a'), bot('b'), user('c')], [snapshot(user('c', 'new'), bot('b', 'new too'), user('a'))]));
    assert.deepEqual(rows(reversed), ['reordered a', 'reordered b', 'replaced c'], 'listed in reverse: two moved around the third');
    assert.deepEqual(reversed.changes.map((c) => c.was?.content ?? null), [null, 'ok', 'hi'], 'a reordered row that also changed says what it was');
  });

  test('one snapshot at once: drop, reorder, replace, add', () => {
    const r = reading([user('u1'), bot('a1'), user('u2'), bot('a2', 'draft')], [snapshot(user('u2'), user('u1'), bot('a2', 'final'), bot('a3'))]);
    assert.deepEqual(rows(last(r)), ['reordered u1', 'dropped a1', 'replaced a2', 'added a3']);
  });

  test('streamed steps: a message added, then replaced as it grows; a tool result added after its call', () => {
    const r = reading([user('u')], [
      { type: 'TEXT_MESSAGE_START', messageId: 'm', role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: 'Hi' },
      { type: 'TOOL_CALL_START', toolCallId: 'c', toolCallName: 'f', parentMessageId: 'm' },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'c', delta: '{}' },
      { type: 'TOOL_CALL_END', toolCallId: 'c' },
      { type: 'TOOL_CALL_RESULT', messageId: 't', toolCallId: 'c', content: 'done' },
    ]);
    const steps = r.part('conversationSteps');
    assert.deepEqual(steps.map((_, n) => rows(r.conversationDiff(n))), [['added m'], ['replaced m'], ['replaced m'], ['replaced m'], ['added t']]);
    assert.deepEqual(steps.map((_, n) => [r.conversationDiff(n)!.event, r.conversationDiff(n)!.type]), steps.map((s) => [s.event, s.type]));
  });

  test('an id the snapshot lists twice is one row, at the copy the consumer takes (the last); no such step is null', () => {
    const r = reading([user('a')], [snapshot(user('a', 'x'), user('a', 'y'))]);
    assert.deepEqual(rows(last(r)), ['replaced a']);
    assert.deepEqual([last(r).changes[0]!.listed, last(r).changes[0]!.now?.content], [1, 'y']);
    for (const n of [-1, 1, 0.5, Number.NaN]) assert.equal(r.conversationDiff(n), null);
  });

  test('a step on a 2,000-message conversation answers with its one row, not the conversation', () => {
    const history = Array.from({ length: 2000 }, (_, i) => (i % 2 ? bot(`m${i}`, 'x'.repeat(200)) : user(`m${i}`, 'y'.repeat(200))));
    const r = reading(history, [
      { type: 'TEXT_MESSAGE_START', messageId: 'new', role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'new', delta: 'a' },
      snapshot(...history.slice(1), bot('new', 'a')),
    ]);
    assert.deepEqual(rows(r.conversationDiff(1)), ['replaced new']);
    assert.deepEqual(rows(r.conversationDiff(2)), ['dropped m0']);
  });
});
