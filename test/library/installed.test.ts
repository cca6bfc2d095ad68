/**
 * The package as a user gets it: `npm pack` (which builds it, prepack), installed from the tarball into an
 * empty folder, then its `agui-inspector` bin and its library run from there — nothing of the clone reachable.
 * The package has no runtime dependencies, so the install needs no registry (`--offline`).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { startDemoAgent, type DemoAgent } from '../../demo/agent.ts';
import { demoInput } from '../../demo/record.ts';
import { ROOT } from '../support/paths.ts';
import { session } from './support/session.ts';

const execFileP = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'agui-installed-'));
const app = join(dir, 'app');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

interface Ran {
  code: number;
  out: string;
  err: string;
}

// Without the runner's NODE_TEST_CONTEXT, a `node --test` started here reports to its own stdout, not to this runner.
const { NODE_TEST_CONTEXT: _, ...env } = process.env;

async function run(file: string, args: string[], cwd = app): Promise<Ran> {
  try {
    const r = await execFileP(file, args, { cwd, env: { ...env, NO_COLOR: '1' }, maxBuffer: 64 << 20 });
    return { code: 0, out: r.stdout, err: r.stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    if (typeof x.code !== 'number') throw e;
    return { code: x.code, out: x.stdout, err: x.stderr };
  }
}

/** The installed bin, as `npx agui-inspector` would find it. */
const cli = (...args: string[]) => run(join(app, 'node_modules/.bin/agui-inspector'), args);
const rules = (json: string) => (JSON.parse(json) as { exchanges: { findings: { rule: string }[]; input: { findings: { rule: string }[] } }[] }).exchanges.flatMap((x) => [...x.input.findings, ...x.findings].map((f) => f.rule));

const bad = session({ turns: 3, plant: 'text-not-open' });
const clean = session({ turns: 3 });
const again = session({ turns: 3, ids: 'again-', pieces: 3 });
const PLANTED = 'streaming/text-not-open';

let agent: DemoAgent;

before(async () => {
  const started = performance.now();
  const packed = await run(npm, ['pack', '--pack-destination', dir], ROOT);
  assert.equal(packed.code, 0, packed.err);
  const tarball = join(dir, readdirSync(dir).find((f) => f.endsWith('.tgz'))!);
  mkdirSync(app);
  const installed = await run(npm, ['install', '--offline', '--no-audit', '--no-fund', '--no-package-lock', tarball]);
  assert.equal(installed.code, 0, installed.err);
  console.log(`npm pack + install: ${Math.round(performance.now() - started)} ms`);
  const fixture = (name: string, s: typeof bad) => writeFileSync(join(app, name), JSON.stringify({ input: s.input, stream: s.events }));
  fixture('bad.json', bad);
  fixture('clean.json', clean);
  fixture('again.json', again);
  agent = await startDemoAgent({ port: 0, delayMs: 0, page: false });
});
after(async () => {
  await agent?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the package installed from npm pack into an empty folder', () => {
  it('holds its bin, its library and their declarations, and nothing of the sources', () => {
    const pkg = join(app, 'node_modules/agui-inspector');
    const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8'));
    assert.deepEqual(manifest.exports['.'], { types: './dist/node/types/library/index.d.ts', import: './dist/node/lib/index.js' });
    assert.deepEqual(readdirSync(pkg).sort(), ['README.md', 'dist', 'package.json']);
    assert.deepEqual(readdirSync(join(pkg, 'dist')), ['node']);
  });

  it('check: exit 1 and the planted finding on a bad fixture, exit 0 on a clean one', async () => {
    const r = await cli('check', 'bad.json', '--format', 'json');
    assert.equal(r.code, 1, r.err);
    assert.ok(rules(r.out).includes(PLANTED), r.out);
    assert.equal((await cli('check', 'clean.json')).code, 0);
  });

  it('reduce: a 1-minimal fixture, and a node:test file that passes against the installed library', async () => {
    const r = await cli('reduce', 'bad.json', '--rule', PLANTED, '--out', 'reduced');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /still raises streaming\/text-not-open/);
    const reduced = JSON.parse(readFileSync(join(app, 'reduced/bad.fixture.json'), 'utf8')) as { stream: { type: string }[] };
    assert.ok(reduced.stream.length < bad.events.length / 10, `${reduced.stream.length} of ${bad.events.length} events kept`);
    const test = await run(process.execPath, ['--test', 'reduced/bad.test.mjs']);
    assert.equal(test.code, 0, test.out + test.err);
    assert.match(test.out, /# pass 1/);
  });

  it('diff: 0 for the same session with other ids and chunking, 1 naming what a planted event changed', async () => {
    const same = await cli('diff', 'clean.json', 'again.json');
    assert.equal(same.code, 0, same.out + same.err);
    const changed = await cli('diff', 'clean.json', 'bad.json', '--format', 'json');
    assert.equal(changed.code, 1, changed.err);
    const kinds = (JSON.parse(changed.out) as { differences: { kind: string }[] }).differences.map((d) => d.kind);
    assert.ok(kinds.includes('findings'), changed.out);
  });

  it('probe: a live agent on 127.0.0.1 reported as check reports the HAR it wrote', async () => {
    writeFileSync(join(app, 'request.json'), JSON.stringify(demoInput({ threadId: 't-probe', runId: 'r-probe' })));
    const url = `${agent.url}/agent/misbehave-identity`;
    const probed = await cli('probe', url, '--input', 'request.json', '--har', 'probe.har', '--format', 'json');
    assert.equal(probed.code, 1, probed.err);
    assert.ok(rules(probed.out).includes('identity/run-id-mismatch'), probed.out);
    const checked = await cli('check', 'probe.har', '--format', 'json');
    assert.equal(checked.code, 1, checked.err);
    assert.deepEqual(rules(checked.out), rules(probed.out));
  });

  it("import { check, analyze } from 'agui-inspector' in an ES module", async () => {
    writeFileSync(
      join(app, 'consumer.mjs'),
      `import { readFileSync } from 'node:fs';
import { analyze, check } from 'agui-inspector';
const fixture = JSON.parse(readFileSync('bad.json', 'utf8'));
const [exchange] = check(fixture).exchanges;
const [analysed] = analyze(fixture.stream, { input: fixture.input });
console.log(JSON.stringify({ verdict: exchange.verdict, rules: exchange.findings.map((f) => f.rule), analysed: analysed.report.verdict }));
`,
    );
    const r = await run(process.execPath, ['consumer.mjs']);
    assert.equal(r.code, 0, r.err);
    const seen = JSON.parse(r.out) as { verdict: string; rules: string[]; analysed: string };
    assert.equal(seen.verdict, 'failed');
    assert.equal(seen.analysed, 'failed');
    assert.ok(seen.rules.includes(PLANTED), r.out);
  });

  it("the guide's library example passes under node --test, pointed at the demo agent", async () => {
    const guide = readFileSync(join(ROOT, 'docs', 'cli.md'), 'utf8');
    const example = /### The library\n\n```js\n([^]*?)```/.exec(guide)?.[1];
    assert.ok(example, 'docs/cli.md: the js block under ### The library');
    // The example's free names: the endpoint and what it is sent.
    const given = `const url = ${JSON.stringify(`${agent.url}/agent/chat`)};\nconst input = ${JSON.stringify(demoInput({ threadId: 't-readme', runId: 'r-readme' }))};\n`;
    writeFileSync(join(app, 'readme.test.mjs'), given + example);
    const r = await run(process.execPath, ['--test', 'readme.test.mjs']);
    assert.equal(r.code, 0, r.out + r.err);
    assert.match(r.out, /# pass 1/);
  });

  it('its declarations type a TypeScript consumer (nodenext, strict, lib checks on)', async () => {
    writeFileSync(
      join(app, 'consumer.ts'),
      `import { check, type CheckOptions, type Contract, type Finding } from 'agui-inspector';
const options: CheckOptions = { as: '1.0', stallMs: 500 };
const report: Contract = check('data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}\\n\\n', options);
const findings: readonly Finding[] = report.exchanges[0]?.findings ?? [];
// @ts-expect-error a version the library does not judge
check('', { as: '2.0' });
export const rules: string[] = findings.map((f) => f.rule);
`,
    );
    writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'nodenext', target: 'es2022', strict: true, noEmit: true, skipLibCheck: false, types: [] }, files: ['consumer.ts'] }));
    const r = await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', '.']);
    assert.equal(r.code, 0, r.out + r.err);
  });
});
