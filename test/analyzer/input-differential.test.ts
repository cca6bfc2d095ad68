import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import { EventSchemas as EventSchemas100, RunAgentInputSchema as RunAgentInputSchema100 } from '@ag-ui/core/schemas';
import { ExchangeAnalyzer, PRE_1_0_INPUT } from '../../src/analyzer/index.ts';
import { analyzeInput } from '../../src/analyzer/input.ts';
import type { ExchangeReport } from '../../src/analyzer/types.ts';
import { corpus, referenceValidators, skipReason } from '../schema/reference.ts';
import { mutations as eventMutations } from '../schema/mutate.ts';
import { readFileSync } from 'node:fs';
import { ROOT } from '../support/paths.ts';
import { baseInput, mutate, type Era, type Json, type Mutation, type Obj } from './support/inputs.ts';
import { Rng } from './support/prng.ts';

/*
 * The input side of the differential (#34). Generated RunAgentInputs, mutated member by member, are judged
 * as the peer's own client judges them:
 * - undeclared (a pre-1.0 exchange): by @ag-ui/core 0.0.59's RunAgentInputSchema.safeParse, what a pre-1.0
 *   client builds its input with. What it accepts never fails the exchange (what 1.0 rejects there is a
 *   readiness item, era.ts PRE_1_0_INPUT); what it rejects fails it.
 * - declared 1.0 or 1.1: by the official JSON Schema of that version (ajv): what it rejects is malformed
 *   and fails the exchange, what it accepts raises no schema finding, and @ag-ui/core 1.0.0 agrees. Every
 *   event type's members are judged the same way in a declared exchange's report: each event of the
 *   conformance corpus and each one change away from it (test/schema/mutate.ts).
 * Every intended difference is data below, with the spec sentence or reference code that decides it, and
 * the test prints how often each one decided a case. INPUT_DIFF_SEED explores other inputs (the default
 * is what CI pins); INPUT_DIFF_CASES sets how many of each era.
 */
const SEED = Number(process.env.INPUT_DIFF_SEED ?? 0x34_1ee7);
const CASES = Number(process.env.INPUT_DIFF_CASES ?? 3000);

const core059 = createRequire(import.meta.resolve('@ag-ui/client-0.0.59'))('@ag-ui/core') as { RunAgentInputSchema: typeof RunAgentInputSchema100 };

const enc = new TextEncoder();
const str = (v: unknown, fallback: string): string => (typeof v === 'string' ? v : fallback);

/** The exchange with a run that answers it as its peer would: the input's ids echoed, the version declared when the input declares one. */
function judge(input: Obj): ExchangeReport {
  const ids = { threadId: str(input.threadId, 'thread-x'), runId: str(input.runId, 'run-x') };
  const version = typeof input.protocolVersion === 'string' ? { protocolVersion: input.protocolVersion } : {};
  const frames = [{ type: 'RUN_STARTED', ...ids, ...version }, { type: 'RUN_FINISHED', ...ids }];
  const a = new ExchangeAnalyzer({ source: 'input-differential', requestBody: JSON.stringify(input), contentType: 'text/event-stream' });
  a.push(enc.encode(frames.map((f) => `data: ${JSON.stringify(f)}\n\n`).join('')), 0);
  a.end(0);
  return a.report();
}

/** The generated cases: a base input of `era`'s client, changed in 0 to 3 members. */
function* cases(seed: number, era: Era, n: number): Generator<{ value: Obj; mutations: Mutation[] }> {
  const rng = new Rng(seed);
  for (let i = 0; i < n; i++) {
    // One base in five is a 1.0 client's, so what 1.0 added is sent undeclared too.
    let value = baseInput(rng, era === 'pre-1.0' && rng.chance(0.2) ? '1.0' : era);
    const mutations: Mutation[] = [];
    for (let k = rng.pick([0, 1, 1, 1, 2, 3]); k > 0; k--) {
      const m = mutate(rng, value);
      value = m.value;
      mutations.push(m.mutation);
    }
    yield { value, mutations };
  }
}

const at = (root: unknown, path: readonly (string | number)[]): unknown => path.reduce<unknown>((v, k) => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), root);

/** A zod issue as zod 3 (0.0.59's core) or zod 4 (1.0.0's) reports it, read for what the differences need. */
interface ZodIssue {
  code: string;
  path: (string | number)[];
  received?: string;
  /** zod 3: each branch of a union, as an error. */
  unionErrors?: { issues: ZodIssue[] }[];
  /** zod 4: each branch of a union, its issues' paths relative to the union. */
  errors?: ZodIssue[][];
  note?: string;
  values?: unknown[];
}
const issuesOf = (error: { issues: unknown }): ZodIssue[] => error.issues as ZodIssue[];

/** A difference between the reference and the analyzer that the specification decides, as data. */
interface IssueDifference {
  kind: string;
  /** The spec section (under /spec/1.0/), or the reference's code, that decides it. */
  spec: string;
  why: string;
  /** Whether this difference accounts for one issue the reference raised on `input`, of which the analyzer stripped `stripped`. */
  explains: (issue: ZodIssue, input: Obj, stripped?: readonly string[]) => boolean;
}

/** Where 0.0.59 rejects an undeclared input that 1.0 accepts: what 1.0 added, which no pre-1.0 client sends. */
const PRE_1_0_DIFFERENCES: readonly IssueDifference[] = [
  {
    kind: 'optional-tools-and-context',
    spec: 'basic/run-input#tools',
    why: '"tools and context on the run input are optional: absent and empty mean the same thing" (changelog, 1.0 minor 1); 0.0.59\'s RunAgentInputSchema requires both lists, which its HttpAgent always sends',
    explains: (i) => i.code === 'invalid_type' && i.received === 'undefined' && i.path.length === 1 && (i.path[0] === 'tools' || i.path[0] === 'context'),
  },
  {
    kind: 'file-source',
    spec: 'basic/run-input#provider-file-handles',
    why: 'the file source is "new in 1.0, for bytes already uploaded to the model provider" (changelog, 1.0 minor 6); 0.0.59\'s InputContentSourceSchema knows data and url only',
    explains: (i, input) => i.code === 'invalid_union_discriminator' && i.path.at(-2) === 'source' && i.path.at(-1) === 'type' && at(input, i.path) === 'file',
  },
  {
    kind: 'tool-content-parts',
    spec: 'events/tool-calls#result-content',
    why: 'a tool message\'s content "accept[s] a string or an ordered list of the same parts a user message carries" (changelog, 1.0 major 10); 0.0.59\'s ToolMessageSchema.content is a string',
    explains: (i, input) => i.code === 'invalid_type' && i.path.length === 3 && i.path[0] === 'messages' && i.path[2] === 'content' && Array.isArray(at(input, i.path)) && (at(input, i.path.slice(0, 2)) as Obj).role === 'tool',
  },
];

/** The difference that accounts for `issue`: a union's issue is accounted for when every issue of one of its branches is. */
function explainedBy(differences: readonly IssueDifference[], issue: ZodIssue, input: Obj, stripped: readonly string[] = []): IssueDifference | undefined {
  const direct = differences.find((d) => d.explains(issue, input, stripped));
  if (direct !== undefined) return direct;
  if (issue.code === 'invalid_union') {
    const branches = issue.errors?.map((b) => b.map((i) => ({ ...i, path: [...issue.path, ...i.path] }))) ?? issue.unionErrors?.map((e) => e.issues) ?? [];
    for (const branch of branches) {
      const each = branch.map((i) => explainedBy(differences, i, input, stripped));
      if (each.every((d) => d !== undefined)) return each[0];
    }
  }
  return undefined;
}

/** Where @ag-ui/core 1.0.0's zod schema rejects an input the 1.0 processing model keeps, stripped (`stripped`: the pointers the analyzer removed). */
const CORE_1_0_DIFFERENCES: readonly IssueDifference[] = [
  {
    kind: 'core-checks-closed-sets-as-leaves',
    spec: 'basic/processing#what-a-consumer-does-with-unrecognised-material',
    why: 'an unrecognised union member or closed-set string is stripped, never fatal; the page says so of the reference: "a field whose schema is a closed set of string values — a message role, for instance — is checked as a leaf, so an unrecognised value there is fatal rather than stripped ... gaps against it rather than a softening of it" (@ag-ui/core 1.0.0: a discriminated union with no matching discriminator, a z.enum)',
    // zod 4 reports an unmatched discriminator as a union with no branch to try.
    explains: (i) => (i.code === 'invalid_union' && i.note === 'No matching discriminator') || (i.code === 'invalid_value' && Array.isArray(i.values)),
  },
  {
    kind: 'core-judges-inside-removed-values',
    spec: 'basic/processing#what-a-consumer-does-with-unrecognised-material',
    why: 'in a required position "the value containing it is removed instead ... leaving a part behind with no source would hand the validator something it must treat as malformed": what else the removed value held is gone with it; @ag-ui/core 1.0.0 judges its other members too',
    explains: (i, _input, stripped = []) => {
      const path = `/${i.path.join('/')}`;
      return stripped.some((s) => path === s || path.startsWith(`${s}/`));
    },
  },
];

/** Where the official schema, and the analyzer with it, reject what @ag-ui/core 1.0.0 accepts: a null in a member it types z.any(). */
const CORE_1_0_ANY = /^\/(state|forwardedProps|tools\/\d+\/parameters|resume\/\d+\/payload)$/;
const CORE_1_0_ANY_WHY = 'core-accepts-null-in-any (/spec/1.0/basic#absent-means-absent): "optional fields are omitted, never null" (changelog, 1.0 minor 3), and the schema says so (not: {type: null}); @ag-ui/core 1.0.0 types state, forwardedProps, a tool\'s parameters and a resume payload z.any()';

const show = (value: Obj, mutations: readonly Mutation[], more: string): string => `${mutations.map((m) => `${m.kind} ${m.at || '/'}`).join(', ') || 'unmutated'}: ${more}\n  ${JSON.stringify(value).slice(0, 600)}`;

function tally(counts: Map<string, number>, kind: string): void {
  counts.set(kind, (counts.get(kind) ?? 0) + 1);
}

describe('the input and every event type, judged as the peer\'s own client judges them', () => {
  it('pre-1.0 (undeclared): the verdict is @ag-ui/core 0.0.59\'s RunAgentInputSchema\'s, and what 1.0 alone rejects is a readiness item', (t) => {
    const unexplained: string[] = [];
    const explained = new Map<string, number>();
    let accepted = 0;
    let readiness = 0;
    for (const { value, mutations } of cases(SEED, 'pre-1.0', CASES)) {
      const ref = core059.RunAgentInputSchema.safeParse(value);
      const report = judge(value);
      assert.equal(report.era, 'pre-1.0');
      const failed = report.verdict === 'failed';
      if (ref.success) {
        accepted++;
        if (failed) unexplained.push(show(value, mutations, `0.0.59 accepts, the analyzer fails on ${report.input.findings.filter((f) => !f.readiness).map((f) => `${f.rule} ${f.path}`).join('; ')}`));
        const ready = report.input.findings.filter((f) => f.readiness && (f.category === 'schema' || f.category === 'unrecognised'));
        if (ready.some((f) => f.rule === 'schema/malformed')) {
          readiness++;
          // Shown apart, with the 1.0 verdict it would cause.
          assert.equal(report.readiness?.verdict, 'failed', show(value, mutations, 'a malformed readiness item fails the 1.0 reading'));
        }
        continue;
      }
      if (failed) continue;
      const issues = issuesOf(ref.error);
      const why = issues.map((i) => explainedBy(PRE_1_0_DIFFERENCES, i, value));
      if (why.every((d) => d !== undefined)) for (const d of new Set(why)) tally(explained, d!.kind);
      else unexplained.push(show(value, mutations, `0.0.59 rejects (${JSON.stringify(issues).slice(0, 300)}), the analyzer completes`));
    }
    t.diagnostic(`${CASES} inputs, seed ${SEED}: 0.0.59 accepted ${accepted}, ${readiness} of them with a malformed readiness item; explained: ${[...explained].map(([k, n]) => `${k} ${n}`).join(', ') || 'none'}`);
    for (const d of PRE_1_0_DIFFERENCES) t.diagnostic(`  ${d.kind} (/spec/1.0/${d.spec}): ${d.why}`);
    assert.ok(accepted > CASES / 5 && readiness > 0, `the cases reach both verdicts (${accepted} accepted, ${readiness} readiness)`);
    assert.deepEqual(unexplained.slice(0, 5), [], `${unexplained.length} unexplained disagreements`);
  });

  for (const version of ['1.0', '1.1'] as const) {
    it(`declared ${version}: the official JSON Schema's verdict, malformed where it rejects a known value, nothing where it accepts`, { skip: skipReason }, (t) => {
      const reference = referenceValidators(version);
      const unexplained: string[] = [];
      const explained = new Map<string, number>();
      let rejected = 0;
      for (const { value: undeclared, mutations } of cases(SEED ^ 0x10, '1.0', CASES)) {
        const value: Obj = { ...undeclared, protocolVersion: version };
        const schemaAccepts = reference.input(value);
        const input = analyzeInput(JSON.stringify(value));
        const enforcement = input.findings.filter((f) => f.category === 'schema' || f.category === 'unrecognised');
        const malformed = enforcement.some((f) => f.rule === 'schema/malformed');
        const verdict = judge(value).verdict;
        if (schemaAccepts) {
          if (enforcement.length > 0 || verdict === 'failed') unexplained.push(show(value, mutations, `the schema accepts, the analyzer finds ${enforcement.map((f) => `${f.rule} ${f.path}`).join('; ')}`));
        } else {
          rejected++;
          if (malformed) {
            if (verdict !== 'failed') unexplained.push(show(value, mutations, 'malformed, yet the exchange completed'));
          } else if (input.effective !== null && reference.input(input.effective) && enforcement.length > 0 && verdict === 'completed') {
            // The schema closes its objects and unions; the processing model strips what they do not describe.
            tally(explained, 'unrecognised-material-stripped');
          } else unexplained.push(show(value, mutations, `the schema rejects, the analyzer finds ${enforcement.map((f) => `${f.rule} ${f.path}`).join('; ') || 'nothing'}`));
        }
        // @ag-ui/core 1.0.0, the official 1.0 client's schema, reads the input the same way (unknown members stripped).
        const core = RunAgentInputSchema100.safeParse(value).success;
        const expected = schemaAccepts || (!malformed && input.effective !== null);
        if (version !== '1.0' || core === expected) continue;
        const pointerAt = (p: string): unknown => at(value, p.split('/').slice(1));
        if (core && input.findings.every((f) => f.rule !== 'schema/malformed' || (CORE_1_0_ANY.test(f.path ?? '') && pointerAt(f.path!) === null))) {
          tally(explained, 'core-accepts-null-in-any');
          continue;
        }
        const issues = core ? [] : issuesOf(RunAgentInputSchema100.safeParse(value).error!);
        const stripped = enforcement.filter((f) => f.category === 'unrecognised').map((f) => f.path ?? '');
        const why = issues.map((i) => explainedBy(CORE_1_0_DIFFERENCES, i, value, stripped));
        if (why.length > 0 && why.every((d) => d !== undefined)) for (const d of new Set(why)) tally(explained, d!.kind);
        else unexplained.push(show(value, mutations, `@ag-ui/core 1.0.0 ${core ? 'accepts' : `rejects (${JSON.stringify(issues).slice(0, 300)})`}, the schema and the analyzer ${expected ? 'accept' : 'reject'}`));
      }
      t.diagnostic(`${CASES} inputs declared ${version}: the schema rejected ${rejected}; explained: ${[...explained].map(([k, n]) => `${k} ${n}`).join(', ') || 'none'}`);
      for (const d of CORE_1_0_DIFFERENCES) t.diagnostic(`  ${d.kind} (/spec/1.0/${d.spec}): ${d.why}`);
      t.diagnostic(`  ${CORE_1_0_ANY_WHY}`);
      t.diagnostic('  unrecognised-material-stripped (/spec/1.0/basic/processing#what-a-consumer-does-with-unrecognised-material): the schema closes every object (unevaluatedProperties: false) and union; "enforcement ... strips unknown members, warning as it goes": the stripped input satisfies the schema');
      assert.ok(rejected > CASES / 5 && rejected < CASES, `the cases reach both verdicts (${rejected} rejected)`);
      assert.deepEqual(unexplained.slice(0, 5), [], `${unexplained.length} unexplained disagreements`);
    });
  }

  for (const version of ['1.0', '1.1'] as const) {
    it(`declared ${version}: every event type's members, the official JSON Schema's verdict in the exchange's report`, { skip: skipReason }, (t) => {
      const reference = referenceValidators(version);
      const input = { threadId: 'thread-1', runId: 'run-1', protocolVersion: version, messages: [] };
      const unexplained: string[] = [];
      const explained = new Map<string, number>();
      let n = 0;
      const types = new Set<string>();
      for (const fixture of corpus()) {
        for (const base of fixture.stream) {
          for (const { value: event, kind, at: where } of [{ value: base, kind: 'as recorded', at: '' }, ...eventMutations(base)]) {
            n++;
            types.add(String((base as Obj).type));
            // Placed in a run of its own: the schema findings at its index are what is compared; the lifecycle's are not.
            const frames = [{ type: 'RUN_STARTED', threadId: 'thread-1', runId: 'run-1', protocolVersion: version }, event, { type: 'RUN_FINISHED', threadId: 'thread-1', runId: 'run-1' }];
            const a = new ExchangeAnalyzer({ source: 'event-differential', requestBody: JSON.stringify(input), contentType: 'text/event-stream' });
            a.push(enc.encode(frames.map((f) => `data: ${JSON.stringify(f)}\n\n`).join('')), 0);
            a.end(0);
            const report = a.report();
            const found = report.findings.filter((f) => f.event === 1 && (f.category === 'schema' || f.category === 'unrecognised'));
            const malformed = found.some((f) => f.rule === 'schema/malformed');
            const accepts = reference.event(event);
            const what = `${fixture.file} ${String((base as Obj).type)} ${kind} ${where}`;
            if (accepts && found.length > 0) unexplained.push(`${what}: the schema accepts, the analyzer finds ${found.map((f) => `${f.rule} ${f.path}`).join('; ')}`);
            else if (!accepts && found.length === 0) unexplained.push(`${what}: the schema rejects, the analyzer finds nothing`);
            else if (malformed && report.verdict !== 'failed') unexplained.push(`${what}: malformed, yet the exchange completed`);
            else if (!accepts && !malformed) tally(explained, 'unrecognised-material-stripped');
            if (version !== '1.0') continue;
            // @ag-ui/core 1.0.0's EventSchemas, the official client's parse, agrees but where the spec's processing model strips.
            const core = EventSchemas100.safeParse(event);
            if (core.success === accepts) continue;
            if (core.success && !malformed) {
              tally(explained, 'core-parser-keeps-unknown-members');
              continue;
            }
            if (!core.success && !malformed) {
              const stripped = found.map((f) => f.path ?? '');
              const why = issuesOf(core.error).map((i) => explainedBy(CORE_1_0_DIFFERENCES, i, event as Obj, stripped));
              if (why.every((d) => d !== undefined)) {
                for (const d of new Set(why)) tally(explained, d!.kind);
                continue;
              }
            }
            unexplained.push(`${what}: @ag-ui/core 1.0.0 ${core.success ? 'accepts' : 'rejects'}, the schema ${accepts ? 'accepts' : 'rejects'} and the analyzer finds ${found.map((f) => `${f.rule} ${f.path}`).join('; ') || 'nothing'}`);
          }
        }
      }
      t.diagnostic(`${n} events of ${types.size} types declared ${version}, from the conformance corpus and each one change away; explained: ${[...explained].map(([k, v]) => `${k} ${v}`).join(', ')}`);
      t.diagnostic('  core-parser-keeps-unknown-members (/spec/1.0/basic/processing#what-a-consumer-does-with-unrecognised-material): "This binds the pipeline, not the parser. A library layer that only parses an event ... keeps unknown properties on purpose"; @ag-ui/core 1.0.0\'s event schemas pass them through, the schema closes the object, and the analyzer strips them as enforcement does');
      assert.ok(n > 4000 && types.size >= 25, `${n} events of ${types.size} types`);
      assert.deepEqual(unexplained.slice(0, 5), [], `${unexplained.length} unexplained disagreements`);
    });
  }

  it('a fresh thread of a pre-1.0 client ("state": null until the agent gave one) completes, with the readiness item; declared 1.0 it fails', () => {
    const input: Obj = { threadId: 'thread-1', runId: 'run-1', messages: [{ id: 'u1', role: 'user', content: 'hi' }], tools: [], context: [], state: null, forwardedProps: {} };
    assert.equal(core059.RunAgentInputSchema.safeParse(input).success, true);
    const pre = judge(input);
    assert.equal(pre.verdict, 'completed');
    assert.equal(pre.input.verdict, 'valid');
    const item = pre.input.findings.find((f) => f.path === '/state');
    assert.equal(item?.rule, 'schema/malformed');
    assert.equal(item?.readiness, true);
    assert.equal(pre.readiness?.verdict, 'failed');
    const declared = judge({ ...input, protocolVersion: '1.0' } as Record<string, Json>);
    assert.equal(declared.verdict, 'failed');
    assert.equal(declared.input.findings.find((f) => f.path === '/state')?.readiness, undefined);
  });

  it('the guide to pre-1.0 apps lists every input member of the table', () => {
    const page = readFileSync(`${ROOT}/docs/pre-1.0.md`, 'utf8');
    for (const r of PRE_1_0_INPUT) assert.ok(page.includes(`\`${r.at}\``), `docs/pre-1.0.md names ${r.at}`);
  });
});
