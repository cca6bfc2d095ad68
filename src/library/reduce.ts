/**
 * `reduce`: one exchange shrunk to the smallest fixture that still gives its finding — delta debugging
 * (Zeller's ddmin, applied hierarchically) over the stream's events and the input's messages, tools,
 * context entries and state members.
 *
 * A candidate is judged exactly as its fixture will be read back (formats' `readFixture`, then the
 * analyzer): it is kept when it raises every target rule and no rule the exchange did not raise, so the
 * result never shows a finding the recording did not have. Removal goes from coarse to fine — whole runs,
 * then everything one message, tool call or step is made of, then single events and members — and ends
 * with single removals until none succeeds: the result is 1-minimal, and the same on every run.
 */
import { analyzeExchange, type ExchangeReport } from '../analyzer/index.ts';
import type { CapturedExchange } from '../exchange/index.ts';
import { readExchanges, readFixture } from '../formats/index.ts';
import { toFixture } from '../recording/index.ts';
import { asString, isObject, type JsonObject } from '../json.ts';
import type { Finding } from '../rules/index.ts';

/** How many analyses a reduction may make before it stops and keeps its best result. */
export const DEFAULT_BUDGET = 5000;
/** How long a reduction may run before it stops and keeps its best result: an analysis of a long exchange takes tens of ms. */
export const DEFAULT_TIME_LIMIT_MS = 60_000;

export interface ReduceOptions {
  /** The rule whose finding must survive; by default every error-level rule the exchange raised. */
  rule?: string;
  budget?: number;
  /** Wall time, ms, after which no further candidate is tried. */
  timeLimitMs?: number;
  /** The fixture's name, and the generated files'. */
  name?: string;
  /** The package the generated test imports `check` from. */
  library?: string;
}

export interface Reduction {
  name: string;
  /** The rules the result still raises, as asked. */
  targets: string[];
  /** `<name>.fixture.json`: a conformance fixture (`{ input, stream }`) that `check` reads. */
  fixture: string;
  /** `<name>.test.mjs`: a `node:test` file asserting the targets through the library's `check`. */
  test: string;
  /** Which of the exchange's events the fixture keeps (their indices in the original stream). */
  events: number[];
  eventCount: number;
  /** Per input collection, how many members were kept of how many. */
  members: { collection: Collection; kept: number; of: number }[];
  analyses: number;
  /** What ended the search before it was done, if anything: the result still gives the finding but may not be 1-minimal. */
  stoppedBy: 'budget' | 'time-limit' | null;
  /** The reduced fixture's report. */
  report: ExchangeReport;
}

/** Why an exchange cannot be reduced as asked; the CLI says it and exits 2. */
export class ReduceError extends Error {}

const COLLECTIONS = ['messages', 'tools', 'context', 'state'] as const;
type Collection = (typeof COLLECTIONS)[number];

const rulesOf = (r: ExchangeReport): Set<string> => new Set([...r.input.findings, ...r.findings].map((f: Finding) => f.rule));

/** Ran out of analyses or of time: the search stops, and keeps the best candidate it verified. */
class OutOfBudget extends Error {
  constructor(readonly by: 'budget' | 'time-limit') {
    super(by);
  }
}

/**
 * Reduces `exchange`, whose report in its recording is `original` (analysed with the exchanges before
 * it, when it had any: that is what the result must not add to).
 */
export function reduce(exchange: CapturedExchange, original: ExchangeReport, o: ReduceOptions = {}): Reduction {
  const allowed = rulesOf(original);
  const targets = o.rule !== undefined ? [o.rule] : [...new Set(original.findings.concat(original.input.findings).filter((f) => f.severity === 'error').map((f) => f.rule))];
  if (o.rule !== undefined && !allowed.has(o.rule)) throw new ReduceError(`the exchange does not raise ${o.rule}`);
  if (targets.length === 0) throw new ReduceError('the exchange raises no error-level finding; name one with --rule');
  const name = o.name ?? 'reduced';
  const budget = o.budget ?? DEFAULT_BUDGET;
  const deadline = performance.now() + (o.timeLimitMs ?? DEFAULT_TIME_LIMIT_MS);

  const doc = JSON.parse(toFixture(exchange, name)) as JsonObject;
  const stream = doc.stream as unknown[];
  const input = isObject(doc.input) ? doc.input : null;
  const atoms = new Atoms(stream, input);
  let analyses = 0;
  const judge = (keep: Uint8Array): ExchangeReport => analyzeExchange(...withChunks(readFixture(atoms.build(doc, keep), name)));
  const keep = new Uint8Array(atoms.count).fill(1);
  // The last candidate that gave the finding: a search stopped mid-try holds one that was never judged.
  const best = keep.slice();
  const interesting = (candidate: Uint8Array): boolean => {
    if (analyses >= budget) throw new OutOfBudget('budget');
    // The whole recording is always judged once: without that there is nothing to keep.
    if (analyses > 0 && performance.now() >= deadline) throw new OutOfBudget('time-limit');
    analyses++;
    const rules = rulesOf(judge(candidate));
    const still = targets.every((t) => rules.has(t)) && [...rules].every((r) => allowed.has(r));
    if (still) best.set(candidate);
    return still;
  };

  if (!interesting(keep)) {
    throw new ReduceError(`as a fixture the exchange no longer raises ${targets.join(', ')} alone: the finding rests on what a fixture cannot hold (the transport's framing, frames that are not JSON events, the HTTP status, or earlier exchanges of the thread)`);
  }
  let stoppedBy: Reduction['stoppedBy'] = null;
  try {
    const runs = atoms.runUnits(keep);
    if (runs.length > 1) removeChunks(runs, keep, interesting);
    removeChunks(atoms.entityUnits(keep), keep, interesting);
    removeChunks(atoms.memberUnits(keep), keep, interesting);
    // Single removals until a whole pass removes nothing: then no one atom can go.
    for (let removed = true; removed; ) {
      removed = false;
      for (let a = 0; a < atoms.count; a++) {
        if (!keep[a]) continue;
        keep[a] = 0;
        if (interesting(keep)) removed = true;
        else keep[a] = 1;
      }
    }
  } catch (e) {
    if (!(e instanceof OutOfBudget)) throw e;
    stoppedBy = e.by;
    keep.set(best);
  }

  const reducedDoc = atoms.build(doc, keep);
  const kept = stream.flatMap((_, i) => (keep[i] ? [i] : []));
  const description = `Reduced by agui-inspector from ${exchange.source} (${kept.length} of ${stream.length} events kept): raises ${targets.join(', ')}`;
  const fixture = toFixture(readFixture(reducedDoc, name), name, description);
  // The file as written, read back as `check` reads it, must still give the finding.
  const [written] = readExchanges(new TextEncoder().encode(fixture), `${name}.fixture.json`);
  const report = analyzeExchange(...withChunks(written!));
  const rules = rulesOf(report);
  if (!targets.every((t) => rules.has(t)) || ![...rules].every((r) => allowed.has(r))) throw new Error('the reduced fixture read back does not give the finding');
  return {
    name,
    targets,
    fixture,
    test: testFile(name, targets, report.verdict, o.library ?? 'agui-inspector', exchange.source),
    events: kept,
    eventCount: stream.length,
    members: atoms.memberCounts(keep),
    analyses,
    stoppedBy,
    report,
  };
}

const withChunks = (x: CapturedExchange): [CapturedExchange, CapturedExchange['chunks']] => [x, x.chunks];

/**
 * ddmin's complement steps over `units` (each a set of atoms): chunks of half the units, then a quarter,
 * down to one, each removed when what is left is still interesting. A unit already gone costs nothing.
 */
function removeChunks(units: number[][], keep: Uint8Array, interesting: (keep: Uint8Array) => boolean): void {
  let live = units.filter((u) => u.some((a) => keep[a]));
  for (let size = Math.ceil(live.length / 2); size >= 1; size = size === 1 ? 0 : Math.ceil(size / 2)) {
    for (let i = 0; i < live.length; ) {
      const chunk = live.slice(i, i + size).flat().filter((a) => keep[a]);
      for (const a of chunk) keep[a] = 0;
      if (chunk.length > 0 && interesting(keep)) live.splice(i, size);
      else {
        for (const a of chunk) keep[a] = 1;
        i += size;
      }
    }
    live = live.filter((u) => u.some((a) => keep[a]));
  }
}

/**
 * Everything a candidate can leave out, numbered: the stream's events first (atom i is event i), then the
 * input's members collection by collection (array elements, or the state object's keys).
 */
class Atoms {
  readonly count: number;
  private readonly members: { collection: Collection; from: number; keys: (number | string)[] }[] = [];

  constructor(
    private readonly stream: unknown[],
    private readonly input: JsonObject | null,
  ) {
    let next = stream.length;
    for (const collection of COLLECTIONS) {
      const v = input?.[collection];
      const keys = Array.isArray(v) ? v.map((_, i) => i) : collection === 'state' && isObject(v) ? Object.keys(v) : null;
      if (keys === null || keys.length === 0) continue;
      this.members.push({ collection, from: next, keys });
      next += keys.length;
    }
    this.count = next;
  }

  /** The fixture `doc` with only the atoms `keep` marks. */
  build(doc: JsonObject, keep: Uint8Array): JsonObject {
    const out: JsonObject = { ...doc, stream: this.stream.filter((_, i) => keep[i]) };
    if (this.input === null) return out;
    const input: JsonObject = { ...this.input };
    for (const m of this.members) {
      const v = this.input[m.collection];
      if (Array.isArray(v)) input[m.collection] = v.filter((_, i) => keep[m.from + i]);
      else input[m.collection] = Object.fromEntries(m.keys.flatMap((k, i) => (keep[m.from + i] ? [[k, (v as JsonObject)[k as string]]] : [])));
    }
    out.input = input;
    return out;
  }

  memberCounts(keep: Uint8Array): Reduction['members'] {
    return this.members.map((m) => ({ collection: m.collection, kept: m.keys.filter((_, i) => keep[m.from + i]).length, of: m.keys.length }));
  }

  memberUnits(keep: Uint8Array): number[][] {
    return this.members.flatMap((m) => m.keys.map((_, i) => m.from + i)).filter((a) => keep[a]).map((a) => [a]);
  }

  /** Each run's events, RUN_STARTED to its RUN_FINISHED or RUN_ERROR; an event outside a run is a unit alone. */
  runUnits(keep: Uint8Array): number[][] {
    const units: number[][] = [];
    let run: number[] | null = null;
    this.stream.forEach((ev, i) => {
      if (!keep[i]) return;
      const type = isObject(ev) ? ev.type : undefined;
      if (type === 'RUN_STARTED') units.push((run = []));
      if (run) run.push(i);
      else units.push([i]);
      if (type === 'RUN_FINISHED' || type === 'RUN_ERROR') run = null;
    });
    return units;
  }

  /** Each message, tool call, reasoning message, activity or step with all its events; any other event alone. */
  entityUnits(keep: Uint8Array): number[][] {
    const byKey = new Map<string, number[]>();
    const units: number[][] = [];
    const openSteps = new Map<string, string[]>();
    let steps = 0;
    this.stream.forEach((ev, i) => {
      if (!keep[i]) return;
      const key = isObject(ev) ? entityOf(ev, openSteps, () => steps++) : null;
      if (key === null) return void units.push([i]);
      const unit = byKey.get(key);
      if (unit) unit.push(i);
      else {
        byKey.set(key, [i]);
        units.push(byKey.get(key)!);
      }
    });
    return units;
  }
}

/** What an event is part of: the id its family pairs its events by (a step: its name, occurrence by occurrence). */
function entityOf(ev: JsonObject, openSteps: Map<string, string[]>, nextStep: () => number): string | null {
  const type = typeof ev.type === 'string' ? ev.type : '';
  if (type.startsWith('TOOL_CALL_')) {
    const id = asString(ev.toolCallId);
    return id === undefined ? null : `tool:${id}`;
  }
  if (type.startsWith('TEXT_MESSAGE_') || type.startsWith('REASONING_') || type.startsWith('ACTIVITY_')) {
    const id = asString(ev.messageId);
    return id === undefined ? null : `message:${id}`;
  }
  if (type === 'STEP_STARTED' || type === 'STEP_FINISHED') {
    const name = asString(ev.stepName);
    if (name === undefined) return null;
    const open = openSteps.get(name) ?? [];
    openSteps.set(name, open);
    if (type === 'STEP_STARTED') {
      const key = `step:${nextStep()}`;
      open.push(key);
      return key;
    }
    return open.shift() ?? null;
  }
  return null;
}

/** Import declarations of the generated test, one a line. */
const imports = (list: [string, string][]) => list.map(([what, from]) => `import ${what} from ${JSON.stringify(from)};`).join('\n');

/** A `node:test` file that asserts, through the library, that the fixture beside it still raises the targets. */
function testFile(name: string, targets: string[], verdict: string, library: string, source: string): string {
  // A recording names its own source: only printable ASCII reaches a comment, which a line break would end.
  return `// Written by \`agui-inspector reduce\` from ${source.replace(/[^\x20-\x7e]/g, '?')}: the smallest input and stream that still raise
// ${targets.join(', ')}. It passes while the bug is there; when the producer is fixed, turn it around.
${imports([['assert', 'node:assert/strict'], ['{ readFileSync }', 'node:fs'], ['{ test }', 'node:test'], ['{ check }', library]])}

const fixture = JSON.parse(readFileSync(new URL(${JSON.stringify(`./${name}.fixture.json`)}, import.meta.url), 'utf8'));

test(${JSON.stringify(`${name} raises ${targets.join(', ')}`)}, () => {
  const [exchange] = check(fixture).exchanges;
  const rules = [...exchange.input.findings, ...exchange.findings].map((f) => f.rule);
  for (const rule of ${JSON.stringify(targets)}) assert.ok(rules.includes(rule), \`\${rule} is not raised: \${rules.join(', ') || 'no finding'}\`);
  assert.equal(exchange.verdict, ${JSON.stringify(verdict)});
});
`;
}
