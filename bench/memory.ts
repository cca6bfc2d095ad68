import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ExchangeAnalyzer } from '../src/analyzer/index.ts';
import type { Event } from '../test/analyzer/support/grammar.ts';
import { chunk, encodeSse, SSE } from '../test/analyzer/support/harness.ts';
import type { Section } from './report.ts';
import { realisticStream } from './stream.ts';

const CHUNK = 16 * 1024;

declare const gc: () => void;

function heapAfterGc(): number {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
}

/**
 * Heap the analyzer still holds after reading a body (the body itself is allocated before the
 * baseline, so it is not counted). `end` false measures it live, mid-stream, with everything open.
 */
function retained(input: Record<string, unknown>, events: Event[], end: boolean): number {
  const chunks = chunk(encodeSse(events), () => CHUNK);
  events.length = 0;
  const before = heapAfterGc();
  const a = new ExchangeAnalyzer({ source: 'bench', requestBody: JSON.stringify(input), contentType: SSE });
  for (const c of chunks) a.push(c, 0);
  if (end) a.end(0);
  const after = heapAfterGc();
  // Both stay reachable until here: a body collected mid-measure would be counted as negative retention.
  if (a.eventCount === 0 || chunks.length === 0) throw new Error('nothing was read');
  return after - before;
}

function openMessages(n: number): { input: Record<string, unknown>; events: Event[] } {
  const input = { threadId: 't', runId: 'r', protocolVersion: '1.0', messages: [] };
  const events: Event[] = [{ type: 'RUN_STARTED', threadId: 't', runId: 'r', protocolVersion: '1.0' }];
  for (let i = 0; i < n; i++) {
    events.push({ type: 'TEXT_MESSAGE_START', messageId: `msg-${i}`, role: 'assistant' });
    events.push({ type: 'TEXT_MESSAGE_CONTENT', messageId: `msg-${i}`, delta: 'partial answer' });
  }
  return { input, events };
}

const kb = (bytes: number): string => (bytes / 1024).toFixed(0);

const REPEATS = 3;

/** Median of a few measurements, since one alone is off by the collector's own noise (about ±100 KB); and the stream's length. */
function median(make: () => { input: Record<string, unknown>; events: Event[] }, end: boolean): { bytes: number; events: number } {
  const xs: number[] = [];
  let events = 0;
  for (let i = 0; i < REPEATS; i++) {
    const s = make();
    events = s.events.length;
    xs.push(retained(s.input, s.events, end));
  }
  return { bytes: xs.sort((a, b) => a - b)[REPEATS >> 1]!, events };
}

function measure(): (string | number)[][] {
  // The first analysis compiles validators and fills module caches; that is not per-exchange memory.
  const warm = realisticStream(10_000, 1);
  retained(warm.input, warm.events, true);
  const rows: (string | number)[][] = [];
  for (const total of [10_000, 100_000, 300_000]) {
    for (const [runs, label] of [[1, '1 run'], [total / 10_000, 'runs of 10k']] as const) {
      const m = median(() => realisticStream(total, runs), true);
      rows.push([`closed items, ${m.events.toLocaleString('en')} events, ${label}`, kb(m.bytes)]);
    }
  }
  for (const open of [1_000, 10_000, 50_000]) {
    rows.push([`${open.toLocaleString('en')} messages open (live, mid-run)`, kb(median(() => openMessages(open), false).bytes)]);
  }
  return rows;
}

/** Runs in a child with --expose-gc, so that retained heap can be measured after a real collection. */
export async function memory(): Promise<Section[]> {
  const child = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', fileURLToPath(import.meta.url)], {
    env: { ...process.env, BENCH_MEMORY_CHILD: '1' },
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  if (child.status !== 0) throw new Error(`memory benchmark failed:\n${child.stderr}`);
  const rows = JSON.parse(child.stdout) as (string | number)[][];
  return [{
    title: 'Memory: heap the analyzer retains after gc',
    columns: ['stream', 'retained KB'],
    rows,
    notes: [
      'closed items: flat in the number of events, apart from one entry per message of the current run (messageId → owner, which tool-call ownership checks need)',
      'open items: what a consumer must hold; grows with them, as it should',
      `median of ${REPEATS} measurements each`,
    ],
  }];
}

if (process.env.BENCH_MEMORY_CHILD) console.log(JSON.stringify(measure()));
