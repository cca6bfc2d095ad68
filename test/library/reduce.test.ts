import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { analyzeExchanges } from '../../src/analyzer/index.ts';
import { reduceCommand } from '../../src/cli/reduce.ts';
import { check, exchangesOf, reduce, ReduceError } from '../../src/library/index.ts';
import { ROOT } from '../support/paths.ts';
import { PLANT_RULES, PLANTS, session, sse, type Plant } from './support/session.ts';

const execFileP = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'agui-reduce-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const rulesOf = (x: { input: { findings: { rule: string }[] }; findings: { rule: string }[] }) => new Set([...x.input.findings, ...x.findings].map((f) => f.rule));

/** A session with `plant` as an SSE body with its input, read and analysed as `check` reads it. */
function planted(plant: Plant, events: number, at?: number) {
  const s = session({ events, plant, at });
  const [x] = exchangesOf(sse(s.events, 40), { input: s.input, name: `${plant}.sse` });
  const [report] = analyzeExchanges([x!]);
  return { x: x!, report: report!, events: s.events.length };
}

/** Whether a fixture still raises `targets` and nothing `allowed` lacks — the judgement reduce keeps. */
function holds(doc: Record<string, unknown>, targets: string[], allowed: Set<string>): boolean {
  const rules = rulesOf(check(doc).exchanges[0]!);
  return targets.every((t) => rules.has(t)) && [...rules].every((r) => allowed.has(r));
}

describe('reduce: a long realistic exchange with a planted violation', () => {
  for (const plant of Object.keys(PLANTS) as Plant[]) {
    it(`${plant}: 1-minimal, still raises ${PLANT_RULES[plant]}, adds no rule, the same on every run`, () => {
      const { x, report, events } = planted(plant, 3000, plant === 'step-not-started' ? 0.9 : 0.4);
      assert.ok(events > 3000);
      const allowed = rulesOf(report);
      assert.ok(allowed.has(PLANT_RULES[plant]));
      const r = reduce(x, report, { name: plant });
      assert.deepEqual(r.targets, [PLANT_RULES[plant]]);
      assert.equal(r.stoppedBy, null);
      const doc = JSON.parse(r.fixture) as { input: Record<string, unknown[] | Record<string, unknown>>; stream: unknown[] };
      assert.ok(holds(doc, r.targets, allowed), 'the written fixture, read by check, still raises it and nothing new');
      assert.ok(doc.stream.length <= 6, `kept ${doc.stream.length} events`);
      // 1-minimal: no single event or input member can go.
      doc.stream.forEach((_, i) => assert.ok(!holds({ ...doc, stream: doc.stream.filter((_, j) => j !== i) }, r.targets, allowed), `event ${i} could go`));
      for (const [k, v] of Object.entries(doc.input)) {
        if (k === 'state' && v && typeof v === 'object' && !Array.isArray(v)) {
          for (const key of Object.keys(v)) assert.ok(!holds({ ...doc, input: { ...doc.input, state: Object.fromEntries(Object.entries(v).filter(([j]) => j !== key)) } }, r.targets, allowed), `state.${key} could go`);
        } else if (Array.isArray(v) && ['messages', 'tools', 'context'].includes(k)) {
          v.forEach((_, i) => assert.ok(!holds({ ...doc, input: { ...doc.input, [k]: v.filter((_, j) => j !== i) } }, r.targets, allowed), `${k}/${i} could go`));
        }
      }
      const again = reduce(x, report, { name: plant });
      assert.equal(again.fixture, r.fixture);
      assert.equal(again.test, r.test);
    });
  }

  it('every error of the exchange by default; a rule it does not raise is refused; a budget keeps the best so far', () => {
    const { x, report } = planted('text-not-open', 1500);
    assert.throws(() => reduce(x, report, { rule: 'identity/run-id-mismatch' }), ReduceError);
    const r = reduce(x, report, { budget: 10 });
    assert.equal(r.stoppedBy, 'budget');
    assert.equal(r.analyses, 10);
    assert.ok(holds(JSON.parse(r.fixture), r.targets, rulesOf(report)));
    // Stopped anywhere in the search, never with the candidate it was trying: each result is one it verified (budgets 1, 2, 3, 5, 6 and 7 wrote nothing before).
    for (let budget = 1; budget <= 8; budget++) assert.ok(holds(JSON.parse(reduce(x, report, { budget }).fixture), r.targets, rulesOf(report)), `budget ${budget}`);
    const timed = reduce(x, report, { timeLimitMs: 1 });
    assert.equal(timed.stoppedBy, 'time-limit');
    assert.ok(holds(JSON.parse(timed.fixture), timed.targets, rulesOf(report)));
    const clean = session({ events: 200 });
    const [cx] = exchangesOf(sse(clean.events), { input: clean.input });
    assert.throws(() => reduce(cx!, analyzeExchanges([cx!])[0]!), /no error-level finding/);
  });

  it('the CLI writes the fixture and a node:test file that passes against the library, and says what it kept', async () => {
    const s = session({ events: 2000, plant: 'args-after-end' });
    const body = join(dir, 'session.sse');
    writeFileSync(body, sse(s.events, 25));
    writeFileSync(join(dir, 'input.json'), JSON.stringify(s.input));
    const out = join(dir, 'out');
    let text = '';
    const code = reduceCommand([body, '--input', join(dir, 'input.json'), '--out', out], { out: (t) => void (text += t), err: (t) => void (text += t) });
    assert.equal(code, 0, text);
    assert.match(text, /to 3 of \d+ events/);
    assert.match(text, /still raises tool-call\/not-open \(failed\)/);
    assert.match(text, /event \d+: TOOL_CALL_ARGS/);
    // `import { check } from 'agui-inspector'`, resolved to this checkout's library.
    const pkg = join(out, 'node_modules', 'agui-inspector');
    mkdirSync(pkg, { recursive: true });
    writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'agui-inspector', type: 'module', exports: './index.ts' }));
    writeFileSync(join(pkg, 'index.ts'), `export * from ${JSON.stringify(join(ROOT, 'src/library/index.ts'))};\n`);
    // Without the runner's own context, which would send the child's results to this runner instead of stdout.
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    const run = await execFileP(process.execPath, ['--import', 'tsx', '--test', join(out, 'session.test.mjs')], { cwd: ROOT, env });
    assert.match(run.stdout, /# pass 1/);
    assert.match(readFileSync(join(out, 'session.fixture.json'), 'utf8'), /"TOOL_CALL_ARGS"/);
    // Stopped by the budget or the time limit: the best verified so far is written, stderr says so, exit 0.
    for (const [limit, said] of [[['--budget', '3'], /the budget of 3 analyses ran out/], [['--time-limit', '0.001'], /the time limit of 0.001 s ran out/]] as const) {
      let said2 = '';
      assert.equal(reduceCommand([body, '--input', join(dir, 'input.json'), '--out', join(dir, 'stopped'), ...limit], { out: () => {}, err: (t) => void (said2 += t) }), 0, said2);
      assert.match(said2, said);
      assert.match(readFileSync(join(dir, 'stopped', 'session.fixture.json'), 'utf8'), /"TOOL_CALL_ARGS"/);
    }
    let err = '';
    assert.equal(reduceCommand([body, '--rule', 'identity/run-id-mismatch', '--input', join(dir, 'input.json')], { out: () => {}, err: (t) => void (err += t) }), 2);
    assert.match(err, /no exchange raises identity\/run-id-mismatch/);
  });
});
