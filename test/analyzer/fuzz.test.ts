import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BaseEvent } from '@ag-ui/core';
import { EventEncoder } from '@ag-ui/encoder';
import { ExchangeAnalyzer, PRE_1_0_READINGS, ThreadTracker, type ExchangeReport } from '../../src/analyzer/index.ts';
import { MAX_PER_RULE } from '../../src/analyzer/sink.ts';
import { ALL_RULES } from '../../src/catalog/index.ts';
import { concat, prng, randomCuts, utf8 } from '../wire/helpers.ts';

/*
 * Hostile input through the whole pipeline. The analyzer is synchronous, so a hang would block the
 * runner rather than time out: every case measures its own time instead, against bounds loose enough
 * for a slow CI machine and tight enough that quadratic behaviour on these sizes would blow them.
 */

const SSE = 'text/event-stream';
const PROTO = 'application/vnd.ag-ui.event+proto';
const JSONL = 'application/x-ndjson';
const JSON_TYPE = 'application/json';
const CONTENT_TYPES = [SSE, PROTO, JSONL, JSON_TYPE, ''];
const RULES = new Map(ALL_RULES.map((r) => [r.id, r]));

interface Run {
  report: ExchangeReport;
  frames: number;
  ms: number;
}

interface Options {
  contentType?: string;
  input?: string;
  cuts?: number[];
  status?: number;
  thread?: ThreadTracker;
  /** The page ended the response itself. */
  abandoned?: boolean;
}

function analyze(body: Uint8Array, o: Options = {}): Run {
  const start = performance.now();
  const a = new ExchangeAnalyzer({ source: 'fuzz', contentType: o.contentType ?? SSE, requestBody: o.input, status: o.status, thread: o.thread });
  let from = 0;
  for (const cut of [...(o.cuts ?? []), body.length]) {
    a.push(body.subarray(from, cut), 0);
    from = cut;
  }
  a.end(0, o.abandoned);
  return { report: a.report(), frames: a.eventCount, ms: performance.now() - start };
}

/** What must hold of any report, whatever went in. */
function wellFormed({ report, frames }: Run, what: string): void {
  const all = [...report.input.findings, ...report.findings];
  for (const f of all) {
    const rule = RULES.get(f.rule);
    assert.ok(rule, `${what}: unknown rule ${f.rule}`);
    assert.equal(f.severity, rule.severity, what);
    assert.ok(f.event === null || (Number.isInteger(f.event) && f.event >= 0 && f.event < frames), `${what}: ${f.rule} names event ${f.event} of ${frames}`);
    assert.equal(typeof f.message, 'string', what);
  }
  for (const id of RULES.keys()) {
    assert.ok(report.findings.filter((f) => f.rule === id).length <= MAX_PER_RULE + 1, `${what}: ${id} exceeds the cap`);
  }
  // A pre-1.0 exchange's verdict is its own client's: readiness items never count, and era.ts may re-decide fatality.
  const pre = report.readiness !== null;
  assert.ok(pre || all.every((f) => f.readiness === undefined), `${what}: readiness items only on a pre-1.0 reading`);
  const fatal = all.some((f) => !f.readiness && ((pre ? PRE_1_0_READINGS.get(f.rule)?.fatal : undefined) ?? RULES.get(f.rule)!.fatal));
  assert.equal(report.verdict, fatal ? 'failed' : 'completed', `${what}: the verdict is failed exactly when something fatal was found`);
  for (const r of report.runs) assert.ok(['success', 'interrupt', 'cancelled', 'error', 'truncated'].includes(r.outcome), `${what}: outcome ${r.outcome}`);
  assert.ok(report.runs.filter((r) => r.requested).length <= 1, `${what}: at most one requested run`);
}

const input = JSON.stringify({ threadId: 't1', runId: 'r1', protocolVersion: '1.1', messages: [{ id: 'u1', role: 'user', content: 'hi' }], state: { n: 0 } });

/** A run exercising every stage: chunks, subagents, steps, state, reasoning, multi-byte text. */
const sample = [
  { type: 'RUN_STARTED', threadId: 't1', runId: 'r1', protocolVersion: '1.1' },
  { type: 'STEP_STARTED', stepName: 'plan' },
  { type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' },
  { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'Grüße 👨\u200d👩\u200d👧 e\u0301 日本' },
  { type: 'TEXT_MESSAGE_END', messageId: 'm1' },
  { type: 'SUBAGENT_STARTED', subagentRunId: 's1', name: 'researcher' },
  { type: 'TEXT_MESSAGE_CHUNK', messageId: 'm2', subagentRunId: 's1', delta: 'from the subagent' },
  { type: 'TEXT_MESSAGE_CHUNK', delta: ' — more' },
  { type: 'SUBAGENT_FINISHED', subagentRunId: 's1' },
  { type: 'TOOL_CALL_CHUNK', toolCallId: 'c1', toolCallName: 'search', parentMessageId: 'm1', delta: '{"q":' },
  { type: 'TOOL_CALL_CHUNK', delta: '"wéather"}' },
  { type: 'STATE_DELTA', delta: [{ op: 'replace', path: '/n', value: 1 }] },
  { type: 'STEP_FINISHED', stepName: 'plan' },
  { type: 'REASONING_MESSAGE_CHUNK', messageId: 'r1', delta: 'hmm' },
  { type: 'RUN_FINISHED', threadId: 't1', runId: 'r1', outcome: { type: 'success' } },
];
const encoder = new EventEncoder({ accept: PROTO });
const validBodies: Record<string, Uint8Array> = {
  [SSE]: utf8.encode(sample.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('')),
  [`${SSE} (CRLF, comments, multi-line data)`]: utf8.encode(sample.map((e) => `: tick\r\nid: 1\r\ndata: ${JSON.stringify(e).replace(',', ',\r\ndata: ')}\r\n\r\n`).join('')),
  [PROTO]: concat(...sample.map((e) => encoder.encodeProtobuf(e as BaseEvent))),
  [JSONL]: utf8.encode(sample.map((e) => JSON.stringify(e)).join('\n') + '\n'),
  [JSON_TYPE]: utf8.encode(JSON.stringify(sample, null, 2)),
};
const typeOf = (label: string): string => label.split(' ')[0]!;

describe('analyzer under hostile input', () => {
  it('reads each valid sample cleanly (the baseline the other cases perturb)', () => {
    for (const [label, body] of Object.entries(validBodies)) {
      const run = analyze(body, { contentType: typeOf(label), input });
      wellFormed(run, label);
      const problems = run.report.findings.filter((f) => f.rule !== 'transport/sse-line-ending');
      assert.deepEqual(problems, [], label);
      assert.equal(run.report.verdict, 'completed', label);
      assert.deepEqual(run.report.runs.map((r) => r.outcome), ['success'], label);
    }
  });

  it('gives the same report however a valid stream is split, at every byte offset and byte by byte', () => {
    for (const [label, body] of Object.entries(validBodies)) {
      for (const contentType of [typeOf(label), '']) {
        const whole = analyze(body, { contentType, input }).report;
        for (let cut = 0; cut <= body.length; cut++) {
          assert.deepEqual(analyze(body, { contentType, input, cuts: [cut] }).report, whole, `${label} as ${JSON.stringify(contentType)} split at ${cut}`);
        }
        const bytewise = Array.from({ length: body.length }, (_, i) => i);
        assert.deepEqual(analyze(body, { contentType, input, cuts: bytewise }).report, whole, `${label} byte by byte`);
      }
    }
  });

  it('never throws on random bytes as SSE, protobuf, JSONL, JSON or unlabelled bodies', () => {
    const rand = prng(11);
    for (let round = 0; round < 300; round++) {
      const body = new Uint8Array(Math.floor(rand() * 2048));
      for (let i = 0; i < body.length; i++) {
        const r = rand();
        // Weighted towards the bytes the readers branch on.
        body[i] = r < 0.08 ? 0x0a : r < 0.12 ? 0x0d : r < 0.16 ? 0x3a : r < 0.2 ? 0x22 : r < 0.24 ? 0x7b : r < 0.27 ? 0x5b : r < 0.3 ? 0 : Math.floor(rand() * 256);
      }
      for (const contentType of CONTENT_TYPES) {
        const run = analyze(body, { contentType, input, cuts: randomCuts(body.length, Math.floor(rand() * 6), rand) });
        wellFormed(run, `round ${round} as ${JSON.stringify(contentType)}`);
        assert.ok(run.ms < 2000, `round ${round}: ${run.ms} ms`);
      }
    }
  });

  it('never throws on valid streams with bytes flipped, inserted and cut', () => {
    const rand = prng(12);
    for (let round = 0; round < 200; round++) {
      for (const [label, valid] of Object.entries(validBodies)) {
        const bytes = Array.from(valid);
        for (let m = Math.floor(rand() * 6); m > 0; m--) {
          const at = Math.floor(rand() * bytes.length);
          const op = rand();
          if (op < 0.4) bytes[at] = Math.floor(rand() * 256);
          else if (op < 0.7) bytes.splice(at, 1 + Math.floor(rand() * 8));
          else bytes.splice(at, 0, ...Array.from({ length: 1 + Math.floor(rand() * 4) }, () => Math.floor(rand() * 256)));
        }
        const body = Uint8Array.from(bytes.slice(0, rand() < 0.2 ? Math.floor(rand() * bytes.length) : bytes.length));
        for (const contentType of [typeOf(label), '']) {
          wellFormed(analyze(body, { contentType, input, cuts: randomCuts(body.length, Math.floor(rand() * 8), rand) }), `${label} round ${round}`);
        }
      }
    }
  });

  it('never throws on random sequences of plausible events, and its verdict always follows its findings', () => {
    const rand = prng(13);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
    const ids = ['a', 'b', '__proto__'];
    const owners = [undefined, undefined, 's1', 's2'];
    const maybe = (key: string, values: readonly unknown[]) => (rand() < 0.5 ? {} : { [key]: pick(values) });
    const some = <T>(make: () => T): T[] => Array.from({ length: 1 + Math.floor(rand() * 2) }, make);
    const interrupts = () => some(() => ({ id: pick(ids), reason: 'r', ...maybe('expiresAt', ['2001-01-01T00:00:00Z', '2999-01-01T00:00:00Z']) }));
    const event = (): Record<string, unknown> => {
      const owner = maybe('subagentRunId', owners.filter(Boolean));
      const base = pick([
        () => ({ type: 'RUN_STARTED', threadId: pick(['t1', 't2']), runId: pick(['r1', 'r2']), ...maybe('protocolVersion', ['1.0', '1.1', '1.10', 'x']) }),
        () => ({ type: 'RUN_FINISHED', threadId: 't1', runId: pick(['r1', 'r2']), ...maybe('outcome', [{ type: 'interrupt', interrupts: interrupts() }, { type: 'cancelled' }, { type: 'odd' }]) }),
        () => ({ type: 'RUN_ERROR', message: 'x' }),
        () => ({ type: pick(['TEXT_MESSAGE_START', 'TEXT_MESSAGE_END', 'REASONING_START', 'REASONING_END', 'REASONING_MESSAGE_END']), messageId: pick(ids), ...owner }),
        () => ({ type: 'REASONING_MESSAGE_START', messageId: pick(ids), role: 'reasoning', ...owner }),
        () => ({ type: pick(['TEXT_MESSAGE_CONTENT', 'REASONING_MESSAGE_CONTENT']), messageId: pick(ids), delta: 'd', ...owner }),
        () => ({ type: 'TOOL_CALL_START', toolCallId: pick(ids), toolCallName: 'f', ...maybe('parentMessageId', ids), ...owner }),
        () => ({ type: pick(['TOOL_CALL_ARGS', 'TOOL_CALL_END']), toolCallId: pick(ids), ...(rand() < 0.5 ? { delta: '{' } : {}), ...owner }),
        () => ({ type: pick(['TEXT_MESSAGE_CHUNK', 'REASONING_MESSAGE_CHUNK']), ...maybe('messageId', ids), ...maybe('role', ['assistant', 'user']), ...maybe('delta', ['x', '']), ...owner }),
        () => ({ type: 'TOOL_CALL_CHUNK', ...maybe('toolCallId', ids), ...maybe('toolCallName', ['f', 'g']), ...maybe('delta', ['x']), ...owner }),
        () => ({ type: pick(['STEP_STARTED', 'STEP_FINISHED']), stepName: pick(ids), ...owner }),
        () => ({ type: 'SUBAGENT_STARTED', subagentRunId: pick(['s1', 's2', '__proto__']), name: 'n', ...maybe('parentSubagentRunId', ['s1', 's2', 's9']) }),
        () => ({ type: pick(['SUBAGENT_FINISHED', 'SUBAGENT_ERROR']), subagentRunId: pick(['s1', 's2', '__proto__']), message: 'm' }),
        () => ({ type: 'STATE_DELTA', delta: [{ op: pick(['add', 'replace', 'remove', 'test', 'move']), path: pick(['/n', '/x/y', '/__proto__/p', '']), from: '/n', value: 1 }] }),
        () => ({ type: 'STATE_SNAPSHOT', snapshot: pick([{ n: 1 }, [], null, 'text']) }),
        () => ({ type: 'ACTIVITY_SNAPSHOT', messageId: pick(ids), activityType: 'A', content: {}, ...owner }),
        () => ({ type: 'ACTIVITY_DELTA', messageId: pick(ids), activityType: 'A', patch: [], ...owner }),
        () => ({ type: 'MESSAGES_SNAPSHOT', messages: [] }),
        () => ({ type: pick(['RAW', 'CUSTOM', 'NOT_A_TYPE']), event: {}, name: pick(['n', 'on_interrupt']), value: 1 }),
      ])();
      return base;
    };
    const thread = new ThreadTracker();
    const seen = new Set<string>();
    for (let round = 0; round < 1500; round++) {
      const events = Array.from({ length: Math.floor(rand() * 30) }, event);
      const body = utf8.encode(events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join(''));
      const resume = rand() < 0.5 ? { resume: some(() => ({ interruptId: pick(ids), status: pick(['resolved', 'cancelled']) })) } : {};
      const request = JSON.stringify({ threadId: 't1', runId: pick(['r1', 'r2']), ...maybe('protocolVersion', ['1.0', '1.1']), messages: [], ...resume });
      // Now and then the request is unknown, as for a bare response body checked on its own.
      const run = analyze(body, { input: rand() < 0.1 ? undefined : request, thread, abandoned: rand() < 0.1 });
      wellFormed(run, `round ${round}: ${JSON.stringify(events)}`);
      for (const f of [...run.report.input.findings, ...run.report.findings]) seen.add(f.rule);
    }
    // The generator must reach the verifier's rules, not just bounce off enforcement.
    const verifierRules = ALL_RULES.filter((r) => /^(lifecycle|streaming|tool-call|subagent|identity|state|interrupt)\//.test(r.id)).map((r) => r.id);
    // Two rules need arrangements a uniform generator rarely builds (two subagent lanes streaming with no parent
    // stream; an interrupted exchange, then a resume answering its expired interrupt): the fixtures pin those.
    const rare = new Set(['streaming/chunk-ambiguous-continuation', 'interrupt/answered-after-expiry']);
    const missed = verifierRules.filter((id) => !seen.has(id) && !rare.has(id));
    assert.deepEqual(missed, [], `random sequences never reached: ${missed.join(', ')}`);
  });

  it('reads a 10 MB single SSE line in bounded time, whole or in 64 KiB chunks, LF or CRLF', () => {
    const big = 'x'.repeat(10 * 1024 * 1024);
    const frame = (e: unknown) => `data: ${JSON.stringify(e)}\n\n`;
    const text =
      frame(sample[0]) +
      frame({ type: 'TEXT_MESSAGE_START', messageId: 'big' }) +
      frame({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'big', delta: big }) +
      frame({ type: 'TEXT_MESSAGE_END', messageId: 'big' }) +
      frame({ type: 'RUN_FINISHED', threadId: 't1', runId: 'r1' });
    for (const [label, body] of [['LF', utf8.encode(text)], ['CRLF', utf8.encode(text.replace(/\n/g, '\r\n'))]] as const) {
      const chunked = Array.from({ length: Math.floor(body.length / 65536) }, (_, i) => (i + 1) * 65536);
      for (const cuts of [[], chunked]) {
        const run = analyze(body, { input, cuts });
        wellFormed(run, label);
        assert.equal(run.report.verdict, 'completed', label);
        assert.equal(run.frames, 5);
        assert.ok(run.ms < 10_000, `${label} in ${cuts.length + 1} chunks: ${run.ms} ms`);
      }
    }
    const unterminated = utf8.encode(`data: ${big}`);
    const run = analyze(unterminated, { input, cuts: Array.from({ length: 159 }, (_, i) => (i + 1) * 65536) });
    assert.deepEqual(run.report.findings.map((f) => f.rule).sort(), ['lifecycle/truncated', 'transport/sse-incomplete-event']);
    assert.ok(run.ms < 10_000, `unterminated: ${run.ms} ms`);
  });

  it('survives JSON nested 100,000 levels deep in event values and in the request body', () => {
    const depth = 100_000;
    const arrays = '['.repeat(depth) + ']'.repeat(depth);
    const objects = '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
    const started = JSON.stringify(sample[0]);
    const finished = '{"type":"RUN_FINISHED","threadId":"t1","runId":"r1"}';
    const sse = (...payloads: string[]) => utf8.encode(payloads.map((p) => `data: ${p}\n\n`).join(''));
    const cases: [string, Uint8Array, string, 'completed' | 'failed'][] = [
      ['CUSTOM value', sse(started, `{"type":"CUSTOM","name":"deep","value":${arrays}}`, finished), input, 'completed'],
      ['RAW event', sse(started, `{"type":"RAW","event":${objects}}`, finished), input, 'completed'],
      ['STATE_SNAPSHOT', sse(started, `{"type":"STATE_SNAPSHOT","snapshot":${objects}}`, `{"type":"STATE_DELTA","delta":[{"op":"add","path":"/b","value":1}]}`, finished), input, 'completed'],
      ['unknown property', sse(started.replace('{', `{"future":${objects},`), finished), input, 'completed'],
      ['malformed known field', sse(`{"type":"RUN_STARTED","threadId":${arrays},"runId":"r1"}`, finished), input, 'failed'],
      ['RUN_STARTED.input echo', sse(started.replace('{', `{"input":{"threadId":"t1","runId":"r1","messages":[],"forwardedProps":${objects}},`), finished), input, 'completed'],
      ['forwardedProps', sse(started, finished), `{"threadId":"t1","runId":"r1","protocolVersion":"1.1","messages":[],"forwardedProps":${objects}}`, 'completed'],
      ['state', sse(started, `{"type":"STATE_DELTA","delta":[{"op":"add","path":"/b","value":1}]}`, finished), `{"threadId":"t1","runId":"r1","protocolVersion":"1.1","messages":[],"state":${objects}}`, 'completed'],
      ['messages', sse(started, finished), `{"threadId":"t1","runId":"r1","protocolVersion":"1.1","messages":${arrays}}`, 'failed'],
      ['request body that is only nesting', sse(started, finished), arrays, 'failed'],
      ['JSON array body', utf8.encode(`[${started},${arrays}]`), input, 'failed'],
      ['JSONL body', utf8.encode(`${started}\n${objects}\n`), input, 'failed'],
    ];
    for (const [label, body, request, verdict] of cases) {
      const contentType = label === 'JSON array body' ? JSON_TYPE : label === 'JSONL body' ? JSONL : SSE;
      const run = analyze(body, { input: request, contentType });
      wellFormed(run, label);
      assert.equal(run.report.verdict, verdict, `${label}: ${JSON.stringify(run.report.findings.map((f) => f.rule))}`);
      assert.ok(run.ms < 5000, `${label}: ${run.ms} ms`);
    }
  });

  it('reports invalid UTF-8 on the frame that carried it and reads on, in every position a reader meets it', () => {
    const bad = [
      [0xff],
      [0xc0, 0x80], // overlong NUL
      [0xed, 0xa0, 0x80], // an encoded surrogate
      [0xe2, 0x82], // truncated sequence
      [0xf4, 0x90, 0x80, 0x80], // past U+10FFFF
      [0x80],
    ];
    for (const seq of bad) {
      const head = utf8.encode(`data: ${JSON.stringify(sample[0])}\n\ndata: {"type":"CUSTOM","name":"`);
      const tail = utf8.encode(`","value":1}\n\ndata: ${JSON.stringify(sample.at(-1))}\n\n`);
      for (const [contentType, body] of [
        [SSE, concat(head, Uint8Array.from(seq), tail)],
        [JSONL, concat(utf8.encode(`${JSON.stringify(sample[0])}\n{"type":"CUSTOM","name":"`), Uint8Array.from(seq), utf8.encode(`","value":1}\n${JSON.stringify(sample.at(-1))}\n`))],
      ] as const) {
        const run = analyze(body, { contentType, input });
        wellFormed(run, `${contentType} ${seq}`);
        assert.equal(run.report.verdict, 'completed');
        assert.deepEqual(run.report.findings.map((f) => [f.rule, f.event]), [['transport/invalid-utf8', 1]], `${contentType} ${seq}`);
      }
    }
    // Lone surrogates survive JSON.parse as strings; in the request and in events they are data, not errors.
    const surrogates = analyze(utf8.encode(`data: {"type":"RUN_STARTED","threadId":"t1","runId":"r1","protocolVersion":"1.1"}\n\ndata: {"type":"CUSTOM","name":"\\ud800","value":"\\udfff"}\n\ndata: {"type":"RUN_FINISHED","threadId":"t1","runId":"r1"}\n\n`), {
      input: '{"threadId":"t1","runId":"r1","protocolVersion":"1.1","messages":[{"id":"\\ud800","role":"user","content":"\\udc00"}]}',
    });
    wellFormed(surrogates, 'lone surrogates');
    assert.equal(surrogates.report.verdict, 'completed');
  });

  it('treats __proto__ and constructor keys as data everywhere and never pollutes Object.prototype', () => {
    const before = Object.getOwnPropertyNames(Object.prototype).sort();
    const poison = '{"polluted":"yes"}';
    const request = `{"__proto__":${poison},"constructor":{"prototype":${poison}},"threadId":"__proto__","runId":"constructor","protocolVersion":"1.1",
      "messages":[{"id":"__proto__","role":"user","content":"hi","__proto__":${poison}},{"id":"__proto__","role":"assistant","toolCalls":[{"id":"constructor","type":"function","function":{"name":"f","arguments":"{}"}}]},{"id":"t","role":"tool","toolCallId":"constructor","content":"ok"}],
      "state":{"__proto__":${poison}},"forwardedProps":{"__proto__":${poison},"constructor":{"prototype":${poison}}},
      "resume":[{"interruptId":"__proto__","status":"resolved","payload":{"__proto__":${poison}}}]}`;
    const events = [
      `{"type":"RUN_STARTED","threadId":"__proto__","runId":"constructor","protocolVersion":"1.1","__proto__":${poison},"input":{"threadId":"__proto__","runId":"constructor","messages":[],"forwardedProps":{"__proto__":${poison}}}}`,
      `{"type":"TEXT_MESSAGE_START","messageId":"__proto__","metadata":{"__proto__":${poison},"constructor":{"prototype":${poison}}}}`,
      `{"type":"TEXT_MESSAGE_CONTENT","messageId":"__proto__","delta":"x","constructor":${poison}}`,
      `{"type":"TEXT_MESSAGE_END","messageId":"__proto__"}`,
      `{"type":"TOOL_CALL_CHUNK","toolCallId":"constructor","toolCallName":"hasOwnProperty","parentMessageId":"__proto__","delta":"{"}`,
      `{"type":"SUBAGENT_STARTED","subagentRunId":"__proto__","name":"constructor","parentSubagentRunId":"toString"}`,
      `{"type":"STEP_STARTED","stepName":"__proto__","subagentRunId":"__proto__"}`,
      `{"type":"STEP_FINISHED","stepName":"__proto__","subagentRunId":"__proto__"}`,
      `{"type":"SUBAGENT_FINISHED","subagentRunId":"__proto__"}`,
      `{"type":"STATE_SNAPSHOT","snapshot":{"__proto__":${poison},"constructor":{"prototype":${poison}}}}`,
      `{"type":"STATE_DELTA","delta":[{"op":"add","path":"/__proto__/polluted","value":"yes"}]}`,
      `{"type":"STATE_DELTA","delta":[{"op":"add","path":"/constructor/prototype/polluted","value":"yes"}]}`,
      `{"type":"STATE_DELTA","delta":[{"op":"replace","path":"/__proto__","value":${poison}}]}`,
      `{"type":"CUSTOM","name":"__proto__","value":{"__proto__":${poison}}}`,
      `{"type":"RUN_FINISHED","threadId":"__proto__","runId":"constructor","outcome":{"type":"interrupt","interrupts":[{"id":"__proto__","reason":"constructor","__proto__":${poison}}]}}`,
    ];
    const thread = new ThreadTracker();
    const run = analyze(utf8.encode(events.map((e) => `data: ${e}\n\n`).join('')), { input: request, thread });
    wellFormed(run, '__proto__ stream');
    const next = analyze(utf8.encode(events.map((e) => `data: ${e}\n\n`).join('')), { input: request, thread });
    wellFormed(next, '__proto__ resume');
    for (const contentType of CONTENT_TYPES) {
      const body = contentType === JSON_TYPE ? `[${events.join(',')}]` : contentType === JSONL ? events.join('\n') : events.map((e) => `data: ${e}\n\n`).join('');
      wellFormed(analyze(utf8.encode(body), { input: request, contentType }), `__proto__ as ${contentType}`);
    }

    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted'), false);
    assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), before);
    const { report } = run;
    // The keys were judged as members, not swallowed as prototypes: closed objects strip them with a warning.
    assert.ok(report.findings.some((f) => f.rule === 'unrecognised/property' && f.path === '/__proto__' && f.event === 0), 'RUN_STARTED.__proto__ stripped');
    assert.ok(report.input.findings.some((f) => f.rule === 'unrecognised/property' && f.path === '/__proto__'), 'RunAgentInput.__proto__ stripped');
    assert.ok(report.input.findings.some((f) => f.rule === 'input/duplicate-message-id'), 'message ids named __proto__ are compared like any other');
    assert.ok(!report.input.findings.some((f) => f.rule === 'input/tool-message-without-call'), 'a toolCallId named constructor is found like any other');
    assert.ok(report.findings.some((f) => f.rule === 'subagent/unknown-parent'), 'parentSubagentRunId "toString" is not an inherited member');
    // RFC 6902 names members, and JSON.parse made __proto__ an own member: the patches apply to that data, not the prototype.
    assert.ok(!report.findings.some((f) => f.rule === 'state/patch-failed'), 'patches naming __proto__ and constructor apply to own members');
    assert.deepEqual(report.runs.map((r) => [r.runId, r.outcome]), [['constructor', 'interrupt']]);
    assert.ok(next.report.input.findings.every((f) => f.rule !== 'interrupt/resume-uncovered'), 'the resume entry "__proto__" covers interrupt "__proto__"');
  });

  it('caps retained findings and keeps memory bounded over 1,000 nested runs and 100,000 events', () => {
    const gc = (globalThis as { gc?: () => void }).gc;
    const heap = () => {
      gc?.();
      return process.memoryUsage().heapUsed;
    };
    // Run with --expose-gc for a tight bound; without it heapUsed includes garbage, so the bound is generous.
    const bound = gc ? 32 * 1024 * 1024 : 256 * 1024 * 1024;

    const nested = new ExchangeAnalyzer({ source: 'nested', contentType: SSE, requestBody: input });
    for (let i = 0; i < 1000; i++) nested.push(utf8.encode(`data: {"type":"RUN_STARTED","threadId":"t1","runId":"r${i}","protocolVersion":"1.1"}\n\ndata: {"type":"TEXT_MESSAGE_START","messageId":"m${i}"}\n\n`), i);
    nested.end(1000);
    const n = nested.report();
    assert.equal(n.verdict, 'failed');
    assert.equal(n.runs.length, 1000);
    const nestedFindings = n.findings.filter((f) => f.rule === 'lifecycle/nested-run-started');
    assert.equal(nestedFindings.length, MAX_PER_RULE + 1, 'the cap keeps 100 and one summary line');
    assert.match(nestedFindings.at(-1)!.message, /^899 more findings of lifecycle\/nested-run-started/);

    const base = heap();
    const start = performance.now();
    const a = new ExchangeAnalyzer({ source: 'flood', contentType: SSE, requestBody: input });
    a.push(utf8.encode(`data: ${JSON.stringify(sample[0])}\n\n`), 0);
    const perChunk = 1000;
    for (let c = 0; c < 100; c++) {
      let text = '';
      for (let i = 0; i < perChunk; i++) {
        const k = c * perChunk + i;
        // Every event is a finding: content for messages never opened, and deltas that do not apply.
        text += k % 2 ? `data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m${k}","delta":"x"}\n\n` : `data: {"type":"STATE_DELTA","delta":[{"op":"remove","path":"/missing${k}"}]}\n\n`;
      }
      a.push(utf8.encode(text), c);
    }
    a.push(utf8.encode(`data: {"type":"RUN_FINISHED","threadId":"t1","runId":"r1"}\n\n`), 100);
    a.end(100);
    const report = a.report();
    const ms = performance.now() - start;
    const growth = heap() - base;
    assert.equal(a.eventCount, 100_002);
    assert.equal(report.findings.length, 2 * (MAX_PER_RULE + 1));
    assert.match(report.findings.find((f) => f.event === null && f.rule === 'streaming/text-not-open')!.message, /^49900 more findings/);
    assert.ok(growth < bound, `heap grew ${(growth / 1048576).toFixed(1)} MB over 100,000 events`);
    assert.ok(ms < 30_000, `100,000 events in ${ms} ms`);
    // The analyzer must still be reachable while measured, or its retained state would be collected with it.
    assert.equal(report.verdict, 'failed');
  });

  it('stops at an error status without reading the body, whatever it holds', () => {
    const garbage = new Uint8Array(1024 * 1024).fill(0xff);
    const run = analyze(garbage, { status: 500, input });
    wellFormed(run, 'HTTP 500');
    assert.deepEqual(run.report.findings.map((f) => f.rule), ['transport/http-error-status']);
    assert.equal(run.frames, 0);
  });
});
