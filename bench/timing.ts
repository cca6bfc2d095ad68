/**
 * What the timing model costs the analysis, in instructions: the 100,000-event body analysed alone and
 * analysed with the timing fed by the same pass (its hooks and every chunk), and their ratio against the
 * target of at most +5 %.
 *
 * Wall and CPU time vary by more than the effect here (one round of processes ran from 0.88 to 1.16 of the
 * other on this shared machine); instructions do not. Each contender runs in processes of its own under
 * callgrind, as either runs in use (the CLI and the extension's worker time every exchange that recorded
 * arrival times, and a body with none is analysed without hooks), with Node's own threads and
 * collector schedule made deterministic (NODE_FLAGS). A process of one analysis and one of ANALYSES
 * differ by ANALYSES - 1 analyses and nothing else: start-up, module loading and compilation cancel.
 *
 * `npx tsx bench/timing.ts` prints it; bench/run.ts calls `timingBench()` (`npm run bench -- timing`).
 * Needs valgrind on PATH.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { analyzeExchange } from '../src/analyzer/index.ts';
import { TimingReading } from '../src/detail/index.ts';
import { chunk, encodeSse, SSE } from '../test/analyzer/support/harness.ts';
import { formatSection, type Section } from './report.ts';
import { realisticStream } from './stream.ts';

const EVENTS = 100_000;
const RUNS = 5;
const CHUNK = 16 * 1024;
const ANALYSES = 2;
const TARGET = 1.05;
/** One thread for V8, a collector schedule that does not depend on time, fixed seeds: the same process counts the same instructions (within 0.1 %). */
const NODE_FLAGS = ['--single-threaded', '--predictable-gc-schedule', '--hash-seed=1', '--random-seed=1'];

type Contender = 'plain' | 'timed';

/** `analyses` analyses of the body in this process; the spans the timed one dated. */
function analyse(contender: Contender, dir: string, analyses: number): number {
  const requestBody = readFileSync(join(dir, 'input.json'), 'utf8');
  // Each chunk arrives 3 ms after the one before: the timing has gaps to count and spans to date.
  const chunks = chunk(new Uint8Array(readFileSync(join(dir, 'body.sse'))), () => CHUNK).map((bytes, i) => ({ time: i * 3, bytes }));
  const x = { source: 'bench', requestBody, responseContentType: SSE };
  let spans = 0;
  for (let i = 0; i < analyses; i++) {
    if (contender === 'plain') {
      if (analyzeExchange(x, chunks).verdict !== 'completed') throw new Error('the benchmark stream must be conforming');
      continue;
    }
    const t = new TimingReading({ arrival: 'chunks' });
    if (analyzeExchange(x, t.tap(chunks), { hooks: t.hooks }).verdict !== 'completed') throw new Error('the benchmark stream must be conforming');
    // As the CLI reads it (analyzeSession): ended, then asked for its figures.
    t.end();
    const figures = t.timing();
    spans = figures.messages!.length + figures.toolCalls!.length;
  }
  return spans;
}

interface Count {
  instructions: number;
  spans: number;
}

/** The instructions of one process running `analyses` analyses, as callgrind counts them. */
function counted(contender: Contender, dir: string, analyses: number): Promise<Count> {
  const args = ['--tool=callgrind', '--callgrind-out-file=/dev/null', process.execPath, ...NODE_FLAGS, '--import', 'tsx', fileURLToPath(import.meta.url)];
  const child = spawn('valgrind', args, { env: { ...process.env, BENCH_TIMING_CHILD: contender, BENCH_TIMING_DIR: dir, BENCH_TIMING_ANALYSES: String(analyses) } });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d));
  child.stderr.on('data', (d: Buffer) => (err += d));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (status) => {
      const collected = /Collected : (\d+)/.exec(err);
      if (status !== 0 || !collected) reject(new Error(`timing benchmark (${contender}, ${analyses}) failed:\n${err.slice(-2000)}`));
      else resolve({ instructions: Number(collected[1]), spans: Number(out) });
    });
  });
}

export async function timingBench(): Promise<Section[]> {
  const dir = mkdtempSync(join(tmpdir(), 'agui-timing-'));
  try {
    const { input, events } = realisticStream(EVENTS, RUNS);
    writeFileSync(join(dir, 'input.json'), JSON.stringify(input));
    writeFileSync(join(dir, 'body.sse'), encodeSse(events));
    // Once outside callgrind, so tsx's transform cache is as warm for the first counted process as for the last.
    const warm = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url)], { env: { ...process.env, BENCH_TIMING_CHILD: 'timed', BENCH_TIMING_DIR: dir, BENCH_TIMING_ANALYSES: '0' }, encoding: 'utf8' });
    if (warm.status !== 0) throw new Error(`timing benchmark failed:\n${warm.stderr}`);
    // Two at a time: callgrind runs one thread, and counts do not depend on what runs beside it.
    const [plain1, plainN] = await Promise.all([counted('plain', dir, 1), counted('plain', dir, ANALYSES)]);
    const [timed1, timedN] = await Promise.all([counted('timed', dir, 1), counted('timed', dir, ANALYSES)]);
    const plain = (plainN.instructions - plain1.instructions) / (ANALYSES - 1);
    const timed = (timedN.instructions - timed1.instructions) / (ANALYSES - 1);
    const ratio = timed / plain;
    const m = (n: number): string => (n / 1e6).toFixed(1);
    return [{
      title: `Timing: the analysis of a ${events.length.toLocaleString('en')}-event SSE body, without and with the timing model, in instructions`,
      columns: ['analysis', 'M instructions per analysis', 'ratio'],
      rows: [['analysis alone', m(plain), '1.000'], ['analysis + timing', m(timed), ratio.toFixed(3)]],
      notes: [
        `timing adds ${((ratio - 1) * 100).toFixed(1)} % of the analysis's instructions (target ≤ +${((TARGET - 1) * 100).toFixed(0)} %: ${ratio <= TARGET ? 'met' : 'MISSED'}); ${timedN.spans.toLocaleString('en')} message and tool spans dated`,
        `callgrind, node ${NODE_FLAGS.join(' ')}; per analysis = (a process of ${ANALYSES} analyses − a process of 1) / ${ANALYSES - 1}, so start-up, loading and first compilation cancel; ${CHUNK / 1024} KB chunks 3 ms apart`,
      ],
    }];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const child = process.env.BENCH_TIMING_CHILD as Contender | undefined;
if (child) console.log(analyse(child, process.env.BENCH_TIMING_DIR!, Number(process.env.BENCH_TIMING_ANALYSES)));
else if (process.argv[1] === fileURLToPath(import.meta.url)) for (const s of await timingBench()) console.log(formatSection(s));
