import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { diffCommand } from '../../src/cli/diff.ts';
import { diff, exchangesOf, type DifferenceKind } from '../../src/library/index.ts';
import { session, sse, type Event, type Session } from './support/session.ts';

const dir = mkdtempSync(join(tmpdir(), 'agui-diff-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const read = (s: Session, keepAlive = 0) => exchangesOf(sse(s.events, keepAlive), { input: s.input });
const kinds = (a: Session, b: Session) => [...new Set(diff(read(a), read(b)).map((d) => d.kind))];

/** The session with the events `edit` returns in place of each one. */
function edited(s: Session, edit: (e: Event, i: number) => Event[] | Event): Session {
  return { input: s.input, events: s.events.flatMap((e, i): Event[] => [edit(structuredClone(e), i)].flat()) };
}

const base = session({ turns: 20 });

describe('diff: two recordings as a consumer holds them', () => {
  it('the same session recorded twice (fresh ids, other chunking, keep-alives) is the same: exit 0', () => {
    const again = session({ turns: 20, ids: 'second-', pieces: 3 });
    assert.deepEqual(diff(read(base), read(again, 7)), []);
    writeFileSync(join(dir, 'a.sse'), sse(base.events));
    writeFileSync(join(dir, 'b.sse'), sse(again.events, 3));
    writeFileSync(join(dir, 'input-a.json'), JSON.stringify(base.input));
    let out = '';
    // Bare bodies carry no input: both are read without one, the same way.
    assert.equal(diffCommand([join(dir, 'a.sse'), join(dir, 'b.sse')], { out: (s) => void (out += s), err: (s) => void (out += s) }), 0, out);
    assert.match(out, /the same to a consumer/);
    // --strict-ids keeps the ids the producer minted, which differ.
    const strict = diff(read(base), read(again), { strictIds: true });
    assert.ok(strict.length > 0 && strict.every((d) => d.path.endsWith('/id') || d.path.endsWith('/runId')), JSON.stringify(strict.slice(0, 3)));
  });

  /** Each change, and every kind it may show as: a tool result is a message of the conversation too. */
  const changes: [string, DifferenceKind[], (e: Event, i: number) => Event[] | Event][] = [
    ['a message\'s text', ['conversation'], (e) => (e.type === 'TEXT_MESSAGE_CONTENT' && e.messageId === 'answer-3' ? { ...e, delta: String(e.delta).toUpperCase() } : e)],
    ['a tool call\'s arguments', ['tool-call'], (e) => (e.type === 'TOOL_CALL_ARGS' && e.toolCallId === 'call-5' ? { ...e, delta: String(e.delta).toUpperCase() } : e)],
    ['a tool call\'s result', ['tool-call', 'conversation'], (e) => (e.type === 'TOOL_CALL_RESULT' && e.toolCallId === 'call-2' ? { ...e, content: '{"day":2,"sky":"rain"}' } : e)],
    ['the state', ['state'], (e) => (e.type === 'STATE_DELTA' ? { ...e, delta: [...(e.delta as unknown[]), { op: 'replace', path: '/theme', value: 'light' }] } : e)],
    ['the outcome', ['outcome', 'findings', 'verdict'], (e) => (e.type === 'RUN_FINISHED' ? { type: 'RUN_ERROR', message: 'model overloaded' } : e)],
    ['the findings', ['findings', 'verdict'], (e, i) => (i === 40 ? [e, { type: 'STEP_FINISHED', stepName: 'never-started' }] : e)],
  ];
  for (const [what, allowed, edit] of changes) {
    it(`a change of ${what} is named ${allowed[0]}: exit 1`, () => {
      const found = kinds(base, edited(base, edit));
      assert.ok(found.includes(allowed[0]!), `found ${found.join(', ')}`);
      assert.deepEqual(found.filter((k) => !allowed.includes(k)), []);
    });
  }

  it('an interrupt that asks otherwise is named, and a CLI diff of two exchanges of one file exits 1', () => {
    const interrupted = (reason: string): Session => ({
      input: { threadId: 't', runId: 'r', protocolVersion: '1.1', messages: [] },
      events: [
        { type: 'RUN_STARTED', threadId: 't', runId: 'r', protocolVersion: '1.1' },
        { type: 'RUN_FINISHED', threadId: 't', runId: 'r', outcome: { type: 'interrupt', interrupts: [{ id: 'i-1', reason, message: 'Book the flight?' }] } },
      ],
    });
    assert.deepEqual(kinds(interrupted('approval'), interrupted('input')), ['interrupt']);
    const har = { log: { version: '1.2', creator: { name: 't', version: '1' }, entries: ['approval', 'input'].map((reason) => {
      const s = interrupted(reason);
      return { startedDateTime: '2026-01-01T00:00:00.000Z', time: 1, request: { method: 'POST', url: 'http://127.0.0.1/agent', headers: [], postData: { mimeType: 'application/json', text: JSON.stringify(s.input) } },
        response: { status: 200, headers: [], content: { mimeType: 'text/event-stream', text: sse(s.events) } }, timings: { wait: 1, receive: 0 } };
    }) } };
    writeFileSync(join(dir, 'two.har'), JSON.stringify(har));
    let out = '';
    const code = diffCommand([`${join(dir, 'two.har')}#1`, `${join(dir, 'two.har')}#2`, '--format', 'json'], { out: (s) => void (out += s), err: (s) => void (out += s) });
    assert.equal(code, 1, out);
    const json = JSON.parse(out) as { same: boolean; differences: { kind: string; path: string; a: unknown; b: unknown }[] };
    assert.equal(json.same, false);
    assert.deepEqual(json.differences, [{ kind: 'interrupt', exchange: 1, path: '/runs/0/interrupts/0/reason', a: 'approval', b: 'input' }]);
  });

  /** One run whose state is `snapshot` and whose one tool call is given `args`, as SSE text (built as text: JSON.stringify recurses). */
  const stateAndArgs = (snapshot: string, args: string) =>
    [
      '{"type":"RUN_STARTED","threadId":"t","runId":"r"}',
      `{"type":"STATE_SNAPSHOT","snapshot":${snapshot}}`,
      '{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"f"}',
      `{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":${JSON.stringify(args)}}`,
      '{"type":"TOOL_CALL_END","toolCallId":"c"}',
      '{"type":"RUN_FINISHED","threadId":"t","runId":"r"}',
    ].map((e) => `data: ${e}\n\n`).join('');
  const cliDiff = (a: string, b: string) => {
    writeFileSync(join(dir, 'left.sse'), a);
    writeFileSync(join(dir, 'right.sse'), b);
    let out = '';
    const code = diffCommand([join(dir, 'left.sse'), join(dir, 'right.sse'), '--format', 'json'], { out: (s) => void (out += s), err: (s) => void (out += s) });
    return { code, out };
  };

  it('a member named like an inherited one (constructor, toString) is a member: state or arguments gaining one differ, exit 1', () => {
    const { code, out } = cliDiff(stateAndArgs('{"a":1}', '{"x":1}'), stateAndArgs('{"a":1,"constructor":2}', '{"x":1,"toString":3}'));
    assert.equal(code, 1, out);
    assert.deepEqual(JSON.parse(out).differences.map((d: { kind: string; path: string }) => [d.kind, d.path]), [
      ['tool-call', '/toolCalls/0/arguments/toString'],
      ['state', '/runs/0/state/constructor'],
    ]);
  });

  it('state and arguments 5,000 deep are compared to their leaves, not "internal error"', () => {
    const deep = (leaf: string) => '{"a":'.repeat(5000) + leaf + '}'.repeat(5000);
    const { code, out } = cliDiff(stateAndArgs(deep('{}'), deep('1')), stateAndArgs(deep('{"z":1}'), deep('2')));
    assert.equal(code, 1, out);
    const paths = JSON.parse(out).differences.map((d: { path: string }) => d.path);
    assert.deepEqual(paths, [`/toolCalls/0/arguments${'/a'.repeat(5000)}`, `/runs/0/state${'/a'.repeat(5000)}/z`]);
  });

  it('an unreadable side exits 2 with one line', () => {
    writeFileSync(join(dir, 'junk.txt'), 'not a recording');
    let err = '';
    assert.equal(diffCommand([join(dir, 'junk.txt'), join(dir, 'missing.har')], { out: () => {}, err: (s) => void (err += s) }), 2);
    assert.match(err, /junk\.txt: not a recognised format/);
    err = '';
    assert.equal(diffCommand([`${join(dir, 'two.har')}#3`, join(dir, 'two.har')], { out: () => {}, err: (s) => void (err += s) }), 2);
    assert.match(err, /holds 2 exchanges: there is no #3/);
  });
});
