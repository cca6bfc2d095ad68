/**
 * Redaction of a session holding a WebSocket, which is written whole: every frame of the socket is
 * redacted by the groups HTTP redaction uses — input frames (bare and in CopilotKit's envelope), event
 * frames (one JSON event, a JSON array, protobuf length-prefixed and bare), the app's own frames and the
 * close's reason — and the redacted file reads back, through `check`, to the verdicts of the unredacted one.
 * The socket is recorded by the worker's own Session from the page script's messages.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { BaseEvent } from '@ag-ui/core';
import { EventEncoder } from '@ag-ui/encoder';
import { encode } from '@ag-ui/proto';
import { Session } from '../../background/session.ts';
import { run } from '../../src/cli/main.ts';
import { bodyOf, type CapturedExchange } from '../../src/exchange/exchange.ts';
import { DEFAULT_LIMITS, type PageMessage } from '../../src/messages.ts';
import { exportSession, REDACTION_GROUPS, type RedactionGroup, type SessionLogExtension } from '../../src/recording/export.ts';
import { SECRET_GROUPS, secretEvents, secretInput, secretSession } from './secrets.ts';
import { reread, shapes } from './support.ts';

const ALL = [...REDACTION_GROUPS];
const T0 = 1_764_000_000_000;
const URL = 'ws://127.0.0.1:9/agent?token=SECRET-QUERY-ws&mode=live';
const encoder = new EventEncoder();
const utf8 = new TextEncoder();
const text = new TextDecoder();

const APP = {
  welcome: JSON.stringify({ type: 'welcome', motd: 'SECRET-BROKEN-app-motd', n: 31337, ok: true }),
  typing: JSON.stringify({ op: 'typing', text: 'SECRET-BROKEN-app-typing', draft: false }),
  words: 'SECRET-BROKEN-app-text is not JSON',
  binary: utf8.encode('SECRET-BROKEN-app-binary'),
  reason: 'SECRET-BROKEN-close-reason',
};

type Frame = { send: string } | { receive: string } | { binary: Uint8Array };

/**
 * The socket: the app's frames among three exchanges, the first in JSON text, the second enveloped and in
 * protobuf, the third cut by the close (the worker's error for it quotes the close's reason).
 */
function frames(): Frame[] {
  const first = secretInput('run-ws', 'ws');
  const json = secretEvents(first, 'ws');
  const second = secretInput('run-wsproto', 'wsproto');
  const proto = secretEvents(second, 'wsproto');
  // One value twice in a frame (re-encoded at its size), and a boolean in a bare frame (re-encoded larger).
  proto.splice(1, 0, { type: 'STATE_SNAPSHOT', snapshot: { a: 'SECRET-STATE-twice', b: 'SECRET-STATE-twice' } }, { type: 'STATE_SNAPSHOT', snapshot: { live: true } });
  return [
    { receive: APP.welcome },
    { send: JSON.stringify(first) },
    { receive: JSON.stringify(json.slice(0, 2)) },
    ...json.slice(2, -1).map((e) => ({ receive: JSON.stringify(e) })),
    { send: APP.typing },
    { receive: APP.words },
    { binary: APP.binary },
    { receive: JSON.stringify(json.at(-1)) },
    { send: JSON.stringify({ method: 'agent/run', params: { agentId: 'default' }, body: second }) },
    ...proto.map((e, k) => ({ binary: k % 2 === 1 ? encoder.encodeProtobuf(e as BaseEvent) : encode(e as BaseEvent) })),
    { send: JSON.stringify(secretInput('run-cut', 'cut')) },
    { receive: JSON.stringify({ type: 'RUN_STARTED', threadId: 'thread-secrets', runId: 'run-cut' }) },
  ];
}

/** The socket as the page script reports it, recorded by the worker: its exchanges with the worker's analysis. */
function captured(): CapturedExchange[] {
  const msgs: PageMessage[] = [{ k: 'socket', id: 1, t: T0, url: URL }];
  const all = frames();
  all.forEach((f, k) => {
    const t = T0 + 10 + 40 * k;
    if ('binary' in f) msgs.push({ k: 'frame', id: 1, t, type: 'receive', opcode: 2, data: f.binary });
    else if ('send' in f) msgs.push({ k: 'frame', id: 1, t, type: 'send', opcode: 1, data: f.send });
    else msgs.push({ k: 'frame', id: 1, t, type: 'receive', opcode: 1, data: f.receive });
  });
  msgs.push({ k: 'close', id: 1, t: T0 + 10 + 40 * all.length, code: 1000, reason: APP.reason, wasClean: true });
  const s = new Session(7, 'http://127.0.0.1/', false, DEFAULT_LIMITS);
  s.receive('doc', 1, msgs);
  while (s.busy) s.work(() => false);
  return s.captured();
}

const session = captured();

/** The file's text with every frame of its sockets beside it as text (binary frames are base64 in the HAR), and every stream's body. */
function visible(har: string): string {
  const back = reread(har);
  const frames = back[0]!.socket!.connection.frames.map((f) => (typeof f.data === 'string' ? f.data : text.decode(f.data)));
  return [har, ...frames, ...back.map((x) => text.decode(bodyOf(x)))].join('\n');
}

/** Every planted secret in the text, by the group that should remove it. */
function secretsIn(t: string): { secret: string; group: RedactionGroup | 'any' }[] {
  return [...new Set(t.match(/SECRET-[A-Z]+-[A-Za-z0-9-]*/g) ?? [])].map((secret) => ({ secret, group: SECRET_GROUPS[Object.keys(SECRET_GROUPS).find((p) => secret.startsWith(p))!]! }));
}

const dir = mkdtempSync(join(tmpdir(), 'agui-redact-socket-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** `check --format json` on the file: its status, and each exchange's judgement without the words it is said in. */
function check(har: string, name: string): { status: number; judged: unknown[] } {
  const file = join(dir, name);
  writeFileSync(file, har);
  let out = '';
  let err = '';
  const status = run(['check', file, '--format', 'json'], { out: (s) => (out += s), err: (s) => (err += s), colour: false });
  assert.equal(err, '');
  const finding = (f: { rule: string; severity: string; event?: number; path?: string }) => [f.rule, f.severity, f.event, f.path];
  const judged = JSON.parse(out).exchanges.map((x: any) => ({
    transport: x.transport, verdict: x.verdict, runs: x.runs, input: [x.input.verdict, x.input.findings.map(finding)], findings: x.findings.map(finding),
  }));
  return { status, judged };
}

describe('redacting a session that holds a WebSocket', () => {
  const plain = exportSession(session, { redact: [] });
  const planted = secretsIn(visible(plain));

  it('the worker recorded three exchanges on the socket, among frames of the app\'s own, the last cut by the close', () => {
    assert.deepEqual(session.map((x) => [x.transport, x.socket!.input, x.analysis!.report!.verdict]), [['websocket', 1, 'completed'], ['websocket', 28, 'completed'], ['websocket', 55, 'failed']]);
    assert.match(session[2]!.analysis!.error!, /SECRET-BROKEN-close-reason/);
    assert.ok(session[1]!.responseContentType.startsWith('application/vnd.ag-ui.event+proto'));
    for (const group of [...ALL, 'any']) assert.ok(planted.some((p) => p.group === group), `no ${group} secret planted`);
    for (const tag of ['ws', 'wsproto']) {
      for (const prefix of ['SECRET-MSG-delta', 'SECRET-MSG-system', 'SECRET-TOOLARG-delta', 'SECRET-RESULT-event', 'SECRET-REASON-delta', 'SECRET-STATE-snap', 'SECRET-FWD-token']) {
        assert.ok(visible(plain).includes(`${prefix}-${tag}`), `${prefix}-${tag}`);
      }
    }
    for (const app of ['motd', 'typing', 'text', 'binary']) assert.ok(planted.some((p) => p.secret === `SECRET-BROKEN-app-${app}`), app);
  });

  it('with every group on, no secret survives in any frame, the close or the analysis', () => {
    assert.deepEqual(secretsIn(visible(exportSession(session, { redact: ALL }))), []);
  });

  for (const group of ALL) {
    it(`the ${group} group removes its secrets and only those, in every kind of frame`, () => {
      const exported = exportSession(session, { redact: [group] });
      const t = visible(exported);
      const left = secretsIn(t);
      // The app's own frames and the close's reason belong to no group: any group that redacts bodies fills them.
      assert.deepEqual(left.filter((p) => p.group === group || (p.group === 'any' && group !== 'query')), []);
      assert.deepEqual(planted.filter((p) => p.group !== group && p.group !== 'any' && !t.includes(p.secret)), [], 'secrets of other groups stay');
      assert.deepEqual(shapes(reread(exported)), shapes(session));
    });
  }

  it('check reads the redacted file to the verdicts, runs and findings of the unredacted one', () => {
    const before = check(plain, 'plain.har');
    const redacted = exportSession(session, { redact: ALL });
    assert.deepEqual(check(redacted, 'redacted.har'), before);
    // Not trivially clean: the state patch that fails and the envelope must still be seen.
    const said = JSON.stringify(before);
    for (const rule of ['state/patch-failed', 'input/enveloped']) assert.ok(said.includes(rule), rule);
    const ext = JSON.parse(redacted).log._agui as SessionLogExtension;
    assert.deepEqual([ext.redaction.analysisPreserved, ext.redaction.changedExchanges], [true, []]);
  });

  it('says what it did: the app\'s frames filled, the protobuf frames re-encoded by message, the rest in place', () => {
    const redacted = JSON.parse(exportSession(session, { redact: ALL }));
    const { redaction } = redacted.log._agui as SessionLogExtension;
    assert.deepEqual(redaction.unstructured.frames, 4);
    assert.equal(redaction.reencoded, 2);
    assert.match(redaction.notes.join('\n'), /^entries\/0 message 30: the protobuf frame at byte 0 was re-encoded \(.*\); its size is unchanged$/m);
    assert.match(redaction.notes.join('\n'), /^entries\/0 message 31: the protobuf frame at byte 0 was re-encoded \(.*\); it is now \+\d+ bytes$/m);
    // A note names the entry it is written in: an exchange before the socket has the entry before it.
    const behind = JSON.parse(exportSession([secretSession()[2]!, ...session], { redact: ALL })).log._agui as SessionLogExtension;
    assert.match(behind.redaction.notes.join('\n'), /^entries\/1 message 30: /m);
    const messages = redacted.log.entries[0]._webSocketMessages as { data: string; opcode: number }[];
    const original = JSON.parse(plain).log.entries[0]._webSocketMessages as { data: string; opcode: number }[];
    assert.equal(messages.length, original.length);
    // The app's JSON frames keep their keys, stay JSON and keep their types (a boolean becomes a string of two characters).
    assert.deepEqual(Object.keys(JSON.parse(messages[0]!.data)), ['type', 'motd', 'n', 'ok']);
    assert.deepEqual(Object.values(JSON.parse(messages[0]!.data)).map((v) => typeof v), ['string', 'string', 'number', 'string']);
    // Text that is not JSON, a binary frame and the reason keep their length.
    const words = original.findIndex((m) => m.data === APP.words);
    assert.equal(messages[words]!.data.length, APP.words.length);
    const binary = original.findIndex((m) => m.opcode === 2 && m.data === Buffer.from(APP.binary).toString('base64'));
    assert.deepEqual([...Buffer.from(messages[binary]!.data, 'base64')], Array(APP.binary.length).fill(0xff));
    assert.equal(redacted.log.entries[0]._agui.close.reason.length, APP.reason.length);
    // The envelope still names its operation, so the file still reads it as an input.
    assert.match(messages[28]!.data, /^\{"method":"agent\/run","params":\{"agentId":"x{6}[^x"]"\},"body":\{"threadId":"thread-secrets","runId":"run-wsproto"/);
  });

  it('the query group fills the socket\'s URL and leaves its frames as they were', () => {
    const redacted = JSON.parse(exportSession(session, { redact: ['query'] }));
    const entry = redacted.log.entries[0];
    assert.equal(entry.request.url, 'ws://127.0.0.1:9/agent?token=xxxxxxxxxxxxxxx&mode=xxxx');
    assert.deepEqual(entry._webSocketMessages, JSON.parse(plain).log.entries[0]._webSocketMessages);
    assert.deepEqual(reread(JSON.stringify(redacted)).map((x) => x.analysis!.report!.source), [entry.request.url, entry.request.url, entry.request.url]);
  });

  it('export → import → export writes the same file again, from the worker\'s capture and from a file', () => {
    for (const [what, xs] of [['the worker', session], ['a file', reread(plain)]] as const) {
      for (const redact of [[], ['query'], ALL] as RedactionGroup[][]) {
        const first = exportSession(xs, { redact });
        const second = exportSession(reread(first), { redact });
        assert.equal(exportSession(reread(second), { redact }), second, `${what}, redacting ${redact.join(', ') || 'nothing'}`);
      }
    }
  });
});
