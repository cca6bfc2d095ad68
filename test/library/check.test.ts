import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { run } from '../../src/cli/main.ts';
import { analyze, check, FormatError, statusOf } from '../../src/library/index.ts';
import { session, sse } from './support/session.ts';

const dir = mkdtempSync(join(tmpdir(), 'agui-check-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function cli(...argv: string[]): unknown {
  let out = '';
  run([...argv, '--format', 'json'], { out: (s) => void (out += s), err: () => {}, colour: false });
  return JSON.parse(out);
}

describe('library check: the report the CLI prints, from what a test holds in memory', () => {
  const s = session({ turns: 5, plant: 'text-not-open' });
  const body = join(dir, 'body.sse');
  writeFileSync(body, sse(s.events));
  writeFileSync(join(dir, 'input.json'), JSON.stringify(s.input));

  it('an SSE body with its input (text or object) gives what check --format json prints for the file', () => {
    const expected = cli('check', body, '--input', join(dir, 'input.json'));
    assert.deepEqual(check(sse(s.events), { input: s.input, name: body }), expected);
    assert.deepEqual(check(new TextEncoder().encode(sse(s.events)), { input: JSON.stringify(s.input), name: body }), expected);
  });

  it('an event array, a fixture and a HAR, each as parsed JSON, read as the CLI reads the file', () => {
    const fixture = { name: 'f', description: 'd', specPage: '/spec/1.0', input: s.input, stream: s.events, expect: { outcome: 'failed' } };
    writeFileSync(join(dir, 'f.json'), JSON.stringify(fixture));
    assert.deepEqual(check(fixture, { name: join(dir, 'f.json') }), cli('check', join(dir, 'f.json')));
    writeFileSync(join(dir, 'events.json'), JSON.stringify(s.events));
    assert.deepEqual(check(s.events, { name: join(dir, 'events.json') }), cli('check', join(dir, 'events.json')));
    const [exchange] = check(fixture).exchanges;
    assert.equal(exchange!.verdict, 'failed');
    assert.ok(exchange!.findings.some((f) => f.rule === 'streaming/text-not-open'));
    assert.equal(statusOf(analyze(fixture).map((a) => a.report)), 1);
  });

  it('what it cannot read is a FormatError, as the CLI says', () => {
    assert.throws(() => check('hello'), FormatError);
    assert.throws(() => check({ neither: true }), FormatError);
  });
});
