/**
 * `reduce` and `diff` on recordings of AG-UI on a WebSocket (issue #38): a socket exchange is judged as
 * its stream's events, so it diffs as the same conversation over HTTP does and reduces to a fixture
 * that `check` reads back with the finding.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { diffCommand } from '../../src/cli/diff.ts';
import { run } from '../../src/cli/main.ts';
import { reduceCommand } from '../../src/cli/reduce.ts';
import { socketExchanges, type CapturedExchange, type SocketConnection } from '../../src/exchange/index.ts';
import { writeHar } from '../../src/formats/har.ts';
import { runEvents } from '../support/replay.ts';

const T0 = 1764000000;
const utf8 = new TextEncoder();
const input = JSON.stringify({ threadId: 't1', runId: 'r1', protocolVersion: '1.0', state: {}, tools: [], context: [], forwardedProps: {}, messages: [{ id: 'u1', role: 'user', content: 'hi' }] });
const dir = mkdtempSync(join(tmpdir(), 'agui-socket-recordings-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** `events` on a socket, one JSON text frame each, 100 ms apart after the input; `close` when the socket closed. */
function onSocket(events: object[], close: SocketConnection['close'] = null): CapturedExchange[] {
  const frames = events.map((e, k) => ({ type: 'receive' as const, time: T0 + (k + 1) / 10, opcode: 1, data: JSON.stringify(e) }));
  return socketExchanges({ url: 'ws://127.0.0.1:9/agent/ws', frames: [{ type: 'send', time: T0, opcode: 1, data: input }, ...frames], close }, (k) => `socket/${k}`);
}

function file(name: string, exchanges: CapturedExchange[]): string {
  const path = join(dir, `${name}.har`);
  writeFileSync(path, writeHar(exchanges, { creator: { name: 'test', version: '0' } }));
  return path;
}

function cli(command: (argv: string[], io: { out: (s: string) => void; err: (s: string) => void }) => number, argv: string[]) {
  let out = '';
  let err = '';
  const status = command(argv, { out: (s) => (out += s), err: (s) => (err += s) });
  return { status, out, err };
}

const events = runEvents('t1', 'r1');
const changed = events.map((e) => (e.type === 'TEXT_MESSAGE_CONTENT' ? { ...e, delta: 'Goodbye' } : e));

describe('diff on socket recordings', () => {
  it('a socket exchange is the same to a consumer as its events over HTTP, and differs where the events do', () => {
    const socket = file('socket', onSocket(events));
    const http = file('http', [{
      source: 'http', url: 'http://127.0.0.1:9/agent/ws', method: 'POST', status: 200, requestBody: input, responseContentType: 'text/event-stream',
      chunks: events.map((e, k) => ({ time: k * 100, bytes: utf8.encode(`data: ${JSON.stringify(e)}\n\n`) })),
    }]);
    const same = cli(diffCommand, [socket, http]);
    assert.deepEqual(same, { status: 0, out: `${socket} and ${http}: the same to a consumer\n`, err: '' });

    const other = cli(diffCommand, [socket, file('changed', onSocket(changed)), '--format', 'json']);
    assert.equal(other.status, 1);
    const { differences } = JSON.parse(other.out) as { differences: { kind: string; a?: unknown; b?: unknown }[] };
    assert.deepEqual(differences.map((d) => [d.kind, d.a, d.b]), [['conversation', 'Hello', 'Goodbye']]);
  });

  it('a socket closed before the run ended is a truncated run', () => {
    const cut = file('cut', onSocket(events.slice(0, 3), { code: 1011, reason: 'agent crashed', time: T0 + 1 }));
    const r = cli(diffCommand, [file('whole', onSocket(events)), cut, '--format', 'json']);
    assert.equal(r.status, 1);
    const kinds = (JSON.parse(r.out) as { differences: { kind: string; b?: unknown }[] }).differences.map((d) => [d.kind, d.b]);
    assert.deepEqual(kinds.filter(([k]) => k === 'outcome' || k === 'findings'), [['outcome', 'truncated'], ['findings', 'lifecycle/truncated']]);
  });
});

describe('reduce on a socket recording', () => {
  it('shrinks a socket exchange to a fixture that check reads back with the same finding', () => {
    const broken = file('broken', onSocket(events.filter((e) => e.type !== 'TEXT_MESSAGE_END')));
    const out = join(dir, 'reduced');
    const r = cli(reduceCommand, [broken, '--out', out, '--name', 'socket']);
    assert.equal(r.status, 0, r.err);
    assert.match(r.out, /still raises lifecycle\/open-at-run-finished \(failed\)/);
    const fixture = JSON.parse(readFileSync(join(out, 'socket.fixture.json'), 'utf8')) as { stream: { type: string }[] };
    assert.deepEqual(fixture.stream.map((e) => e.type), ['RUN_STARTED', 'TEXT_MESSAGE_START', 'RUN_FINISHED']);
    let report = '';
    const status = run(['check', join(out, 'socket.fixture.json'), '--format', 'json'], { out: (s) => (report += s), err: () => {}, colour: false });
    assert.equal(status, 1);
    const findings = (JSON.parse(report) as { exchanges: { findings: { rule: string }[] }[] }).exchanges[0]!.findings.map((f) => f.rule);
    assert.ok(findings.includes('lifecycle/open-at-run-finished'), findings.join(', '));
  });
});
