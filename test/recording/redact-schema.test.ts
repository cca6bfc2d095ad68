/**
 * Redaction against the project's own schema: a valid instance of every event type and of
 * RunAgentInput, generated from src/schema/protocol.ts with a distinct secret in every string (and
 * number, and boolean) that does not name a kind, sent over SSE and protobuf. With every group on,
 * nothing of a secret may survive anywhere in the export — not its head, not its tail, not inside
 * JSON carried in a string, not inside a base64 body or a base64 data part — and the analysis of
 * the redacted file must be the analysis of the plain one.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BaseEvent } from '@ag-ui/core';
import { EventEncoder } from '@ag-ui/encoder';
import { AGUI_MEDIA_TYPE } from '@ag-ui/proto';
import { fromBase64 } from '../../src/base64.ts';
import { bodyOf, type CapturedExchange } from '../../src/exchange/exchange.ts';
import { exportSession, REDACTION_GROUPS, type SessionLogExtension } from '../../src/recording/export.ts';
import { eventDefinitions } from '../../src/schema/protocol.ts';
import { decoderFor, transportOf } from '../../src/wire/index.ts';
import { instances, type At, type Leaves } from '../support/instances.ts';
import { concat, reread, shapes } from './support.ts';

const VERSION = '1.1';

/**
 * What redaction keeps, as the spec names it: ids, kinds, versions, names of tools, steps and
 * subagents, codes, model ids, counts, timestamps, JSON Patch pointers. These get harmless values;
 * every other string gets a secret, so a position wrongly kept leaks one and fails the test.
 */
const KEPT_EVERYWHERE = new Set([
  'type', 'timestamp', 'id', 'messageId', 'toolCallId', 'parentMessageId', 'threadId', 'runId', 'parentRunId',
  'subagentRunId', 'parentSubagentRunId', 'parentToolCallId', 'entityId', 'interruptId', 'pendingToolCallIds', 'interruptIds',
  'role', 'protocolVersion', 'toolCallName', 'stepName', 'activityType', 'mimeType', 'subtype', 'encryptedValueType',
  'code', 'op', 'path', 'from', 'replace', 'status', 'reason', 'expiresAt', 'provider', 'model',
  'inputTokens', 'outputTokens', 'totalTokens', 'reasoningTokens', 'cachedInputTokens', 'cacheWriteInputTokens',
]);
/** `name` names a kind only here: a message's, a text event's or a CUSTOM event's name is content. */
const KEPT_IN: Record<string, string[]> = { Tool: ['name'], FunctionCall: ['name'], SubagentStartedEvent: ['name'] };
const HARMLESS: Record<string, string> = { protocolVersion: VERSION, expiresAt: '2030-01-01T00:00:00Z', mimeType: 'text/plain', provider: 'acme' };

/** Heads and tails are distinct from anything a filler or the protocol spells. */
const SECRET_HEAD = 'sécret';
const SECRET_TAIL = /Q\d{4}K/;
const SECRET_NUMBER = /90\d{5}/;

class Planter {
  private n = 0;
  readonly kept: string[] = [];

  /** A secret with a quote, a backslash and a line break, so JSON escapes it, and non-ASCII, so its UTF-8 is longer. */
  secret(): string {
    const n = String(++this.n).padStart(4, '0');
    return `${SECRET_HEAD} "${n}" \\ \n Q${n}K`;
  }

  /** Fillers have no zero digit, so no filler spells one of these. */
  number(): number {
    return 9000000 + ++this.n;
  }

  keep(key: string): string {
    const v = HARMLESS[key] ?? `${key}-${++this.n}`;
    this.kept.push(v);
    return v;
  }

  /** Arbitrary JSON: every kind of leaf, and JSON text inside a string. */
  anyJson(): unknown {
    return {
      text: this.secret(), count: this.number(), yes: true, no: false, nothing: null,
      list: [this.secret(), this.number(), false, { deep: this.secret() }],
      json: JSON.stringify({ inner: this.secret(), n: this.number(), flag: true }),
    };
  }
}

const { of } = instances(VERSION);

/** The planter's leaves: kept positions get harmless values, every other string a secret. */
function leaves(p: Planter, future: boolean): Leaves {
  const kept = (at: At) => KEPT_EVERYWHERE.has(at.key) || (KEPT_IN[at.def]?.includes(at.key) ?? false);
  return {
    string: (at) => (kept(at) ? p.keep(at.key) : p.secret()),
    pointer: () => '/a',
    anyJson: () => p.anyJson(),
    future: () => (future ? ['addedByALaterVersion', p.secret()] : undefined),
  };
}

const encoder = new EventEncoder();

function session(): { exchanges: CapturedExchange[]; planter: Planter } {
  const p = new Planter();
  const exchanges: CapturedExchange[] = [];
  const definitions = eventDefinitions(VERSION);
  for (let variant = 0; variant < 4; variant++) {
    // Variant 3 is a later version's traffic: members nobody defines, on every object. Protobuf cannot carry those.
    const future = variant === 3;
    const input = of('RunAgentInput', leaves(p, future), variant);
    const events = [...definitions].map(([type, def]) => {
      const e = of(def, leaves(p, future), variant);
      // RUN_STARTED echoes exactly the input sent, the case where the two encodings must agree.
      return type === 'RUN_STARTED' ? { ...e, input } : e;
    });
    const runStarted = events.find((e) => e.type === 'RUN_STARTED')!;
    const ordered = [runStarted, ...events.filter((e) => e !== runStarted)];
    const legacy = [
      { type: 'THINKING_START', title: p.secret() },
      { type: 'THINKING_TEXT_MESSAGE_CONTENT', messageId: p.secret(), delta: p.secret() },
      { type: 'THINKING_END', rawEvent: p.anyJson() },
    ];
    const common = { method: 'POST', status: 200, requestContentType: 'application/json', requestBody: JSON.stringify(input), startedDateTime: `2025-06-01T10:0${variant}:00.000Z` };
    const sse = [...ordered, ...legacy].map((e) => `data: ${JSON.stringify(e)}\n\n`).join('');
    exchanges.push({ ...common, source: `schema#sse-${variant}`, url: `http://127.0.0.1:9/agent?api_key=${encodeURIComponent(p.secret())}`, responseContentType: 'text/event-stream', chunks: [{ time: 5, bytes: new TextEncoder().encode(sse) }] });
    if (!future) {
      const proto = concat(ordered.map((e) => encoder.encodeProtobuf(e as unknown as BaseEvent)));
      exchanges.push({ ...common, source: `schema#proto-${variant}`, url: 'http://127.0.0.1:9/agent', responseContentType: AGUI_MEDIA_TYPE, chunks: [{ time: 5, bytes: proto }] });
    }
  }
  return { exchanges, planter: p };
}

/** Every value the file shows, decoded: JSON strings, JSON inside them, base64 inside them, and each body's frames. */
function visible(harText: string): { strings: string[]; values: unknown[] } {
  const strings: string[] = [harText];
  const values: unknown[] = [];
  const lenient = new TextDecoder();
  const walk = (v: unknown): void => {
    if (typeof v === 'string') {
      strings.push(v);
      if (/^\s*[[{"]/.test(v)) {
        try {
          walk(JSON.parse(v));
        } catch {
          // Not JSON after all.
        }
      }
      if (v.length >= 8 && v.length % 4 === 0 && /^[A-Za-z0-9+/]+={0,2}$/.test(v)) strings.push(lenient.decode(fromBase64(v)));
    } else if (Array.isArray(v)) {
      v.forEach(walk);
    } else if (typeof v === 'object' && v !== null) {
      Object.values(v).forEach(walk);
    }
  };
  walk(JSON.parse(harText));
  for (const x of reread(harText)) {
    const body = bodyOf(x);
    strings.push(lenient.decode(body));
    if (x.requestBody !== undefined) values.push(JSON.parse(x.requestBody));
    const decoder = decoderFor(transportOf(x.responseContentType)!);
    for (const item of [...decoder.push(body, 0), ...decoder.end(0)]) {
      if (item.kind !== 'event') continue;
      values.push(item.value);
      walk(item.value);
    }
  }
  return { strings, values };
}

/** Where a boolean still sits in decoded values, as `key` paths. */
function booleans(v: unknown, key = '', out: string[] = []): string[] {
  if (typeof v === 'boolean') out.push(key);
  else if (Array.isArray(v)) v.forEach((i) => booleans(i, key, out));
  else if (typeof v === 'object' && v !== null) for (const [k, i] of Object.entries(v)) booleans(i, k, out);
  return out;
}

function leaks(strings: string[]): string[] {
  return strings.flatMap((s) => {
    const found: string[] = [];
    if (s.includes(SECRET_HEAD)) found.push(`head in ${JSON.stringify(s.slice(Math.max(0, s.indexOf(SECRET_HEAD) - 60), s.indexOf(SECRET_HEAD) + 40))}`);
    const tail = SECRET_TAIL.exec(s);
    if (tail) found.push(`tail ${tail[0]} in ${JSON.stringify(s.slice(Math.max(0, tail.index - 80), tail.index + 10))}`);
    const number = SECRET_NUMBER.exec(s);
    if (number) found.push(`number ${number[0]} in ${JSON.stringify(s.slice(Math.max(0, number.index - 80), number.index + 10))}`);
    return found;
  });
}

describe('redaction of every schema-valid event and input, with a secret in every leaf that names no kind', () => {
  const { exchanges, planter } = session();
  const plainText = exportSession(exchanges, { redact: [] });
  const redactedText = exportSession(exchanges, { redact: [...REDACTION_GROUPS] });
  const plain = visible(plainText);
  const redacted = visible(redactedText);

  it('plants secrets in every transport, in JSON inside strings and in base64, and booleans beside them', () => {
    assert.ok(plain.strings.some((s) => SECRET_TAIL.test(s) && s.startsWith('data: ')), 'SSE');
    assert.ok(reread(plainText).some((x) => x.responseContentType === AGUI_MEDIA_TYPE && new TextDecoder().decode(bodyOf(x)).includes(SECRET_HEAD)), 'protobuf');
    assert.ok(plain.strings.some((s) => /"inner":"sécret/.test(s)), 'JSON in a string');
    assert.ok(plain.values.some((v) => booleans(v).includes('yes')), 'booleans');
    assert.ok(leaks(plain.strings).length > 1000, `${leaks(plain.strings).length} secrets visible in the plain export`);
  });

  it('with every group on, no secret survives: not its head, not its tail, not a number, not a boolean', () => {
    assert.deepEqual(leaks(redacted.strings).slice(0, 10), []);
    // `replace` says how ACTIVITY_SNAPSHOT applies, a kind; every other boolean was content.
    assert.deepEqual([...new Set(redacted.values.flatMap((v) => booleans(v)))], ['replace']);
  });

  it('keeps every id, kind, name and version that the plain export shows', () => {
    const shown = new Set(plain.strings.join('\n').match(/[A-Za-z]+-\d+/g));
    const kept = planter.kept.filter((v) => shown.has(v));
    assert.ok(kept.length > 200, `${kept.length} kept values`);
    const all = redacted.strings.join('\n');
    assert.deepEqual(kept.filter((v) => !all.includes(v)), []);
  });

  it('the redacted file analyses as the plain one, the protobuf echo of a JSON string in forwardedProps included', () => {
    const ext = JSON.parse(redactedText).log._agui as SessionLogExtension;
    assert.equal(ext.redaction.analysisPreserved, true);
    assert.deepEqual(shapes(reread(redactedText)), shapes(reread(plainText)));
    const rules = JSON.stringify(shapes(exchanges));
    // The echo compares equal before redaction, so an encoding-dependent filler would show here.
    assert.ok(!rules.includes('input/forwarded-props-altered'));
    assert.ok(ext.redaction.reencoded > 0, 'protobuf frames with booleans are re-encoded');
  });
});
