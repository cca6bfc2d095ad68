/**
 * Data that spells an Object.prototype member. Every lookup keyed by data (event types, roles, part
 * and source types, ids, tool names, state and patch paths, rule tables) must be own-property-only:
 * an event whose `type` is `constructor` is an unknown type, and an id that is `__proto__` is an id
 * like any other. So each prototype key is planted in every string position, every open object's
 * member names and every patch pointer of a schema-generated instance of every event type and of
 * RunAgentInput, over SSE and protobuf, and the analysis — the CLI's, the export's and the worker's
 * Session's — must never throw and must say exactly what it says of the same instance spelled with
 * an ordinary word.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BaseEvent } from '@ag-ui/core';
import { EventEncoder } from '@ag-ui/encoder';
import { AGUI_MEDIA_TYPE } from '@ag-ui/proto';
import { Session } from '../../background/session.ts';
import { toBase64 } from '../../src/base64.ts';
import { analyzeExchanges, type ExchangeReport } from '../../src/analyzer/index.ts';
import { run } from '../../src/cli/main.ts';
import type { CapturedExchange } from '../../src/exchange/exchange.ts';
import { exportSession } from '../../src/recording/export.ts';
import { eventDefinitions } from '../../src/schema/protocol.ts';
import { DEFAULT_LIMITS, type PageMessage } from '../../src/messages.ts';
import { DETAIL_PARTS } from '../../src/detail/index.ts';
import { instances, type Leaves } from '../support/instances.ts';

const VERSION = '1.1';
const { of } = instances(VERSION);
const PROTOTYPE_KEYS = Object.getOwnPropertyNames(Object.prototype);
/** A word no table of ours holds, the control every planted key is compared with. */
const CONTROL = 'plainword';
/** Positions with a format of their own keep a value of that format, in both spellings alike. */
const FORMATTED: Readonly<Record<string, string>> = { protocolVersion: VERSION, expiresAt: '2030-01-01T00:00:00Z', mimeType: 'text/plain', provider: 'acme' };

/**
 * `member` names the members of open objects (state, forwardedProps, a tool's parameters…); with `kinds`,
 * closed-set values other than an event's own type (roles, part and source types, patch ops) are the word too.
 */
function leaves(word: string, member = word, kinds = false): Leaves {
  return {
    kind: (at, value) => (kinds && !(at.key === 'type' && at.def.endsWith('Event')) ? word : value),
    string: (at) => (Object.hasOwn(FORMATTED, at.key) ? FORMATTED[at.key]! : word),
    pointer: () => `/${member}/${member}`,
    anyJson: () => ({ [member]: word, list: [word, { [member]: { [member]: 1 } }] }),
  };
}

const encoder = new EventEncoder();
const base64 = (text: string) => toBase64(new TextEncoder().encode(text));

/** One exchange per variant and transport (SSE only with `kinds`); every event type, then an event whose type is the word itself. */
function exchanges(word: string, kinds = false): CapturedExchange[] {
  const out: CapturedExchange[] = [];
  const stream = (variant: number, member: string) => {
    const input = of('RunAgentInput', leaves(word, member, kinds), variant);
    const events = [...eventDefinitions(VERSION).values()].map((def) => of(def, leaves(word, member, kinds), variant));
    return { input, ordered: [...events.filter((e) => e.type === 'RUN_STARTED'), ...events.filter((e) => e.type !== 'RUN_STARTED')] };
  };
  for (let variant = 0; variant < 3; variant++) {
    const { input, ordered } = stream(variant, word);
    const common = { method: 'POST', status: 200, requestContentType: 'application/json', requestBody: JSON.stringify(input), startedDateTime: `2025-06-01T10:0${variant}:00.000Z` };
    const sse = [...ordered, { type: word }].map((e) => `data: ${JSON.stringify(e)}\n\n`).join('');
    out.push({ ...common, source: `sse-${variant}`, url: `http://127.0.0.1:9/${word}?${word}=${word}`, responseContentType: 'text/event-stream', chunks: [{ time: 5, bytes: new TextEncoder().encode(sse) }] });
    // Protobuf encodes closed sets as enums: an unknown role or op has no encoding, so it travels over SSE only.
    if (kinds) continue;
    // @ag-ui/proto (ts-proto) assigns Struct keys into a plain object, so a member named `__proto__` is lost in
    // transit, a fact of the transport that src/wire/proto-decode.ts mirrors; the member names stay ordinary there.
    const proto = stream(variant, word === '__proto__' ? CONTROL : word);
    const frames = proto.ordered.map((e) => encoder.encodeProtobuf(e as unknown as BaseEvent));
    const bytes = new Uint8Array(frames.reduce((n, f) => n + f.length, 0));
    frames.reduce((at, f) => (bytes.set(f, at), at + f.length), 0);
    out.push({ ...common, requestBody: JSON.stringify(proto.input), source: `proto-${variant}`, url: `http://127.0.0.1:9/${word}`, responseContentType: AGUI_MEDIA_TYPE, chunks: [{ time: 5, bytes }] });
  }
  return out;
}

/** What a report says, without the words it quotes. */
const said = (reports: readonly ExchangeReport[]) =>
  reports.map((r) => ({
    verdict: r.verdict,
    outcomes: r.runs.map((x) => x.outcome),
    findings: [...r.input.findings, ...r.findings].map((f) => `${f.rule}@${f.event}:${f.severity}`),
  }));

/** The exchange as the page script would report it to the worker. */
function pageMessages(x: CapturedExchange, id: number): PageMessage[] {
  return [
    { k: 'open', id, api: 'fetch', t: 1, method: 'POST', url: x.url!, requestContentType: 'application/json', requestBody: x.requestBody!, requestBodyNote: null },
    { k: 'response', id, t: 2, status: 200, statusText: 'OK', contentType: x.responseContentType!, url: x.url!, redirected: false, reconstructed: false },
    ...x.chunks.map((c): PageMessage => ({ k: 'chunk', id, t: 3, bytes: c.bytes })),
    { k: 'end', id, t: 4, outcome: 'complete', error: null },
  ];
}

/** The worker's reports, and every part of every exchange's detail with the word spelled as the control. */
function viaSession(xs: CapturedExchange[], word: string): { reports: ExchangeReport[]; details: string[] } {
  const s = new Session(1, 'http://127.0.0.1/', false, DEFAULT_LIMITS);
  s.receive('doc', 1, xs.flatMap((x, i) => pageMessages(x, i + 1)));
  while (s.busy) s.work(() => false);
  const details = xs.flatMap((_, i) => DETAIL_PARTS.map((part) => `${part}: ${JSON.stringify(s.detail(`doc:${i + 1}`, part)).replaceAll(word, CONTROL).replaceAll(base64(word), base64(CONTROL))}`));
  return { reports: s.captured().map((x) => x.analysis!.report!), details };
}

function viaCli(xs: CapturedExchange[], dir: string, word: string): unknown {
  const file = join(dir, `${word.replace(/\W/g, '_')}.har`);
  writeFileSync(file, exportSession(xs));
  let out = '';
  let err = '';
  const code = run(['check', file, '--format', 'json'], { out: (s) => void (out += s), err: (s) => void (err += s), colour: false });
  assert.notEqual(code, 2, `${word}: the CLI could not analyse the file: ${err}`);
  const doc = JSON.parse(out) as { exchanges: { verdict: string; findings: { rule: string; event: number | null }[] }[] };
  return doc.exchanges.map((x) => ({ verdict: x.verdict, findings: x.findings.map((f) => `${f.rule}@${f.event}`) }));
}

describe('data spelling an Object.prototype member is data like any other', () => {
  it('the issue’s reproduction: an event typed `constructor` is one unknown event, not an internal error', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agui-proto-'));
    try {
      for (const key of PROTOTYPE_KEYS) {
        const file = join(dir, 'events.json');
        writeFileSync(file, JSON.stringify([{ type: 'RUN_STARTED', threadId: 't', runId: 'r' }, { type: key }, { type: 'RUN_FINISHED', threadId: 't', runId: 'r' }]));
        let out = '';
        let err = '';
        const code = run(['check', file, '--format', 'json'], { out: (s) => void (out += s), err: (s) => void (err += s), colour: false });
        assert.notEqual(code, 2, `${key}: ${err}`);
        const rules = (JSON.parse(out) as { exchanges: { findings: { rule: string; event: number }[] }[] }).exchanges[0]!.findings.filter((f) => f.event === 1).map((f) => f.rule);
        assert.ok(rules.length > 0, `${key}: the event typed ${key} is reported`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('in every position of every event type and of RunAgentInput, over SSE and protobuf: CLI, export and Session say what they say of an ordinary word', () => {
    const control = exchanges(CONTROL);
    const expected = said(analyzeExchanges(control));
    assert.ok(expected.some((r) => r.findings.length > 0), 'the control is analysed (it finds the unknown event type at least)');
    const dir = mkdtempSync(join(tmpdir(), 'agui-proto-'));
    try {
      const expectedCli = viaCli(control, dir, CONTROL);
      const controlDetails = viaSession(control, CONTROL).details;
      for (const key of PROTOTYPE_KEYS) {
        const planted = exchanges(key);
        assert.deepEqual(said(analyzeExchanges(planted)), expected, `${key}: the analysis`);
        const worker = viaSession(planted, key);
        assert.deepEqual(said(worker.reports), expected, `${key}: the worker's Session`);
        assert.deepEqual(worker.details, controlDetails, `${key}: the worker's detail of each exchange`);
        assert.deepEqual(viaCli(planted, dir, key), expectedCli, `${key}: the CLI on the exported file`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('as a role, a content part’s or source’s type, a patch op: an unknown value like any other', () => {
    const control = exchanges(CONTROL, true);
    const expected = said(analyzeExchanges(control));
    const controlDetails = viaSession(control, CONTROL).details;
    for (const key of PROTOTYPE_KEYS) {
      const planted = exchanges(key, true);
      assert.deepEqual(said(analyzeExchanges(planted)), expected, `${key}: the analysis`);
      const worker = viaSession(planted, key);
      assert.deepEqual(said(worker.reports), expected, `${key}: the worker's Session`);
      assert.deepEqual(worker.details, controlDetails, `${key}: the worker's detail of each exchange`);
    }
  });

  it('a valid run spelled with prototype keys stays valid', () => {
    for (const key of [CONTROL, ...PROTOTYPE_KEYS]) {
      const input = { threadId: key, runId: key, protocolVersion: '1.0', messages: [{ id: key, role: 'user', content: key }], tools: [{ name: key, description: key, parameters: { type: 'object', properties: { [key]: { type: 'string' } } } }], state: { [key]: { [key]: key } }, context: [{ description: key, value: key }], forwardedProps: { [key]: key } };
      const events = [
        { type: 'RUN_STARTED', threadId: key, runId: key },
        { type: 'TEXT_MESSAGE_START', messageId: `${key}-m`, role: 'assistant' },
        { type: 'TEXT_MESSAGE_CONTENT', messageId: `${key}-m`, delta: key },
        { type: 'TEXT_MESSAGE_END', messageId: `${key}-m` },
        { type: 'TOOL_CALL_START', toolCallId: key, toolCallName: key, parentMessageId: `${key}-m` },
        { type: 'TOOL_CALL_ARGS', toolCallId: key, delta: JSON.stringify({ [key]: key }) },
        { type: 'TOOL_CALL_END', toolCallId: key },
        { type: 'STATE_DELTA', delta: [{ op: 'replace', path: `/${key}/${key}`, value: key }, { op: 'add', path: `/${key}/${key}2`, value: key }] },
        { type: 'STATE_SNAPSHOT', snapshot: { [key]: key } },
        { type: 'STEP_STARTED', stepName: key },
        { type: 'STEP_FINISHED', stepName: key },
        { type: 'CUSTOM', name: key, value: key },
        { type: 'RUN_FINISHED', threadId: key, runId: key },
      ];
      const x: CapturedExchange = { source: key, method: 'POST', url: 'http://127.0.0.1:9/agent', status: 200, requestContentType: 'application/json', requestBody: JSON.stringify(input), responseContentType: 'text/event-stream', startedDateTime: '2025-06-01T10:00:00.000Z', chunks: [{ time: 5, bytes: new TextEncoder().encode(events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('')) }] };
      const [report] = analyzeExchanges([x]);
      assert.equal(report!.verdict, 'completed', `${key}: ${[...report!.input.findings, ...report!.findings].map((f) => f.rule).join(', ')}`);
      assert.deepEqual(report!.runs.map((r) => r.outcome), ['success'], key);
    }
  });
});
