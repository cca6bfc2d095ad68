/**
 * The consumer model (src/analyzer/consumer.ts) against the real clients' apply: the same bytes go to
 * the analyzer and to @ag-ui/client's own pipeline ending in its `defaultApplyEvents` (1.0.0 for 1.x
 * traffic, 0.0.59 for pre-1.0 traffic), and after every event the reference applies, the messages the
 * reference holds must equal the messages the model holds — over generated exchanges and their mutants
 * (SSE and protobuf) and every rule fixture's exchange. No difference is tolerated: where the model and
 * a client disagreed, the model was changed (none is left to document).
 */
import {
  CompatibilityBoundary,
  defaultApplyEvents,
  enforceEvents,
  transformChunks,
  transformHttpEventStream,
  verifyEvents,
  type AbstractAgent,
  type AgentSubscriber,
  type BaseEvent,
  type RunAgentInput,
} from '@ag-ui/client';
import * as client059 from '@ag-ui/client-0.0.59';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { describe, it } from 'node:test';
import { Observable, type Observable as Obs } from 'rxjs';
import { ExchangeAnalyzer } from '../../src/analyzer/index.ts';
import { generateScenario } from './support/grammar.ts';
import { encodeProto, encodeSse, encoder059, PROTO, SSE } from './support/harness.ts';
import { generateLegacyScenario } from './support/legacy.ts';
import { mutate, type Frame } from './support/mutate.ts';
import { Rng } from './support/prng.ts';

process.env.SUPPRESS_TRANSFORMATION_WARNINGS = 'true';

type Messages = unknown[];

/** The messages held before each event the consumer applied, and after the last; `types` names those events (type and ids). */
interface Trace {
  types: string[];
  before: Messages[];
  final: Messages;
}

/** What names an event for the alignment: where chunk expansion or a rejection made the two sequences part, comparing stops. */
const keyOf = (e: Record<string, unknown>): string => JSON.stringify([e.type, e.messageId, e.toolCallId, e.delta, e.parentMessageId]);

/**
 * The messages as JSON carries them, which is how they go into the next RunAgentInput: 0.0.59's protobuf
 * decoder leaves members it did not receive as present-but-undefined (name, subagentRunId, metadata,
 * toolCalls on a snapshot's messages), which no JSON body holds.
 */
const asSent = (messages: unknown): Messages => JSON.parse(JSON.stringify(messages)) as Messages;

const show = (v: unknown): string => inspect(v, { depth: 8, breakLength: Infinity });

function body$(chunks: readonly Uint8Array[], contentType: string): Obs<never> {
  return new Observable<never>((sub) => {
    queueMicrotask(() => {
      sub.next({ type: 'headers', status: 200, headers: new Headers({ 'content-type': contentType }) } as never);
      for (const data of chunks) sub.next({ type: 'data', data } as never);
      sub.complete();
    });
  });
}

/**
 * What a client holds as its pipeline applies the body: 1.0.0's HttpAgent pipeline (CompatibilityBoundary,
 * enforceEvents, transformChunks, verifyEvents), or 0.0.59's (transformHttpEventStream, transformChunks,
 * verifyEvents), each ending in that client's own defaultApplyEvents, whose onEvent sees the messages
 * before each event. A rejected run stops applying where the client stopped.
 */
function reference(chunks: readonly Uint8Array[], contentType: string, input: Record<string, unknown>, legacy: boolean): Promise<Trace> {
  const given = structuredClone(input) as unknown as RunAgentInput;
  const agent = { messages: structuredClone(given.messages ?? []), state: structuredClone(given.state ?? {}) } as unknown as AbstractAgent;
  const trace: Trace = { types: [], before: [], final: asSent(given.messages ?? []) };
  const subscriber: AgentSubscriber = {
    onEvent: ({ event, messages }) => {
      trace.types.push(keyOf(event as unknown as Record<string, unknown>));
      trace.before.push(asSent(messages));
    },
  };
  const events$ = legacy
    ? (client059.transformHttpEventStream(body$(chunks, contentType)).pipe(client059.transformChunks(false), client059.verifyEvents(false)) as unknown as Obs<BaseEvent>)
    : new CompatibilityBoundary().run(given, { run: () => transformHttpEventStream(body$(chunks, contentType)) } as unknown as AbstractAgent).pipe(enforceEvents(), transformChunks(), verifyEvents());
  const apply = legacy ? (client059.defaultApplyEvents as unknown as typeof defaultApplyEvents) : defaultApplyEvents;
  const { warn, error } = console;
  console.warn = console.error = () => {};
  return new Promise<Trace>((resolve) => {
    const done = () => {
      Object.assign(console, { warn, error });
      resolve(trace);
    };
    apply(given, events$, agent, [subscriber]).subscribe({
      next: (m) => {
        if (m.messages) trace.final = asSent(m.messages);
      },
      error: done,
      complete: done,
    });
  });
}

function model(chunks: readonly Uint8Array[], contentType: string, input: Record<string, unknown>): Trace {
  const trace: Trace = { types: [], before: [], final: [] };
  const a = new ExchangeAnalyzer({
    source: 'consumer-differential',
    requestBody: JSON.stringify(input),
    contentType,
    onEmit: (ev) => {
      trace.types.push(keyOf(ev));
      trace.before.push(asSent(a.consumer.messages));
    },
  });
  for (const c of chunks) a.push(c, 0);
  a.end(0);
  trace.final = asSent(a.consumer.messages);
  return trace;
}

interface Tally {
  cases: number;
  /** Events after which both held messages and they were compared. */
  steps: number;
  /** Cases whose event sequences parted (chunk expansion or rejection differs: the verdict differentials' business), compared up to there. */
  parted: number;
  mismatches: string[];
}

async function compare(t: Tally, name: string, frames: readonly Frame[], input: Record<string, unknown>, transport: 'sse' | 'protobuf', legacy: boolean): Promise<void> {
  let body: Uint8Array;
  try {
    body = transport === 'sse' ? encodeSse(frames) : encodeProto(frames, legacy ? encoder059 : undefined);
  } catch {
    return; // a frame with no protobuf form
  }
  const type = transport === 'sse' ? SSE : PROTO;
  const [ref, ours] = [await reference([body], type, input, legacy), model([body], type, input)];
  t.cases++;
  const n = Math.min(ref.types.length, ours.types.length);
  let i = 0;
  for (; i < n && ref.types[i] === ours.types[i]; i++) {
    t.steps++;
    try {
      assert.deepStrictEqual(ours.before[i], ref.before[i]);
    } catch {
      t.mismatches.push(`${name}: before event ${i} (${ref.types[i]}):\n  model     ${show(ours.before[i])}\n  reference ${show(ref.before[i])}`);
      return;
    }
  }
  if (i < ours.types.length || i < ref.types.length) {
    t.parted++;
    // The reference stopped (rejected) or parted: what it holds after its last applied event is what the model held before the next.
    if (i === ref.types.length && i < ours.types.length && !deepEq(ours.before[i], ref.final)) t.mismatches.push(`${name}: after the reference's last event (${i})\n  model     ${show(ours.before[i])}\n  reference ${show(ref.final)}`);
    return;
  }
  t.steps++;
  if (!deepEq(ours.final, ref.final)) t.mismatches.push(`${name}: at the end\n  model     ${show(ours.final)}\n  reference ${show(ref.final)}`);
}

function deepEq(a: unknown, b: unknown): boolean {
  try {
    assert.deepStrictEqual(a, b);
    return true;
  } catch {
    return false;
  }
}

const report = (t: Tally) => `${t.cases} cases, ${t.steps} steps compared, ${t.parted} parted early; ${t.mismatches.length} mismatches${t.mismatches.length ? `:\n${t.mismatches.slice(0, 5).join('\n')}` : ''}`;

describe('consumer model against the real clients\' apply', { timeout: 600_000 }, () => {
  it('1.0.0: generated exchanges and their mutants, SSE and protobuf', async () => {
    const t: Tally = { cases: 0, steps: 0, parted: 0, mismatches: [] };
    const rng = new Rng(Number(process.env.DIFF_SEED ?? 0xc0_25e7));
    for (let seq = 0; seq < 150; seq++) {
      const { input, events } = generateScenario(rng, seq);
      const transport = seq % 4 === 3 ? 'protobuf' : 'sse';
      await compare(t, `1.0 #${seq}`, events, input, transport, false);
      for (let m = 0; m < 3; m++) {
        const mutant = mutate(rng, events);
        if (mutant.keep === undefined) await compare(t, `1.0 #${seq} mutant ${m} (${mutant.mutations.map((x) => x.kind).join('+')})`, mutant.frames, input, transport, false);
      }
    }
    console.log(`1.0.0: ${report(t)}`);
    assert.deepEqual(t.mismatches, []);
    assert.ok(t.steps > 10_000, `enough was compared (${t.steps} steps)`);
  });

  it('0.0.59: generated pre-1.0 exchanges and their mutants, SSE and protobuf', async () => {
    const t: Tally = { cases: 0, steps: 0, parted: 0, mismatches: [] };
    const rng = new Rng(Number(process.env.DIFF_SEED ?? 0x59_c025));
    for (let seq = 0; seq < 100; seq++) {
      const transport = seq % 4 === 3 ? 'protobuf' : 'sse';
      const { input, events } = generateLegacyScenario(rng, seq, transport);
      await compare(t, `0.0.59 #${seq}`, events, input, transport, true);
      for (let m = 0; m < 2; m++) {
        const mutant = mutate(rng, events);
        if (mutant.keep === undefined) await compare(t, `0.0.59 #${seq} mutant ${m}`, mutant.frames, input, transport, true);
      }
    }
    console.log(`0.0.59: ${report(t)}`);
    assert.deepEqual(t.mismatches, []);
    assert.ok(t.steps > 2_000, `enough was compared (${t.steps} steps)`);
  });

  it('every rule fixture exchange (each with the client of its era)', async () => {
    const t: Tally = { cases: 0, steps: 0, parted: 0, mismatches: [] };
    const dir = join(import.meta.dirname, '..', 'fixtures', 'rules');
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
      const fx = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { exchanges: { input?: Record<string, unknown>; stream?: Frame[]; contentType?: string }[] };
      for (const [i, x] of fx.exchanges.entries()) {
        // An envelope (single-route) is the analyzer's to unwrap; the client sends the input itself.
        if (!x.input || !Array.isArray(x.input.messages) || !x.stream || (x.contentType !== undefined && x.contentType !== SSE)) continue;
        await compare(t, `${file} exchange ${i}`, x.stream, x.input, 'sse', x.input.protocolVersion === undefined);
      }
    }
    console.log(`fixtures: ${report(t)}`);
    assert.deepEqual(t.mismatches, []);
    assert.ok(t.cases > 100);
  });
});
