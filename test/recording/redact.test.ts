import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BaseEvent } from '@ag-ui/core';
import { EventEncoder } from '@ag-ui/encoder';
import { AGUI_MEDIA_TYPE, decode } from '@ag-ui/proto';
import { bodyOf, type CapturedExchange } from '../../src/exchange/exchange.ts';
import { exportSession, REDACTION_GROUPS, type RedactionGroup, type SessionLogExtension } from '../../src/recording/export.ts';
import { Fillers } from '../../src/recording/fillers.ts';
import { redactExchanges } from '../../src/recording/redact.ts';
import { BARE_SECRETS, SECRET_GROUPS, secretSession } from './secrets.ts';
import { chunked, concat, reread, shapes } from './support.ts';

const session = secretSession();
const ALL = [...REDACTION_GROUPS];

/** Every planted secret in the text, each with the group that should remove it. */
function secretsIn(text: string): { secret: string; group: RedactionGroup | 'any' }[] {
  const found = [...new Set(text.match(/SECRET-[A-Z]+-[A-Za-z0-9-]*/g) ?? [])].map((secret) => {
    const prefix = Object.keys(SECRET_GROUPS).find((p) => secret.startsWith(p));
    assert.ok(prefix, `${secret} has no known prefix`);
    return { secret, group: SECRET_GROUPS[prefix]! };
  });
  for (const [bare, group] of Object.entries(BARE_SECRETS)) if (text.includes(bare)) found.push({ secret: bare, group });
  return found;
}

/** The file's text with every response body decoded beside it: protobuf bodies are base64 in the HAR, and their strings are plain UTF-8 inside. */
function visible(text: string): string {
  return [text, ...reread(text).map((x) => new TextDecoder().decode(bodyOf(x)))].join('\n');
}

describe('redaction of a session with a secret in every redactable place', () => {
  const plain = visible(exportSession(session, { redact: [] }));
  const planted = secretsIn(plain);

  it('plants secrets of every group in every transport and in the request bodies', () => {
    for (const group of [...ALL, 'any']) assert.ok(planted.some((p) => p.group === group), `no ${group} secret planted`);
    for (const tag of ['sse', 'proto', 'jsonl']) {
      for (const prefix of ['SECRET-MSG-delta', 'SECRET-TOOLARG-delta', 'SECRET-RESULT-event', 'SECRET-REASON-delta', 'SECRET-STATE-snap', 'SECRET-FWD-token']) {
        assert.ok(plain.includes(`${prefix}-${tag}`), `${prefix}-${tag}`);
      }
    }
  });

  it('with every group on, no secret survives anywhere in the file, analysis messages included', () => {
    assert.deepEqual(secretsIn(visible(exportSession(session, { redact: ALL }))), []);
  });

  it('keeps the analysis: verdict, runs, rule ids, events and paths', () => {
    const original = shapes(session);
    const text = exportSession(session, { redact: ALL });
    assert.deepEqual(shapes(reread(text)), original);
    const ext = JSON.parse(text).log._agui as SessionLogExtension;
    assert.equal(ext.redaction.analysisPreserved, true);
    assert.deepEqual(ext.redaction.changedExchanges, []);
    // The session is not trivially clean: these must all still be found after redaction.
    const rules = JSON.stringify(original);
    for (const rule of ['state/patch-failed', 'transport/frame-not-json', 'transport/sse-line-ending']) assert.ok(rules.includes(rule), rule);
  });

  it('keeps every body byte for byte in length, chunk for chunk', () => {
    const { exchanges } = redactExchanges(session, ALL);
    exchanges.forEach((x, i) => {
      const y = session[i]!;
      assert.equal(new TextEncoder().encode(x.requestBody).length, new TextEncoder().encode(y.requestBody).length);
      assert.deepEqual(x.chunks.map((c) => [c.time, c.bytes.length]), y.chunks.map((c) => [c.time, c.bytes.length]));
      assert.notDeepEqual(bodyOf(x), bodyOf(y));
    });
  });

  it('records what it redacted', () => {
    const ext = JSON.parse(exportSession(session, { redact: ALL })).log._agui as SessionLogExtension;
    assert.deepEqual(ext.redaction.groups, ALL);
    for (const g of ALL) assert.ok(ext.redaction.values[g] > 0, `${g}: ${ext.redaction.values[g]}`);
    assert.equal(ext.redaction.unstructured.frames, 2);
    assert.equal(ext.redaction.reencoded, 1);
    // A note names the entry of the file it is written in.
    const entry = session.findIndex((x) => x.source === 'secrets#proto');
    assert.match(ext.redaction.notes.join('\n'), new RegExp(`^entries/${entry}: the protobuf frame at byte \\d+ was re-encoded`));
  });

  for (const group of ALL) {
    it(`the ${group} group removes its secrets and only those`, () => {
      const exported = exportSession(session, { redact: [group] });
      const text = visible(exported);
      const left = secretsIn(text);
      // Values that belong to no group go with any group that redacts bodies; `query` touches none.
      assert.deepEqual(left.filter((p) => p.group === group || (p.group === 'any' && group !== 'query')), []);
      const others = planted.filter((p) => p.group !== group && p.group !== 'any');
      assert.deepEqual(others.filter((p) => !text.includes(p.secret)), [], 'secrets of other groups must stay');
      assert.deepEqual(shapes(reread(exported)), shapes(session));
    });
  }

  it('never touches ids, names, types, pointers or the tool definitions', () => {
    const text = visible(exportSession(session, { redact: ALL }));
    for (const kept of ['thread-secrets', 'run-proto', 'call-1', 'tc-sse', 'rm-jsonl', 'act-sse', 'lookup', '/stops/-', 'REASONING_ENCRYPTED_VALUE', 'image/png', 'api_key=', 'mode=']) {
      assert.ok(text.includes(kept), kept);
    }
  });
});

describe('protobuf frames that cannot be redacted in place', () => {
  const encoder = new EventEncoder();
  const frame = (e: object) => encoder.encodeProtobuf(e as BaseEvent);

  it('re-encodes a frame whose size changes, moving later chunk boundaries with it', () => {
    const started = frame({ type: 'RUN_STARTED', threadId: 't', runId: 'r' });
    const snap = frame({ type: 'STATE_SNAPSHOT', snapshot: { a: 'SECRET-STATE-same', b: 'SECRET-STATE-same' } });
    // An envelope field no build knows (number 2000, varint): decoders skip it, so re-encoding drops it.
    const unknown = Uint8Array.of(0x80, 0x7d, 0x01);
    const grown = concat([snap.subarray(4), unknown]);
    const withUnknown = concat([Uint8Array.of(0, 0, 0, grown.length), grown]);
    assert.deepEqual(decode(grown), decode(snap.subarray(4)));
    const finished = frame({ type: 'RUN_FINISHED', threadId: 't', runId: 'r' });
    const body = concat([started, withUnknown, finished]);
    const x: CapturedExchange = {
      source: 'grown',
      requestBody: JSON.stringify({ threadId: 't', runId: 'r', messages: [] }),
      responseContentType: AGUI_MEDIA_TYPE,
      chunks: chunked(body, [started.length + 5, 10]),
    };
    const { exchanges, report } = redactExchanges([x], ['state']);
    const out = exchanges[0]!;
    assert.equal(report.reencoded, 1);
    assert.match(report.notes[0]!, /is now -3 bytes/);
    assert.equal(bodyOf(out).length, body.length - 3);
    assert.deepEqual(out.chunks.map((c) => c.bytes.length), [started.length + 5, 10, body.length - started.length - 15 - 3]);
    assert.ok(!new TextDecoder().decode(bodyOf(out)).includes('SECRET'));
    assert.deepEqual(shapes([out]), shapes([x]));
  });

  it('blanks frames it cannot decode, which stay undecodable', () => {
    const started = frame({ type: 'RUN_STARTED', threadId: 't', runId: 'r' });
    const garbage = new TextEncoder().encode('\x0a\x05SECRET-BROKEN-proto and more');
    const body = concat([started, Uint8Array.of(0, 0, 0, garbage.length), garbage, frame({ type: 'RUN_FINISHED', threadId: 't', runId: 'r' })]);
    const x: CapturedExchange = { source: 'garbage', responseContentType: AGUI_MEDIA_TYPE, chunks: [{ time: 1, bytes: body }] };
    const { exchanges, report } = redactExchanges([x], ['messages']);
    assert.equal(report.unstructured.frames, 1);
    assert.ok(!new TextDecoder().decode(bodyOf(exchanges[0]!)).includes('SECRET'));
    assert.deepEqual(shapes(exchanges), shapes([x]));
    assert.ok(JSON.stringify(shapes([x])).includes('transport/proto-undecodable'));
  });
});

describe('a value spelled differently in two places', () => {
  it('gets one filler: the escaped string and the longer number are padded with spaces after the value', () => {
    const body = '{"threadId":"t","runId":"r","messages":[],"state":{"a":"say \\"hi\\"","b":1.50,"c":false,"d":[true]},"forwardedProps":{"a":"say \\"hi\\""}}';
    const x: CapturedExchange = {
      source: 'spelled', requestBody: body, responseContentType: 'application/x-ndjson',
      chunks: [{ time: 1, bytes: new TextEncoder().encode('{"type":"STATE_SNAPSHOT","snapshot":{"a":"say \\"hi\\"","b":1.5,"c":false}}\n') }],
    };
    const { exchanges } = redactExchanges([x], ['state', 'forwardedProps']);
    const out = exchanges[0]!;
    assert.equal(out.requestBody, '{"threadId":"t","runId":"r","messages":[],"state":{"a":"xxxxxxxx"  ,"b":1.1 ,"c":"~1","d":["~~"]},"forwardedProps":{"a":"xxxxxxxx"  }}');
    assert.equal(new TextDecoder().decode(bodyOf(out)), '{"type":"STATE_SNAPSHOT","snapshot":{"a":"xxxxxxxx"  ,"b":1.1,"c":"~1"}}\n');
  });
});

describe('a request body in a framework envelope', () => {
  it('is read as the input it carries: the operation and the ids stay, so it still reads as an enveloped input', () => {
    const body = JSON.stringify({ method: 'agent/run', params: { agentId: 'default' }, body: { threadId: 't', runId: 'r', messages: [{ id: 'u', role: 'user', content: 'SECRET-MSG-x' }] } });
    const stream = '{"type":"RUN_STARTED","threadId":"t","runId":"r"}\n{"type":"RUN_FINISHED","threadId":"t","runId":"r"}\n';
    const x: CapturedExchange = { source: 'enveloped', requestBody: body, responseContentType: 'application/x-ndjson', chunks: [{ time: 1, bytes: new TextEncoder().encode(stream) }] };
    const out = redactExchanges([x], ['messages']).exchanges[0]!;
    assert.equal(out.requestBody, '{"method":"agent/run","params":{"agentId":"xxxxxxx"},"body":{"threadId":"t","runId":"r","messages":[{"id":"u","role":"user","content":"xxxxxxxxxxxx"}]}}');
    assert.deepEqual(shapes([out]), shapes([x]));
    assert.ok(JSON.stringify(shapes([x])).includes('input/enveloped'));
  });
});

describe('the query group', () => {
  it('fills every query-string value, and the name of an exchange named by its URL, keeping the names of the parameters', () => {
    const url = 'http://h/agent?api_key=s%20ecret&empty=&flag&mode=a+b#frag?x=1';
    const x: CapturedExchange = { source: url, url, responseContentType: 'text/event-stream', chunks: [] };
    const { exchanges, report } = redactExchanges([x, { ...x, source: 'file.har#entries/1' }], ['query']);
    assert.equal(exchanges[0]!.url, 'http://h/agent?api_key=xxxxxxx&empty=&flag&mode=xxx#frag?x=1');
    assert.equal(exchanges[0]!.source, exchanges[0]!.url);
    assert.equal(exchanges[1]!.source, 'file.har#entries/1');
    assert.equal(exchanges[1]!.url, exchanges[0]!.url, 'equal values, equal fillers');
    assert.equal(report.values.query, 4);
    const body = '{"threadId":"t","runId":"r","messages":[],"forwardedProps":{"key":"s ecret"}}';
    const both = redactExchanges([{ ...x, url: 'http://h/?other=abcdefg&api_key=s%20ecret', requestBody: body }], ['query', 'forwardedProps']).exchanges[0]!;
    assert.equal(both.url, 'http://h/?other=xxxxxxx&api_key=xxxxxx1');
    assert.match(both.requestBody!, /"key":"xxxxxx1"/, 'the value gets one filler in the URL and in the body');
  });
});

describe('no group chosen', () => {
  it('exports the capture untouched and says nothing was redacted', () => {
    const { exchanges, report } = redactExchanges(session, []);
    assert.equal(exchanges[0], session[0]);
    assert.deepEqual(report.values, { messages: 0, tools: 0, reasoning: 0, state: 0, forwardedProps: 0, query: 0 });
  });
});

describe('fillers', () => {
  it('keep length and shape, and keep equal values equal and different ones different', () => {
    const f = new Fillers();
    assert.equal(f.string('secret', 6), 'xxxxxx');
    assert.equal(f.string('SECRET', 6), 'xxxxx1');
    assert.equal(f.string('secret', 6), 'xxxxxx');
    assert.equal(f.string('é', 2), 'xx');
    assert.equal(f.number('987654321'), '111111111');
    assert.equal(f.number('987654322'), '111111112');
    assert.equal(f.number('-0.50e+07'), '-1.11e+11');
    assert.equal(f.number('-0.5e+7'), '-1.1e+1');
    assert.equal(f.number('0'), '1');
    assert.equal(f.number('7'), '2');
    const many = new Set(Array.from({ length: 500 }, (_, i) => f.number(String(100 + i))));
    assert.equal(many.size, 500);
    for (const n of many) assert.match(n, /^[1-9]\d\d$/);
    assert.equal(f.number('secret', 9), 'xxxxxxxxx');
  });

  it('are chosen by value, not by spelling: numbers by their shortest spelling, booleans as two characters of their own', () => {
    const f = new Fillers();
    assert.equal(f.numberValue('1.50'), f.numberValue('1.5'));
    assert.equal(f.numberValue('15e-1'), f.numberValue('1.5'));
    assert.notEqual(f.numberValue('2.5'), f.numberValue('1.5'));
    assert.equal(f.numberValue('1e21'), '1e11', 'no longer than the spelling it replaces');
    assert.equal(f.boolean(false), '~~');
    assert.equal(f.boolean(true), '~1');
    assert.equal(f.boolean(false), '~~');
  });
});
