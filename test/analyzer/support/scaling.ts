/**
 * Stream shapes that grow with one number, one per event family, and how to time the analyzer on
 * them at n and 2n: `test/analyzer/scaling.test.ts` asserts every stage is linear in its input, and
 * `npm run bench` prints the same figures. Each shape is conforming, so a slow path cannot hide
 * behind an early fatal finding.
 */
import { analyzeExchanges, ExchangeAnalyzer } from '../../../src/analyzer/index.ts';
import { concatBytes } from '../../../src/bytes.ts';
import { readExchanges } from '../../../src/formats/read.ts';
import type { Event } from './grammar.ts';
import { chunk, encodeProto, encodeSse, PROTO, SSE } from './harness.ts';

export interface Shape {
  input: Record<string, unknown>;
  events: Event[];
}

export interface Family {
  name: string;
  /** The stream at size n. */
  make: (n: number) => Shape;
  /** A size at which the linear work dominates constant costs, and a quadratic stage would show. */
  n: number;
  /** Transport the body is encoded in, SSE unless the family is about another decoder. */
  contentType?: string;
  /** Network chunk size, 16 KB unless the family is about reassembly. */
  chunkSize?: number;
}

const THREAD = 'thread-scaling';
const RUN = 'run-scaling';

/** One requested run around `body`, with the input's state absent (`{}`). */
function run(body: Event[]): Shape {
  return {
    input: { threadId: THREAD, runId: RUN, protocolVersion: '1.0', messages: [], state: {} },
    events: [{ type: 'RUN_STARTED', threadId: THREAD, runId: RUN, protocolVersion: '1.0' }, ...body, { type: 'RUN_FINISHED', threadId: THREAD, runId: RUN }],
  };
}

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
const keyed = (n: number): Record<string, string> => Object.fromEntries(range(n).map((i) => [`key${i}`, `value ${i}`]));

/** Text deltas of a typical model token run. */
const DELTA = 'a few words of streamed text, ';

/** n runs on one stream, each one message long, the last the requested one; `declared` goes on the input and every RUN_STARTED. */
function runsOnOneStream(n: number, declared: { protocolVersion?: string }): Shape {
  return {
    input: { threadId: THREAD, runId: `run-${n - 1}`, ...declared, messages: [], state: {} },
    events: range(n).flatMap((i): Event[] => [
      { type: 'RUN_STARTED', threadId: THREAD, runId: `run-${i}`, ...declared },
      { type: 'TEXT_MESSAGE_START', messageId: `msg-${i}`, role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: `msg-${i}`, delta: DELTA },
      { type: 'TEXT_MESSAGE_END', messageId: `msg-${i}` },
      { type: 'RUN_FINISHED', threadId: THREAD, runId: `run-${i}` },
    ]),
  };
}

export const FAMILIES: Family[] = [
  {
    // The first stream: a large shared state, then one small change at a time.
    name: 'state: n-key snapshot, n single-op deltas',
    n: 5_000,
    make: (n) => run([{ type: 'STATE_SNAPSHOT', snapshot: keyed(n) }, ...range(n).map((i): Event => ({ type: 'STATE_DELTA', delta: [{ op: 'replace', path: `/key${i}`, value: i }] }))]),
  },
  {
    name: 'state: one delta of n ops',
    n: 10_000,
    make: (n) => run([{ type: 'STATE_DELTA', delta: range(n).map((i) => ({ op: 'add', path: `/key${i}`, value: i })) }]),
  },
  {
    // The second stream: an array grown by `add /-` in one delta.
    name: 'state: n × add /- in one delta',
    n: 20_000,
    make: (n) => run([{ type: 'STATE_SNAPSHOT', snapshot: { list: [] } }, { type: 'STATE_DELTA', delta: range(n).map((i) => ({ op: 'add', path: '/list/-', value: { i } })) }]),
  },
  {
    name: 'state: n failing deltas on an n-key snapshot',
    n: 5_000,
    // Each delta writes, then fails its test: the write is undone, and the state stays as it was.
    make: (n) => run([{ type: 'STATE_SNAPSHOT', snapshot: keyed(n) }, ...range(n).map((i): Event => ({ type: 'STATE_DELTA', delta: [{ op: 'remove', path: `/key${i}` }, { op: 'test', path: '/missing', value: i }] }))]),
  },
  {
    name: 'state: n deltas of add /-',
    n: 40_000,
    make: (n) => run([{ type: 'STATE_SNAPSHOT', snapshot: { list: [] } }, ...range(n).map((i): Event => ({ type: 'STATE_DELTA', delta: [{ op: 'add', path: '/list/-', value: { i } }] }))]),
  },
  {
    name: 'messages: n messages, then a snapshot of them',
    n: 5_000,
    make: (n) => {
      const ids = range(n).map((i) => `msg-${i}`);
      return run([
        ...ids.flatMap((messageId): Event[] => [
          { type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' },
          { type: 'TEXT_MESSAGE_CONTENT', messageId, delta: DELTA },
          { type: 'TEXT_MESSAGE_END', messageId },
        ]),
        { type: 'MESSAGES_SNAPSHOT', messages: ids.map((id) => ({ id, role: 'assistant', content: DELTA })) },
      ]);
    },
  },
  {
    name: 'text: one message of n deltas',
    n: 20_000,
    make: (n) => run([{ type: 'TEXT_MESSAGE_START', messageId: 'm', role: 'assistant' }, ...range(n).map((): Event => ({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: DELTA })), { type: 'TEXT_MESSAGE_END', messageId: 'm' }]),
  },
  {
    name: 'text: n TEXT_MESSAGE_CHUNKs',
    n: 20_000,
    make: (n) => run(range(n).map((): Event => ({ type: 'TEXT_MESSAGE_CHUNK', messageId: 'm', delta: DELTA }))),
  },
  {
    name: 'text: n deltas over protobuf',
    n: 20_000,
    contentType: PROTO,
    make: (n) => run([{ type: 'TEXT_MESSAGE_START', messageId: 'm', role: 'assistant' }, ...range(n).map((): Event => ({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: DELTA })), { type: 'TEXT_MESSAGE_END', messageId: 'm' }]),
  },
  {
    name: 'tool: one call of n argument deltas',
    n: 20_000,
    make: (n) => run([{ type: 'TOOL_CALL_START', toolCallId: 'c', toolCallName: 'search' }, ...range(n).map((i): Event => ({ type: 'TOOL_CALL_ARGS', toolCallId: 'c', delta: `"k${i}":` })), { type: 'TOOL_CALL_END', toolCallId: 'c' }]),
  },
  {
    name: 'tool: n TOOL_CALL_CHUNKs',
    n: 20_000,
    make: (n) => run([{ type: 'TOOL_CALL_CHUNK', toolCallId: 'c', toolCallName: 'search', delta: '{' }, ...range(n).map((i): Event => ({ type: 'TOOL_CALL_CHUNK', toolCallId: 'c', delta: `"k${i}":` }))]),
  },
  {
    // Each result comes after a message that follows its call, so the consumer files it mid-conversation
    // (after the call's message, before the later one) rather than appending it.
    name: 'tool: n calls, each answered after a later message',
    n: 5_000,
    make: (n) => run(range(n).flatMap((i): Event[] => [
      { type: 'TOOL_CALL_START', toolCallId: `call-${i}`, toolCallName: 'search', parentMessageId: `asst-${i}` },
      { type: 'TOOL_CALL_ARGS', toolCallId: `call-${i}`, delta: `{"q":${i}}` },
      { type: 'TOOL_CALL_END', toolCallId: `call-${i}` },
      { type: 'TEXT_MESSAGE_START', messageId: `note-${i}`, role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: `note-${i}`, delta: DELTA },
      { type: 'TEXT_MESSAGE_END', messageId: `note-${i}` },
      { type: 'TOOL_CALL_RESULT', messageId: `result-${i}`, toolCallId: `call-${i}`, content: 'found' },
    ])),
  },
  {
    name: 'runs: n runs on one stream',
    n: 5_000,
    make: (n) => runsOnOneStream(n, { protocolVersion: '1.0' }),
  },
  {
    // Nobody declares a version, so every event asks whether the exchange can still be pre-1.0.
    name: 'runs: n pre-1.0 runs on one stream',
    n: 5_000,
    make: (n) => runsOnOneStream(n, {}),
  },
  {
    name: 'open: n messages open at once',
    n: 10_000,
    make: (n) => run([
      ...range(n).flatMap((i): Event[] => [{ type: 'TEXT_MESSAGE_START', messageId: `msg-${i}`, role: 'assistant' }, { type: 'TEXT_MESSAGE_CONTENT', messageId: `msg-${i}`, delta: DELTA }]),
      ...range(n).map((i): Event => ({ type: 'TEXT_MESSAGE_END', messageId: `msg-${i}` })),
    ]),
  },
  {
    name: 'open: n subagents streaming chunks at once',
    n: 10_000,
    make: (n) => run([
      ...range(n).flatMap((i): Event[] => [
        { type: 'SUBAGENT_STARTED', subagentRunId: `sub-${i}`, name: 'worker' },
        { type: 'TEXT_MESSAGE_CHUNK', subagentRunId: `sub-${i}`, messageId: `msg-${i}`, delta: DELTA },
      ]),
      ...range(n).map((i): Event => ({ type: 'TEXT_MESSAGE_CHUNK', messageId: `msg-${i}`, delta: DELTA })),
      ...range(n).map((i): Event => ({ type: 'SUBAGENT_FINISHED', subagentRunId: `sub-${i}` })),
    ]),
  },
  {
    name: 'activity: a snapshot, then n deltas',
    n: 10_000,
    make: (n) => run([
      { type: 'ACTIVITY_SNAPSHOT', messageId: 'act', activityType: 'PLAN', content: { steps: [] } },
      ...range(n).map((i): Event => ({ type: 'ACTIVITY_DELTA', messageId: 'act', activityType: 'PLAN', patch: [{ op: 'add', path: '/steps/-', value: { i } }] })),
    ]),
  },
  {
    // A frame far larger than the network's chunks: the decoder must not rescan or recopy it per chunk.
    name: 'wire: one n-key snapshot in 1 KB chunks',
    n: 50_000,
    chunkSize: 1024,
    make: (n) => run([{ type: 'STATE_SNAPSHOT', snapshot: keyed(n) }]),
  },
];

export interface Body {
  chunks: Uint8Array[];
  contentType: string;
  requestBody: string;
  bytes: number;
}

export function bodyOf(f: Family, n: number): Body {
  const { input, events } = f.make(n);
  const contentType = f.contentType ?? SSE;
  const bytes = contentType === PROTO ? encodeProto(events) : encodeSse(events);
  const size = f.chunkSize ?? 16 * 1024;
  return { chunks: chunk(bytes, () => size), contentType, requestBody: JSON.stringify(input), bytes: bytes.length };
}

/** How a stream is read: the incremental analyzer the worker and panel use, or the CLI's whole-file path. */
export type Path = (b: Body) => void;

/** The extension's path, recording state steps as the panel does and reading the last, as its open view shows. */
export const viaAnalyzer: Path = (b) => {
  const steps: { state: unknown }[] = [];
  const a = new ExchangeAnalyzer({ source: 'scaling', requestBody: b.requestBody, contentType: b.contentType, onState: (s) => steps.push(s) });
  for (const c of b.chunks) a.push(c, 0);
  a.end(0);
  void steps.at(-1)?.state;
  if (a.report().verdict !== 'completed') throw new Error(`a scaling stream must be conforming: ${JSON.stringify(a.report().findings.slice(0, 3))}`);
};

/** `agui-inspector check`: the file read whole, then analysed. */
export const viaCli: Path = (b) => {
  const [x] = readExchanges(concatBytes(b.chunks), b.contentType === PROTO ? 'scaling.bin' : 'scaling.sse', { inputText: b.requestBody });
  const [report] = analyzeExchanges([x!]);
  if (report!.verdict !== 'completed') throw new Error('a scaling stream must be conforming');
};

export interface Scaling {
  /** Median CPU milliseconds at n and at 2n. */
  ms: [number, number];
  bytes: [number, number];
  ratio: number;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1]!;
}

/**
 * Times `path` on the family at n and 2n, taking turns so both sizes share GC debt and JIT state, after
 * warm-up runs; the ratio of medians is what linear work keeps near 2 and quadratic work near 4. The time
 * is this process's CPU time, which other processes on a shared machine do not inflate as they do the clock's.
 */
export function measureScaling(f: Family, path: Path, { n = f.n, warmup = 2, iterations = 5 } = {}): Scaling {
  const bodies = [bodyOf(f, n), bodyOf(f, 2 * n)] as const;
  const samples: [number[], number[]] = [[], []];
  for (let i = 0; i < warmup + iterations; i++) {
    for (const k of [0, 1] as const) {
      const t0 = process.cpuUsage();
      path(bodies[k]);
      const used = process.cpuUsage(t0);
      if (i >= warmup) samples[k].push((used.user + used.system) / 1000);
    }
  }
  const ms: [number, number] = [median(samples[0]), median(samples[1])];
  return { ms, bytes: [bodies[0].bytes, bodies[1].bytes], ratio: ms[1] / ms[0] };
}
