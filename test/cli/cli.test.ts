import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { BaseEvent } from '@ag-ui/core';
import { EventEncoder } from '@ag-ui/encoder';
import { run } from '../../src/cli/main.ts';
import { ALL_RULES } from '../../src/catalog/index.ts';
import { CONFORMANCE_1_1, ROOT, sharedAvailable } from '../support/paths.ts';
import { parseXml, type XmlNode } from './xml.ts';

const execFileP = promisify(execFile);

interface Output {
  code: number;
  out: string;
  err: string;
}

function cli(...argv: string[]): Output {
  let out = '';
  let err = '';
  const code = run(argv, { out: (s) => void (out += s), err: (s) => void (err += s), colour: false });
  return { code, out, err };
}

const json = (o: Output) => JSON.parse(o.out) as { exchanges: Record<string, any>[]; summary: Record<string, any> };

// Identifiers and bodies for the sample files the tests write.
const input = { threadId: 't-cli', runId: 'r-cli', protocolVersion: '1.1', messages: [{ id: 'u1', role: 'user', content: 'hi' }] };
const clean = [
  { type: 'RUN_STARTED', threadId: 't-cli', runId: 'r-cli', protocolVersion: '1.1' },
  { type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' },
  { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'Hello' },
  { type: 'TEXT_MESSAGE_END', messageId: 'm1' },
  { type: 'RUN_FINISHED', threadId: 't-cli', runId: 'r-cli' },
];
/** Breaks identity: its RUN_FINISHED names another run than its RUN_STARTED. */
const broken = [
  { type: 'RUN_STARTED', threadId: 't-cli', runId: 'r-cli', protocolVersion: '1.1' },
  { type: 'RUN_FINISHED', threadId: 't-cli', runId: 'r-other' },
];
/** encryptedValueType exists in 1.1 only, so the judged version decides whether it is unrecognised. */
const versioned = [
  clean[0],
  { type: 'REASONING_ENCRYPTED_VALUE', subtype: 'message', entityId: 'm1', encryptedValue: 'e30=', encryptedValueType: 'vendor' },
  clean[4],
];
const sse = (events: unknown[]) => events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('');
const proto = new EventEncoder({ accept: 'application/vnd.ag-ui.event+proto' });

function har(entries: { url: string; mime: string; status?: number; request?: unknown; body: string }[]) {
  return {
    log: {
      version: '1.2',
      creator: { name: 'WebInspector', version: '537.36' },
      entries: entries.map((e, i) => ({
        startedDateTime: `2025-05-01T10:00:0${i}.000Z`,
        time: 40,
        request: {
          method: e.request === undefined ? 'GET' : 'POST',
          url: e.url,
          httpVersion: 'HTTP/1.1',
          headers: e.request === undefined ? [] : [{ name: 'Content-Type', value: 'application/json' }],
          queryString: [],
          cookies: [],
          headersSize: -1,
          bodySize: -1,
          ...(e.request === undefined ? {} : { postData: { mimeType: 'application/json', text: JSON.stringify(e.request) } }),
        },
        response: {
          status: e.status ?? 200,
          statusText: '',
          httpVersion: 'HTTP/1.1',
          headers: [{ name: 'Content-Type', value: e.mime }],
          cookies: [],
          content: { size: e.body.length, mimeType: e.mime, text: e.body },
          redirectURL: '',
          headersSize: -1,
          bodySize: -1,
        },
        cache: {},
        timings: { send: 0, wait: 10, receive: 30 },
      })),
    },
  };
}

let dir = '';
const file = (name: string) => join(dir, name);

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'agui-cli-'));
  writeFileSync(file('clean.sse'), sse(clean));
  writeFileSync(file('broken.sse'), sse(broken));
  writeFileSync(file('versioned.sse'), sse(versioned));
  writeFileSync(file('input.json'), JSON.stringify(input));
  writeFileSync(file('other-input.json'), JSON.stringify({ ...input, threadId: 't-elsewhere' }));
  writeFileSync(file('clean.bin'), Buffer.concat(clean.map((e) => Buffer.from(proto.encodeProtobuf(e as BaseEvent)))));
  writeFileSync(file('clean.jsonl'), clean.map((e) => JSON.stringify(e)).join('\n') + '\n');
  writeFileSync(file('clean.json'), JSON.stringify(clean, null, 2));
  writeFileSync(file('fixture.json'), JSON.stringify({ name: 'cli-fixture', input, stream: broken, expect: { outcome: 'failed' } }));
  writeFileSync(
    file('session.har'),
    JSON.stringify(
      har([
        { url: 'http://localhost:3000/favicon.ico', mime: 'image/x-icon', body: '' },
        { url: 'http://localhost:3000/agent', mime: 'text/event-stream', request: input, body: sse(clean) },
        { url: 'http://localhost:3000/agent', mime: 'application/json', status: 422, request: { ...input, runId: 7 }, body: '{"error":"bad input"}' },
      ]),
    ),
  );
  // A pre-1.0 peer pair: nobody declares a protocolVersion, and the producer sends a member 1.0 does not describe.
  const pre10 = [{ type: 'RUN_STARTED', threadId: 't-cli', runId: 'r-cli', vendorTrace: 'x' }, ...clean.slice(1, 4), { type: 'RUN_FINISHED', threadId: 't-cli', runId: 'r-cli' }];
  writeFileSync(file('pre10-input.json'), JSON.stringify({ threadId: 't-cli', runId: 'r-cli', messages: input.messages }));
  writeFileSync(file('pre10.sse'), sse(pre10));
  writeFileSync(file('pre10-cut.sse'), sse(pre10.slice(0, -1)));
  writeFileSync(file('notes.txt'), 'hello, this is not a capture\n');
  writeFileSync(file('object.json'), '{"hello":"world"}');
  writeFileSync(file('empty.sse'), '');
  mkdirSync(file('a-directory'));
  // The Inspector's own recording of `clean`, its events arriving at known times.
  const times = [300, 700, 2200, 2210, 2250];
  const entry = har([{ url: 'http://localhost:3000/agent', mime: 'text/event-stream', request: input, body: sse(clean) }]).log.entries[0]!;
  const recorded = { ...entry, _agui: { chunks: clean.map((e, i) => ({ time: times[i]!, size: Buffer.byteLength(sse([e])) })), arrival: 'chunks' } };
  writeFileSync(file('timed.har'), JSON.stringify({ log: { version: '1.2', creator: { name: 'agui-inspector', version: '0' }, entries: [recorded], _agui: { format: 'agui-inspector/har', version: 1 } } }));
});

after(() => rmSync(dir, { recursive: true, force: true }));

describe('agui-inspector check (in-process)', () => {
  it('exits 0 when every exchange completes, and says so', () => {
    const o = cli('check', file('clean.sse'), '--input', file('input.json'));
    assert.equal(o.code, 0, o.out + o.err);
    assert.equal(o.err, '');
    assert.match(o.out, /✓ .*clean\.sse {2}completed/);
    assert.match(o.out, /1 completed, 0 failed/);
  });

  it('exits 1 when an exchange fails, naming the rule in every format', () => {
    for (const format of ['pretty', 'json', 'sarif', 'junit']) {
      const o = cli('check', file('broken.sse'), '--format', format);
      assert.equal(o.code, 1, format);
      assert.match(o.out, /identity\/run-id-mismatch/, format);
    }
  });

  it('exits 2 with a one-line reason for a missing file', () => {
    const o = cli('check', file('missing.sse'));
    assert.equal(o.code, 2);
    assert.equal(o.err, `agui-inspector: ${file('missing.sse')}: cannot read file: no such file\n`);
  });

  it('a file whose name is not valid UTF-8 exists: the reason says what is wrong with the name, not "no such file"', () => {
    // Node hands such a name to the program with U+FFFD for the bytes it cannot decode, as the shell's argument arrives.
    writeFileSync(Buffer.concat([Buffer.from(dir + '/'), Buffer.from([0x72, 0xff, 0x2e, 0x73, 0x73, 0x65])]), 'data: {}\n\n');
    const given = file('r\uFFFD.sse');
    const o = cli('check', given);
    assert.equal(o.code, 2);
    assert.match(o.err, /cannot read file: its name is not valid UTF-8: a file by that name exists/);
    assert.equal(cli('check', file('gone\uFFFD.sse')).err, `agui-inspector: ${file('gone\uFFFD.sse')}: cannot read file: no such file\n`, 'a name that is missing is still missing');
  });

  it('exits 2 with a one-line reason for a file in no recognised format', () => {
    for (const name of ['notes.txt', 'object.json', 'empty.sse', 'a-directory']) {
      const o = cli('check', file(name), '--format', 'json');
      assert.equal(o.code, 2, name);
      assert.equal(o.err.split('\n').length, 2, `${name}: one line, newline-terminated: ${JSON.stringify(o.err)}`);
      assert.ok(o.err.startsWith(`agui-inspector: ${file(name)}: `), o.err);
      assert.deepEqual(json(o), { exchanges: [], summary: { exchanges: 0, failed: 0, pre10: 0, notReady: 0, problems: [] } });
    }
  });

  it('exits 2 when one of several files cannot be read, still reporting the others', () => {
    const o = cli('check', file('clean.sse'), file('notes.txt'), '--format', 'json');
    assert.equal(o.code, 2);
    assert.equal(json(o).exchanges.length, 1);
    const pretty = cli('check', file('broken.sse'), file('missing.sse'));
    assert.equal(pretty.code, 2, 'unreadable outranks failed');
    assert.match(pretty.out, /0 completed, 1 failed, 1 unreadable/);
  });

  it('exits 2 on usage errors, printing the usage', () => {
    for (const argv of [[], ['frobnicate'], ['check'], ['check', file('clean.sse'), '--format', 'xml'], ['check', file('clean.sse'), '--as', '1.2'], ['check', file('clean.sse'), '--bogus']]) {
      const o = cli(...argv);
      assert.equal(o.code, 2, JSON.stringify(argv));
      assert.match(o.out + o.err, /Usage:/, JSON.stringify(argv));
    }
    const missingInput = cli('check', file('clean.sse'), '--input', file('nope.json'));
    assert.equal(missingInput.code, 2);
    assert.equal(missingInput.err, `agui-inspector: cannot read --input ${file('nope.json')}: no such file\n`);
    assert.equal(cli('--help').code, 0);
    assert.match(cli('--version').out, /^agui-inspector \d+\.\d+\.\d+\n$/);
  });

  it('--format json follows the documented contract exactly', () => {
    const o = cli('check', file('broken.sse'), '--input', file('input.json'), '--format', 'json');
    const doc = json(o);
    assert.deepEqual(Object.keys(doc), ['exchanges', 'summary']);
    // What went wrong, ranked: the finding that failed it, linked to its frame and the view that shows it.
    assert.deepEqual(doc.summary, {
      exchanges: 1, failed: 1, pre10: 0, notReady: 0,
      problems: [{ group: 'failed', kind: 'identity/run-id-mismatch', exchange: 0, event: 1, view: 'timeline', text: 'RUN_FINISHED runId "r-other" differs from its RUN_STARTED runId "r-cli"' }],
    });
    assert.equal(doc.exchanges.length, 1);
    const [x] = doc.exchanges;
    assert.deepEqual(Object.keys(x!).sort(), ['consumerVersion', 'era', 'findings', 'input', 'negotiation', 'readiness', 'runs', 'source', 'timing', 'verdict']);
    assert.equal(x!.timing, null, 'a response body recorded no arrival times');
    assert.equal(x!.source, file('broken.sse'));
    assert.equal(x!.era, '1.x');
    assert.equal(x!.readiness, null);
    assert.equal(x!.consumerVersion, '1.1');
    assert.deepEqual(Object.keys(x!.input).sort(), ['findings', 'present', 'verdict']);
    assert.deepEqual({ present: x!.input.present, verdict: x!.input.verdict, findings: x!.input.findings }, { present: true, verdict: 'valid', findings: [] });
    assert.deepEqual(x!.negotiation, { consumer: '1.1', producer: '1.1', verdict: 'same' });
    assert.deepEqual(x!.runs, [{ runId: 'r-cli', threadId: 't-cli', requested: true, outcome: 'success' }]);
    assert.equal(x!.verdict, 'failed');
    assert.deepEqual(x!.findings, [
      {
        rule: 'identity/run-id-mismatch',
        category: 'identity',
        severity: 'error',
        message: 'RUN_FINISHED runId "r-other" differs from its RUN_STARTED runId "r-cli"',
        event: 1,
        path: '/runId',
        spec: '/spec/1.1/basic/run-input#identity',
      },
    ]);
  });

  it('--format json: a pre-1.0 exchange carries its era, its 1.0 readiness and flagged readiness items', () => {
    const o = cli('check', file('pre10.sse'), '--input', file('pre10-input.json'), '--format', 'json');
    assert.equal(o.code, 0, 'readiness items never fail a pre-1.0 exchange');
    const [x] = json(o).exchanges;
    assert.equal(x!.era, 'pre-1.0');
    assert.equal(x!.consumerVersion, '1.0');
    assert.equal(x!.verdict, 'completed');
    assert.deepEqual(x!.readiness, { verdict: 'completed' });
    const all = [...x!.input.findings, ...x!.findings];
    const flagged = (rule: string) => all.filter((f) => f.rule === rule).map((f) => f.readiness);
    assert.deepEqual(flagged('version/consumer-undeclared'), [true]);
    assert.deepEqual(flagged('version/producer-undeclared'), [true]);
    assert.deepEqual(flagged('unrecognised/property'), [true]);
    const asOne = json(cli('check', file('pre10.sse'), '--input', file('pre10-input.json'), '--format', 'json', '--as', '1.0')).exchanges[0]!;
    assert.equal(asOne.era, 'pre-1.0');
    assert.equal(asOne.readiness, null, '--as judges as that version alone');
    assert.ok([...asOne.input.findings, ...asOne.findings].every((f: { readiness?: boolean }) => f.readiness === undefined));
    const cut = cli('check', file('pre10-cut.sse'), '--input', file('pre10-input.json'), '--format', 'json');
    assert.equal(cut.code, 0, "a truncated run completes as its own pre-1.0 client reads it (0.0.59 checks nothing at the end of the body)");
    const [y] = json(cut).exchanges;
    assert.equal(y!.verdict, 'completed');
    assert.deepEqual(y!.readiness, { verdict: 'failed' });
    assert.ok(y!.findings.some((f: { rule: string; readiness?: boolean }) => f.rule === 'lifecycle/truncated' && f.readiness === undefined));
  });

  it('pretty, junit and sarif show a pre-1.0 exchange\'s era at a glance and its 1.0 readiness apart, never failing it', () => {
    const READINESS = ['version/consumer-undeclared', 'unrecognised/property', 'version/producer-undeclared'];
    const files = [file('pre10.sse'), file('pre10-cut.sse'), file('clean.sse')];
    const pretty = cli('check', ...files, '--input', file('pre10-input.json'));
    assert.equal(pretty.code, 0, 'the truncated run completes as its own client reads it (a finding, and failed for a 1.0 consumer); readiness items fail nothing');
    const blocks = pretty.out.split('\n\n');
    const [whole, cut, clean1x] = blocks;
    assert.match(whole!, /^✓ .*pre10\.sse pre-1\.0 {2}completed {2}\(judged as its own pre-1\.0 client would\)\n/);
    assert.match(cut!, /^✓ .*pre10-cut\.sse pre-1\.0 {2}completed {2}\(judged as its own pre-1\.0 client would\)\n/);
    assert.match(clean1x!, /^✓ .*clean\.sse {2}completed {2}\(judged as a 1\.0 consumer\)/, 'a 1.x exchange (its RUN_STARTED declares 1.1) has no badge');
    assert.doesNotMatch(clean1x!, /pre-1\.0|1\.0 readiness/);
    for (const [block, verdict] of [[whole!, 'completed'], [cut!, 'failed']] as const) {
      const [today, readiness] = block.split(/\n {2}1\.0 readiness {2}/);
      assert.ok(readiness, `a labelled readiness section: ${block}`);
      assert.ok(readiness.startsWith(`a 1.0 consumer would find it ${verdict}; 3 items to change, none failing it today\n`), readiness);
      for (const rule of READINESS) {
        assert.ok(!today!.includes(rule), `${rule} is not a present-day finding`);
        assert.match(readiness, new RegExp(`^ {4}(warning|info) {1,4}${rule} `, 'm'), `${rule} is listed, indented, under 1.0 readiness`);
      }
    }
    assert.match(cut!.split('1.0 readiness')[0]!, /lifecycle\/truncated/, 'present-day findings come first');
    assert.match(pretty.out, /\n3 completed, 0 failed; 2 pre-1\.0 \(1\.0 readiness: 1 completed, 1 failed\)\n$/);
    const as10 = cli('check', file('pre10.sse'), '--input', file('pre10-input.json'), '--as', '1.0');
    assert.match(as10.out, /pre10\.sse pre-1\.0 {2}completed {2}\(judged as a 1\.0 consumer\)/, '--as keeps the badge but judges as that version alone');
    assert.doesNotMatch(as10.out, /1\.0 readiness/);

    const xml = parseXml(cli('check', ...files, '--input', file('pre10-input.json'), '--format', 'junit').out);
    const [ok, failed] = xml.children.map((s) => s.children[0]!);
    const props = (c: XmlNode) => Object.fromEntries(c.children.find((x) => x.name === 'properties')!.children.map((p) => [p.attrs.name, p.attrs.value]));
    assert.deepEqual(props(ok!), { era: 'pre-1.0', readiness: 'completed' });
    assert.deepEqual(props(failed!), { era: 'pre-1.0', readiness: 'failed' });
    assert.ok(!ok!.children.some((x) => x.name === 'failure'), 'readiness items do not fail the test case');
    const out = (c: XmlNode) => c.children.find((x) => x.name === 'system-out')!.text;
    // The truncated run completes as its own client reads it: no failure, the truncation among what it reports.
    assert.ok(!failed!.children.some((x) => x.name === 'failure'), 'a truncation fails no pre-1.0 test case');
    assert.match(out(failed!), /lifecycle\/truncated/);
    for (const rule of READINESS) {
      for (const c of [ok!, failed!]) assert.match(out(c), new RegExp(`^1\\.0 readiness: a 1\\.0 consumer would find this exchange ${props(c).readiness}\\n(.*\\n)*[a-z]+ ${rule} `, 'm'), rule);
    }

    const results = JSON.parse(cli('check', ...files.slice(0, 2), '--input', file('pre10-input.json'), '--format', 'sarif').out).runs[0].results;
    const readinessResults = results.filter((r: { properties: { readiness?: boolean } }) => r.properties.readiness);
    assert.deepEqual([...new Set(readinessResults.map((r: { ruleId: string }) => r.ruleId))].sort(), [...READINESS].sort());
    for (const r of readinessResults) {
      assert.equal(r.level, 'note');
      assert.match(r.message.text, /: 1\.0 readiness: /);
      assert.equal(r.properties.era, 'pre-1.0');
      assert.ok(['warning', 'info'].includes(r.properties.severity), 'the 1.0 severity is kept');
    }
    const truncated = results.find((r: { ruleId: string }) => r.ruleId === 'lifecycle/truncated');
    assert.equal(truncated.level, 'error');
    assert.equal(truncated.properties.readiness, undefined);
  });

  it('--format json keeps every finding to the Finding contract, input findings included', () => {
    const o = cli('check', file('session.har'), file('fixture.json'), '--format', 'json');
    const all = json(o).exchanges.flatMap((x) => [...x.input.findings, ...x.findings]);
    assert.ok(all.length >= 3);
    const ids = new Set(ALL_RULES.map((r) => r.id));
    for (const f of all) {
      const keys = ['category', 'event', 'message', 'path', 'rule', 'severity', 'spec'];
      // A pre-1.0 exchange's readiness items carry `readiness: true`, and nothing else does.
      assert.deepEqual(Object.keys(f).sort(), f.readiness === true ? [...keys.slice(0, 5), 'readiness', ...keys.slice(5)] : keys);
      assert.ok(ids.has(f.rule), f.rule);
      assert.ok(f.event === null || Number.isInteger(f.event));
      assert.ok(f.path === null || f.path === '' || f.path.startsWith('/'));
      assert.match(f.spec, /^\/spec\/1\.[01]\//);
    }
  });

  it('--format sarif is SARIF 2.1.0: every rule in the driver, results with ruleId, level and message', () => {
    const o = cli('check', file('broken.sse'), file('notes.txt'), '--input', file('input.json'), '--format', 'sarif');
    assert.equal(o.code, 2);
    const log = JSON.parse(o.out);
    assert.equal(log.version, '2.1.0');
    assert.match(log.$schema, /sarif-2\.1\.0/);
    assert.equal(log.runs.length, 1);
    const driver = log.runs[0].tool.driver;
    assert.equal(driver.name, 'agui-inspector');
    assert.deepEqual(driver.rules.map((r: { id: string }) => r.id), [...ALL_RULES.map((r) => r.id), 'input/unreadable-file']);
    for (const r of driver.rules) {
      assert.ok(r.shortDescription.text.length > 0);
      assert.ok(['error', 'warning', 'note'].includes(r.defaultConfiguration.level));
    }
    const results = log.runs[0].results;
    assert.ok(results.length >= 2);
    for (const res of results) {
      assert.equal(typeof res.ruleId, 'string');
      assert.ok(['error', 'warning', 'note'].includes(res.level), res.level);
      assert.equal(typeof res.message.text, 'string');
      assert.equal(typeof res.locations[0].physicalLocation.artifactLocation.uri, 'string');
      assert.equal(driver.rules[res.ruleIndex].id, res.ruleId, 'every result names its rule in the driver');
    }
    const mismatch = results.find((r: { ruleId: string }) => r.ruleId === 'identity/run-id-mismatch');
    assert.equal(mismatch.level, 'error');
    assert.equal(mismatch.locations[0].physicalLocation.artifactLocation.uri, pathToFileURL(file('broken.sse')).href);
    assert.equal(mismatch.locations[0].logicalLocations[0].fullyQualifiedName, 'event[1]/runId');
    assert.ok(results.some((r: { level: string; locations: { physicalLocation: { artifactLocation: { uri: string } } }[] }) => r.level === 'error' && r.locations[0]!.physicalLocation.artifactLocation.uri === pathToFileURL(file('notes.txt')).href), 'the unreadable file is a result too');
  });

  it('--format junit is well-formed XML with one testcase per exchange and a failure for each failed one', () => {
    const o = cli('check', file('session.har'), file('broken.sse'), file('clean.sse'), '--format', 'junit');
    assert.equal(o.code, 1);
    const root = parseXml(o.out);
    assert.equal(root.name, 'testsuites');
    const suites = root.children.filter((c) => c.name === 'testsuite');
    assert.deepEqual(suites.map((s) => s.attrs.name), [file('session.har'), file('broken.sse'), file('clean.sse')]);
    const cases = suites.map((s) => s.children.filter((c) => c.name === 'testcase'));
    assert.deepEqual(cases.map((c) => c.length), [2, 1, 1], 'one testcase per exchange (the HAR holds two AG-UI entries)');
    assert.deepEqual(suites.map((s) => [s.attrs.tests, s.attrs.failures]), [['2', '1'], ['1', '1'], ['1', '0']]);
    const failed = (c: XmlNode) => c.children.some((x) => x.name === 'failure');
    assert.deepEqual(cases.map((cs) => cs.map(failed)), [[false, true], [true], [false]]);
    assert.equal(cases[0]![1]!.attrs.name, `${file('session.har')}#entries/2`);
    assert.match(cases[1]![0]!.children.find((x) => x.name === 'failure')!.attrs.message!, /differs from its RUN_STARTED runId/);
  });

  it('--as 1.0 and --as 1.1 change the version judged, whatever the input declares', () => {
    const judged = (as: string) => json(cli('check', file('versioned.sse'), '--input', file('input.json'), '--as', as, '--format', 'json')).exchanges[0]!;
    const v10 = judged('1.0');
    const v11 = judged('1.1');
    assert.equal(v10.consumerVersion, '1.0');
    assert.equal(v11.consumerVersion, '1.1');
    assert.ok(v10.findings.some((f: { rule: string; path: string; spec: string }) => f.rule === 'unrecognised/property' && f.path === '/encryptedValueType' && f.spec.startsWith('/spec/1.0/')));
    assert.ok(!v11.findings.some((f: { rule: string }) => f.rule === 'unrecognised/property'));
    assert.equal(json(cli('check', file('versioned.sse'), '--format', 'json')).exchanges[0]!.consumerVersion, '1.0', 'no input, no --as: 1.0');
  });

  it('--input supplies the request for a raw body: identity is checked against it', () => {
    const without = json(cli('check', file('clean.sse'), '--format', 'json')).exchanges[0]!;
    assert.deepEqual(without.input, { present: false, verdict: 'valid', findings: [] });
    assert.equal(without.negotiation.consumer, null);
    const matching = json(cli('check', file('clean.sse'), '--input', file('input.json'), '--format', 'json')).exchanges[0]!;
    assert.equal(matching.input.present, true);
    assert.deepEqual(matching.findings, []);
    const other = cli('check', file('clean.sse'), '--input', file('other-input.json'), '--format', 'json');
    assert.equal(other.code, 1);
    assert.deepEqual(json(other).exchanges[0]!.findings.map((f: { rule: string; event: number }) => [f.rule, f.event]), [['identity/thread-id-mismatch', 0], ['identity/thread-id-mismatch', 4]]);
  });

  it('reads raw SSE, raw protobuf, JSONL and JSON array bodies to the same report', () => {
    const reports = ['clean.sse', 'clean.bin', 'clean.jsonl', 'clean.json'].map((name) => {
      const o = cli('check', file(name), '--input', file('input.json'), '--format', 'json');
      assert.equal(o.code, 0, `${name}: ${o.out}${o.err}`);
      const { source, ...rest } = json(o).exchanges[0]!;
      assert.equal(source, file(name));
      return rest;
    });
    for (const r of reports.slice(1)) assert.deepEqual(r, reports[0]);
    assert.deepEqual(reports[0]!.runs, [{ runId: 'r-cli', threadId: 't-cli', requested: true, outcome: 'success' }]);
  });

  it('reads a conformance fixture, its input as the request', () => {
    const x = json(cli('check', file('fixture.json'), '--format', 'json')).exchanges[0]!;
    assert.equal(x.input.present, true);
    assert.equal(x.verdict, 'failed');
    assert.deepEqual(x.findings.map((f: { rule: string }) => f.rule), ['identity/run-id-mismatch']);
  });

  it('reads an official corpus fixture', { skip: !sharedAvailable(CONFORMANCE_1_1) && 'conformance corpus absent' }, () => {
    const o = cli('check', join(CONFORMANCE_1_1, 'nested-run-started-fatal.json'), '--as', '1.1', '--format', 'json');
    assert.equal(o.code, 1);
    assert.ok(json(o).exchanges[0]!.findings.some((f: { rule: string }) => f.rule === 'lifecycle/nested-run-started'));
    assert.equal(cli('check', join(CONFORMANCE_1_1, 'conformant-run-is-quiet.json'), '--as', '1.1').code, 0);
  });

  it('reads a HAR: only its AG-UI entries, in order, with their status and request', () => {
    const o = cli('check', file('session.har'), '--format', 'json');
    assert.equal(o.code, 1);
    const xs = json(o).exchanges;
    assert.deepEqual(xs.map((x) => [x.source, x.verdict]), [[`${file('session.har')}#entries/1`, 'completed'], [`${file('session.har')}#entries/2`, 'failed']]);
    assert.deepEqual(xs[0]!.findings, []);
    assert.deepEqual(xs[1]!.findings.map((f: { rule: string }) => f.rule), ['transport/http-error-status']);
    assert.equal(xs[1]!.input.verdict, 'invalid');
    assert.deepEqual(xs[1]!.input.findings.map((f: { rule: string; path: string }) => [f.rule, f.path]), [['schema/malformed', '/runId']]);
  });
});

describe('agui-inspector check: timing', () => {
  it('--format json gives each exchange of a timed recording its timing; --stall-ms sets the stall threshold', () => {
    const t = json(cli('check', file('timed.har'), '--format', 'json')).exchanges[0]!.timing;
    assert.equal(t.source, 'chunks');
    assert.deepEqual([t.ttfbMs, t.firstEventMs, t.firstContentMs, t.durationMs], [300, 300, 2200, 2250]);
    assert.deepEqual(t.gaps, { p50: 40, p95: 1500, max: 1500 }, 'nearest rank of 10, 40, 400, 1500');
    assert.deepEqual(t.stalls, [{ afterEvent: 1, ms: 1500, atMs: 700 }]);
    assert.deepEqual(t.messages.map((m: { id: string; startMs: number; endMs: number }) => [m.id, m.startMs, m.endMs]), [['m1', 700, 2210]]);
    assert.deepEqual(t.runs.map((r: { id: string; startMs: number; endMs: number }) => [r.id, r.startMs, r.endMs]), [['r-cli', 300, 2250]]);
    assert.deepEqual(Object.keys(t).sort(), ['buffering', 'durationMs', 'firstContentMs', 'firstEventMs', 'gaps', 'messages', 'reasoning', 'runs', 'source', 'stallMs', 'stalls', 'steps', 'subagents', 'toolCalls', 'toolRoundTrips', 'ttfbMs', 'usage']);
    const lower = json(cli('check', file('timed.har'), '--format', 'json', '--stall-ms', '300')).exchanges[0]!.timing;
    assert.deepEqual(lower.stalls, [{ afterEvent: 0, ms: 400, atMs: 300 }, { afterEvent: 1, ms: 1500, atMs: 700 }]);
    assert.equal(lower.stallMs, 300);
  });

  it('pretty prints one timing line per exchange; a browser’s HAR gives what its timings say; a body file says none was kept', () => {
    assert.match(cli('check', file('timed.har')).out, /\n  timing       TTFT 2\.20 s · duration 2\.25 s · 1 stall ≥ 1\.00 s \(longest 1\.50 s after #1\)\n/);
    assert.match(cli('check', file('session.har')).out, /\n  timing       TTFB 10 ms · duration 40 ms · per-event times not recorded\n/);
    assert.match(cli('check', file('clean.sse')).out, /\n  timing       not recorded \(the file kept no arrival times\)\n/);
    const browser = json(cli('check', file('session.har'), '--format', 'json')).exchanges[0]!.timing;
    assert.deepEqual([browser.source, browser.ttfbMs, browser.durationMs, browser.stalls, browser.runs], ['entry', 10, 40, null, null]);
  });

  it('--stall-ms must be a positive number', () => {
    for (const bad of ['0', '-5', 'soon']) {
      const o = cli('check', file('timed.har'), `--stall-ms=${bad}`);
      assert.equal(o.code, 2);
      assert.match(o.err, /--stall-ms must be a positive number/);
    }
  });
});

describe('agui-inspector rules', () => {
  it('lists every rule with its category, severity and spec section', () => {
    const o = cli('rules');
    assert.equal(o.code, 0);
    for (const r of ALL_RULES) {
      const line = o.out.split('\n').find((l) => l.startsWith(r.id + ' '));
      assert.ok(line, `${r.id} missing from the listing`);
      assert.ok(line.includes(r.category) && line.includes(r.severity) && line.includes(r.spec), line);
      assert.equal(line.includes(' fatal '), r.fatal, line);
      assert.ok(o.out.includes(r.title), r.title);
    }
  });
});

describe('agui-inspector as a child process', () => {
  const bin = join(ROOT, 'src/cli/bin.ts');
  const exec = async (...argv: string[]): Promise<Output> => {
    try {
      const { stdout, stderr } = await execFileP(process.execPath, ['--import', 'tsx', bin, ...argv], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } });
      return { code: 0, out: stdout, err: stderr };
    } catch (e) {
      const err = e as { code: number; stdout: string; stderr: string };
      return { code: err.code, out: err.stdout, err: err.stderr };
    }
  };

  it('sets the exit status and prints the same JSON as in-process', async () => {
    const args = ['check', file('broken.sse'), '--input', file('input.json'), '--format', 'json'];
    const child = await exec(...args);
    assert.equal(child.code, 1, child.err);
    assert.equal(child.err, '');
    assert.deepEqual(JSON.parse(child.out), json(cli(...args)));
  });

  it('exits 0 on a clean capture and 2 with a one-line reason on a missing one', async () => {
    assert.equal((await exec('check', file('clean.sse'), '--input', file('input.json'))).code, 0);
    const missing = await exec('check', file('missing.sse'));
    assert.equal(missing.code, 2);
    assert.equal(missing.err, `agui-inspector: ${file('missing.sse')}: cannot read file: no such file\n`);
  });
});

describe('the packaged command-line tool (dist/node, as npm installs it)', () => {
  const bin = join(ROOT, 'dist/node/agui-inspector.cjs');
  // Records each validator module the tool requires: the CommonJS loader is the only way it loads them.
  const spy = join(ROOT, 'test/cli/support/require-spy.cjs');
  const exec = async (...argv: string[]): Promise<Output & { validators: string[] }> => {
    let r: { code: number; stdout: string; stderr: string };
    try {
      r = { code: 0, ...(await execFileP(process.execPath, ['--require', spy, bin, ...argv], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } })) };
    } catch (e) {
      r = e as { code: number; stdout: string; stderr: string };
    }
    const validators = [...r.stderr.matchAll(/^required (\S+)$/gm)].map((m) => m[1]!);
    return { code: r.code, out: r.stdout, err: r.stderr.replace(/^required \S+\n/gm, ''), validators };
  };

  before(() => assert.ok(existsSync(bin), `${bin} missing: run npm run build:cli`));

  it('prints what the source prints, for every kind of file', async () => {
    for (const args of [
      ['clean.sse', '--input', 'input.json'],
      ['broken.sse', '--input', 'input.json'],
      ['versioned.sse', '--input', 'input.json', '--as', '1.0'],
      ['clean.bin', '--input', 'input.json'],
      ['clean.jsonl'],
      ['session.har'],
      ['fixture.json'],
      ['pre10.sse', '--input', 'pre10-input.json'],
    ]) {
      const argv = ['check', file(args[0]!), ...args.slice(1).map((a) => (a.endsWith('.json') ? file(a) : a)), '--format', 'json'];
      const packaged = await exec(...argv);
      const source = cli(...argv);
      assert.equal(packaged.code, source.code, `${args.join(' ')}: ${packaged.err}`);
      assert.deepEqual(JSON.parse(packaged.out), JSON.parse(source.out), args.join(' '));
    }
  });

  it("loads the judged version's quick checks, and its validators only when a value fails a quick check", async () => {
    assert.deepEqual((await exec('check', file('clean.sse'), '--input', file('input.json'))).validators, ['v1_1.quick.cjs'], 'well-formed 1.1: quick checks only');
    assert.deepEqual((await exec('check', file('versioned.sse'), '--input', file('input.json'), '--as', '1.1')).validators, ['v1_1.quick.cjs'], 'valid in 1.1: quick checks only');
    const as10 = await exec('check', file('versioned.sse'), '--input', file('input.json'), '--as', '1.0', '--format', 'json');
    assert.deepEqual(as10.validators, ['v1_0.quick.cjs', 'v1_0.cjs'], 'a 1.0 consumer strips encryptedValueType: 1.0 only');
    assert.ok(JSON.parse(as10.out).exchanges[0].findings.some((f: { rule: string }) => f.rule === 'unrecognised/property'), as10.out);
    const malformed = await exec('check', file('session.har'), '--format', 'json');
    assert.deepEqual(malformed.validators, ['v1_1.quick.cjs', 'v1_1.cjs'], 'the rejected input (runId 7) of a 1.1 session: 1.1 only');
  });

  it('an installation that lost a version\'s validators says so for the file that needs them, and checks the rest', async () => {
    const copy = join(dir, 'installed');
    cpSync(join(ROOT, 'dist/node'), copy, { recursive: true });
    rmSync(join(copy, 'schema/generated/v1_0.cjs'));
    const r = await execFileP(process.execPath, [join(copy, 'agui-inspector.cjs'), 'check', file('clean.sse'), file('versioned.sse'), '--input', file('input.json'), '--as', '1.0']).catch((e) => e as { code: number; stdout: string; stderr: string });
    assert.equal((r as { code?: number }).code, 2);
    assert.match(r.stderr, /versioned\.sse: internal error: Error: this installation lacks the AG-UI 1\.0 validators .*reinstall agui-inspector/);
    assert.match(r.stdout, /1 completed, 0 failed, 1 unreadable/);
  });
});
