import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pre10Reading } from '../../../src/analyzer/era.ts';
import type { ExchangeReport } from '../../../src/analyzer/types.ts';
import { ruleById } from '../../../src/catalog/index.ts';
import type { Finding } from '../../../src/rules/types.ts';
import type { Event, Scenario } from './grammar.ts';
import { chunk, encodeSse, PROTO, runAnalyzer, SSE, type ReferenceResult } from './harness.ts';
import { label, mutate, type Frame, type Mutant, type Mutation } from './mutate.ts';
import { Rng } from './prng.ts';

/*
 * Differential testing against a reference consumer: the same bytes go to the analyzer and to the
 * reference's own pipeline, and their verdicts must agree — the analyzer fails the exchange exactly when
 * the reference rejects the run — except where the two differ on purpose, each such difference listed by
 * the test with the spec section (or the reference's code) that decides it.
 */

export type Transport = 'sse' | 'protobuf';

export interface Case {
  name: string;
  transport: Transport;
  input: Record<string, unknown>;
  frames: Frame[];
  mutations: Mutation[];
  /** Fraction of the encoded body delivered, when the mutant cut it. */
  keep?: number;
  body: Uint8Array;
  analyzer: ExchangeReport;
  reference: ReferenceResult;
}

export interface Difference {
  kind: string;
  /** What decides the case: a section of the 1.0 spec relative to /spec/1.0/, or `client-0.0.59:<function>` for the pre-1.0 reference's code. */
  spec: string;
  /** What the spec requires, and what the reference does instead. */
  why: string;
  /** Recognises one fatal analyzer finding that the reference has no counterpart for. */
  finding?: (f: Finding, c: Case) => boolean;
  /** Recognises a reference rejection the analyzer rightly does not share. */
  rejection?: (error: string, c: Case) => boolean;
  /**
   * Rewrites the frames the way the reference reads them. When the analyzer, fed the rewrite, then
   * agrees with the reference, the whole disagreement — cascades included — is this difference.
   */
  neutralize?: (frames: Frame[]) => Frame[] | null;
}

/** One reference consumer and the traffic it is compared on. */
export interface Reference {
  /** Names the reference in the suite's title, e.g. `@ag-ui/client 1.0.0`. */
  name: string;
  run: (chunks: readonly Uint8Array[], contentType: string, input: Record<string, unknown>) => Promise<ReferenceResult>;
  /** The protobuf body this reference's producers write for the frames; throws when a frame has no proto form. */
  encodeProto: (frames: readonly Frame[]) => Uint8Array;
  /** A valid exchange to mutate, as the reference's producers send it over the transport. */
  scenario: (rng: Rng, seq: number, transport: Transport) => Scenario;
  differences: readonly Difference[];
  /**
   * Disagreements the test once found where the analyzer, not the reference, was wrong. Fixed since;
   * each keeps a test asserting no generated case disagrees that way again.
   */
  regressions: readonly Difference[];
  seed: number;
  sse: { scenarios: number; mutantsEach: number; minimum: number };
  protobuf: { scenarios: number; mutantsEach: number; minimum: number };
}

export const events = (c: Case): Event[] => c.frames.filter((f): f is Event => typeof f !== 'string');

/** A finding that counts toward the exchange's verdict: a pre-1.0 exchange's readiness items never do. */
const counts = (f: Finding): boolean => f.readiness !== true;

/** The findings that fail the case's exchange: fatal by their rule, or by the rule's pre-1.0 reading (era.ts) when the report is split. */
function fatalFindings(c: Case): Finding[] {
  const r = c.analyzer;
  const fatal = (f: Finding): boolean => (r.readiness !== null ? pre10Reading(f.rule)?.fatal : undefined) ?? (ruleById(f.rule)?.fatal === true && f.severity === 'error');
  return [...r.input.findings, ...r.findings].filter((f) => counts(f) && fatal(f));
}

type Classification =
  | { kind: 'agree' }
  | { kind: 'documented'; differences: string[] }
  | { kind: 'suspect'; differences: string[] }
  | { kind: 'unexplained'; why: string };

/** The kinds that explain every fatal finding, or null when one finding has no explanation. */
function explainFindings(findings: Finding[], c: Case, table: readonly Difference[]): string[] | null {
  const kinds = new Set<string>();
  for (const f of findings) {
    const d = table.find((x) => x.finding?.(f, c));
    if (!d) return null;
    kinds.add(d.kind);
  }
  return [...kinds];
}

function encode(ref: Reference, transport: Transport, frames: Frame[], keep?: number): Uint8Array | null {
  let bytes: Uint8Array;
  try {
    bytes = transport === 'sse' ? encodeSse(frames) : ref.encodeProto(frames);
  } catch {
    return null; // no protobuf form for this mutant (a garbage frame or a value the encoder cannot write)
  }
  return keep === undefined ? bytes : bytes.subarray(0, Math.floor(bytes.length * keep));
}

const contentTypeOf = (transport: Transport): string => (transport === 'sse' ? SSE : PROTO);

/** Chunking cannot change a verdict, so a counterfactual re-run takes the body whole. */
function analyze(ref: Reference, transport: Transport, input: Record<string, unknown>, frames: Frame[], keep?: number): ExchangeReport {
  return runAnalyzer([encode(ref, transport, frames, keep) ?? new Uint8Array()], contentTypeOf(transport), input);
}

/** Explains an analyzer-only failure directly, or by neutralising one difference and judging what is left. */
function explainFailure(ref: Reference, c: Case, table: readonly Difference[]): string[] | null {
  const fatal = fatalFindings(c);
  const direct = fatal.length > 0 ? explainFindings(fatal, c, table) : null;
  if (direct) return direct;
  for (const d of table) {
    const frames = d.neutralize?.(c.frames);
    if (!frames) continue;
    const again: Case = { ...c, frames, analyzer: analyze(ref, c.transport, c.input, frames, c.keep) };
    if (again.analyzer.verdict === 'completed') return [d.kind];
    const rest = explainFindings(fatalFindings(again), again, [...ref.differences, ...ref.regressions]);
    if (rest) return [d.kind, ...rest];
  }
  return null;
}

function classify(ref: Reference, c: Case): Classification {
  const analyzerFails = c.analyzer.verdict === 'failed';
  if (analyzerFails === c.reference.rejected) return { kind: 'agree' };
  if (analyzerFails) {
    const documented = explainFailure(ref, c, ref.differences);
    if (documented) return { kind: 'documented', differences: documented };
    const suspect = explainFailure(ref, c, [...ref.differences, ...ref.regressions]);
    if (suspect) return { kind: 'suspect', differences: suspect.filter((k) => ref.regressions.some((d) => d.kind === k)) };
    const shown = fatalFindings(c).map((f) => `${f.rule} #${f.event}${f.path ?? ''} (${f.message})`).join('; ');
    return { kind: 'unexplained', why: `analyzer fails on ${shown || 'no fatal finding'}; reference accepts` };
  }
  const error = c.reference.error ?? '';
  const d = ref.differences.find((x) => x.rejection?.(error, c));
  if (!d) return { kind: 'unexplained', why: `reference rejects (${error.slice(0, 300)}); analyzer completes` };
  return { kind: 'documented', differences: [d.kind] };
}

function describeCase(c: Case, why: string): string {
  const findings = [...c.analyzer.input.findings, ...c.analyzer.findings].filter((f) => f.severity !== 'info');
  return [
    `${c.name} [${c.transport}] ${why}`,
    `  mutations: ${c.mutations.map((m) => `${m.kind}(${m.detail})`).join(', ') || 'none'}`,
    `  frames: ${c.frames.map((f, i) => `#${i} ${typeof f === 'string' ? label(f) : JSON.stringify(f)}`).join('\n          ')}`,
    `  analyzer: ${c.analyzer.verdict}; ${findings.map((f) => `${f.rule}#${f.event}${f.path ?? ''}${counts(f) ? '' : ' (readiness)'}`).join(', ') || 'no findings'}`,
    `  reference: ${c.reference.rejected ? `rejected: ${c.reference.error}` : 'completed'}`,
  ].join('\n');
}

async function runCase(ref: Reference, rng: Rng, name: string, transport: Transport, input: Record<string, unknown>, variant: Mutant): Promise<Case | null> {
  const bytes = encode(ref, transport, variant.frames, variant.keep);
  if (!bytes) return null;
  const chunks = chunk(bytes, () => rng.int(1, 2048));
  const analyzer = runAnalyzer(chunks, contentTypeOf(transport), input);
  const reference = await ref.run(chunks, contentTypeOf(transport), input);
  return { name, transport, input, frames: variant.frames, mutations: variant.mutations, keep: variant.keep, body: bytes, analyzer, reference };
}

interface Tally {
  cases: number;
  agree: number;
  bothFail: number;
  skipped: number;
  documented: Map<string, number>;
  suspects: Map<string, string[]>;
  unexplained: string[];
}

async function campaign(ref: Reference, transport: Transport, seed: number): Promise<Tally> {
  const { scenarios, mutantsEach } = ref[transport];
  const rng = new Rng(seed);
  const t: Tally = { cases: 0, agree: 0, bothFail: 0, skipped: 0, documented: new Map(), suspects: new Map(), unexplained: [] };
  for (let s = 0; s < scenarios; s++) {
    const { input, events: valid } = ref.scenario(rng, s, transport);
    const variants: Mutant[] = [{ frames: valid, mutations: [] }];
    for (let m = 0; m < mutantsEach; m++) variants.push(mutate(rng, valid));
    for (const [v, variant] of variants.entries()) {
      const c = await runCase(ref, rng, `${transport}-${s}.${v}`, transport, input, variant);
      if (!c) {
        t.skipped++;
        continue;
      }
      t.cases++;
      if (v === 0) {
        // An unmutated stream is conforming: both must accept it, and the analyzer must stay quiet about it.
        const loud = [...c.analyzer.input.findings, ...c.analyzer.findings].filter((f) => f.severity !== 'info' && counts(f));
        if (c.reference.rejected || c.analyzer.verdict === 'failed' || loud.length > 0) t.unexplained.push(describeCase(c, 'generated valid stream not accepted quietly by both'));
      }
      const verdict = classify(ref, c);
      if (verdict.kind === 'agree') {
        t.agree++;
        if (c.reference.rejected) {
          t.bothFail++;
          // Agreement by coincidence hides a miss: the analyzer must fail for a reason the reference shares.
          if (explainFindings(fatalFindings(c), c, ref.differences) && !ref.differences.some((d) => d.rejection?.(c.reference.error ?? '', c))) {
            t.unexplained.push(describeCase(c, 'both fail, but the analyzer only for reasons the reference does not share'));
          }
        }
      } else if (verdict.kind === 'documented') {
        for (const d of verdict.differences) t.documented.set(d, (t.documented.get(d) ?? 0) + 1);
      } else if (verdict.kind === 'suspect') {
        for (const d of verdict.differences) t.suspects.set(d, [...(t.suspects.get(d) ?? []), describeCase(c, d)]);
      } else {
        t.unexplained.push(describeCase(c, verdict.why));
      }
    }
  }
  return t;
}

function summary(ref: Reference, transport: Transport, t: Tally): string {
  const docs = [...t.documented].sort((a, b) => b[1] - a[1]).map(([k, n]) => `    ${k.padEnd(22)} ${n}`);
  return [
    `# differential against ${ref.name} (${transport}): ${t.cases} cases, seed 0x${ref.seed.toString(16)}`,
    `#   agreements            ${t.agree} (both accept ${t.agree - t.bothFail}, both fail ${t.bothFail})`,
    `#   documented differences ${[...t.documented.values()].reduce((a, b) => a + b, 0)}`,
    ...docs.map((l) => `#${l}`),
    `#   analyzer regressions ${[...t.suspects.values()].reduce((a, b) => a + b.length, 0)}`,
    ...[...t.suspects].map(([k, cases]) => `#    ${k.padEnd(22)} ${cases.length}`),
    `#   unexplained           ${t.unexplained.length}`,
    ...(t.skipped ? [`#   skipped (no protobuf form) ${t.skipped}`] : []),
  ].join('\n');
}

const show = (cases: string[]): string => cases.slice(0, Number(process.env.DIFF_SHOW ?? 8)).join('\n\n');

/**
 * A hand-written case, judged as the campaigns judge theirs but with no difference admitted: the
 * analyzer's verdict must be the reference's. Null when the transport has no form for the frames.
 */
export async function judgeExactly(ref: Reference, name: string, transport: Transport, input: Record<string, unknown>, variant: Mutant): Promise<{ agree: boolean; shown: string; c: Case } | null> {
  const c = await runCase(ref, new Rng(1), name, transport, input, variant);
  if (!c) return null;
  const agree = (c.analyzer.verdict === 'failed') === c.reference.rejected;
  return { agree, shown: describeCase(c, agree ? 'agree' : 'verdicts differ'), c };
}

/** The suite: both campaigns, one test per transport, one per fixed analyzer bug, and the table's own hygiene. */
export function differentialSuite(ref: Reference): void {
  describe(`differential testing against ${ref.name}`, () => {
    const campaigns = {
      sse: campaign(ref, 'sse', ref.seed),
      protobuf: campaign(ref, 'protobuf', ref.seed ^ 0xb1a5),
    };

    for (const transport of ['sse', 'protobuf'] as const) {
      it(`agrees on ${transport} streams, generated and mutated, except for documented differences`, async () => {
        const t = await campaigns[transport];
        console.log(summary(ref, transport, t));
        assert.ok(t.cases >= ref[transport].minimum, `only ${t.cases} cases`);
        assert.equal(t.unexplained.length, 0, `${t.unexplained.length} unexplained disagreements; first ones:\n${show(t.unexplained)}`);
      });
    }

    for (const bug of ref.regressions) {
      it(`never disagrees as ${bug.kind} (${bug.spec})`, async () => {
        const cases = [...(await campaigns.sse).suspects.get(bug.kind) ?? [], ...(await campaigns.protobuf).suspects.get(bug.kind) ?? []];
        assert.equal(cases.length, 0, `${bug.why}\n\n${show(cases)}`);
      });
    }

    it('lists every difference with a spec section or the reference code that decides it, and a recogniser', () => {
      for (const d of [...ref.differences, ...ref.regressions]) {
        assert.match(d.spec, /^([a-z-]+(\/[a-z-]+)*#[a-z0-9_-]+|client-0\.0\.59:[A-Za-z]+)$/, d.kind);
        assert.ok(d.finding || d.rejection || d.neutralize, d.kind);
      }
    });
  });
}
