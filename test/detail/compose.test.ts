/** The inputs the panel composes: judged by the same session reading the worker uses, on streams the analyzer read. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { composeResend, composeResume, composeToolResult, openInterrupts, pendingToolCalls, SessionReader } from '../../src/detail/index.ts';

const sse = (events: object[]) => new TextEncoder().encode(events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join(''));
const input = { threadId: 't', runId: 'r1', protocolVersion: '1.0', state: { n: 1 }, messages: [{ id: 'u1', role: 'user', content: 'Send it?' }], tools: [], context: [] };

function read(reader: SessionReader, body: object, events: object[]) {
  const r = reader.read({ source: 's', requestBody: JSON.stringify(body), contentType: 'text/event-stream', sentAt: 0 });
  r.push(sse(events), 1);
  r.end(2);
  return r;
}

describe('compose: the next input, from what the consumer holds after an exchange', () => {
  it('a resume answering every interrupt covers them; one dropped is uncovered, as the coverage check says', () => {
    const reader = new SessionReader();
    const interrupts = [{ id: 'a', reason: 'approval', message: 'Approve?' }, { id: 'b', reason: 'input_required' }];
    const r = read(reader, input, [
      { type: 'RUN_STARTED', threadId: 't', runId: 'r1' },
      { type: 'ACTIVITY_SNAPSHOT', messageId: 'p1', activityType: 'progress', content: { done: 1 } },
      { type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'Two questions.' },
      { type: 'TEXT_MESSAGE_END', messageId: 'm1' },
      { type: 'RUN_FINISHED', threadId: 't', runId: 'r1', outcome: { type: 'interrupt', interrupts } },
    ]);
    const open = openInterrupts(r.part('runs'));
    assert.deepEqual(open, [{ id: 'a', message: 'Approve?', reason: 'approval' }, { id: 'b', message: null, reason: 'input_required' }]);
    const next = composeResume(input, r.part('conversation'), { n: 2 }, open, 'r2');
    assert.equal(next.runId, 'r2');
    assert.deepEqual(next.state, { n: 2 });
    assert.deepEqual(next.messages, [{ id: 'u1', role: 'user', content: 'Send it?' }, { id: 'm1', role: 'assistant', content: 'Two questions.' }], 'activity is the consumer\'s own, not sent back');
    const judged = reader.check(JSON.stringify(next), 3);
    assert.equal(judged.verdict, 'valid');
    assert.deepEqual(judged.uncovered, []);
    const partial = reader.check(JSON.stringify({ ...next, resume: (next.resume as unknown[]).slice(0, 1) }), 3);
    assert.equal(partial.verdict, 'invalid');
    assert.deepEqual(partial.uncovered, ['b']);
    assert.ok(partial.findings.some((f) => f.rule === 'interrupt/resume-uncovered'));
    // Checking recorded nothing: the thread still waits on both.
    assert.deepEqual(reader.check(JSON.stringify(next), 3).pending?.map((p) => p.id), ['a', 'b']);
  });

  it('a run that left a frontend tool call pending is answered with a tool message for it alone', () => {
    const reader = new SessionReader();
    const r = read(reader, input, [
      { type: 'RUN_STARTED', threadId: 't', runId: 'r1' },
      { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'lookup', parentMessageId: 'm1' },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '{"q":1}' },
      { type: 'TOOL_CALL_END', toolCallId: 'c1' },
      { type: 'TOOL_CALL_RESULT', messageId: 'tr1', toolCallId: 'c1', content: 'found' },
      { type: 'TOOL_CALL_START', toolCallId: 'c2', toolCallName: 'show_card', parentMessageId: 'm1' },
      { type: 'TOOL_CALL_END', toolCallId: 'c2' },
      { type: 'RUN_FINISHED', threadId: 't', runId: 'r1', outcome: { type: 'success', pendingToolCallIds: ['c2'] } },
    ]);
    const conversation = r.part('conversation');
    assert.deepEqual(openInterrupts(r.part('runs')), []);
    const calls = pendingToolCalls(conversation);
    assert.deepEqual(calls.map((c) => c.id), ['c2']);
    const next = composeToolResult(input, conversation, undefined, calls, 'r2', (i) => `tool-${i}`);
    const messages = next.messages as Record<string, unknown>[];
    assert.deepEqual(messages.at(-1), { id: 'tool-0', role: 'tool', toolCallId: 'c2', content: '' });
    assert.deepEqual(messages[1]!.toolCalls, [
      { id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{"q":1}' } },
      { id: 'c2', type: 'function', function: { name: 'show_card', arguments: '' } },
    ]);
    assert.deepEqual(next.state, input.state, 'no state step: the state as sent');
    assert.equal(reader.check(JSON.stringify(next), 3).verdict, 'valid');
    assert.deepEqual(composeResend(input, 'r9'), { ...input, runId: 'r9' });
  });
});
