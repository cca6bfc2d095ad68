/**
 * The CLI's output is safe for any input (issue #10): values from a recording or the command line never reach
 * a terminal raw, JUnit is well-formed XML and SARIF valid whatever a finding quotes, a file of any size ends
 * in a report or a one-line refusal, and no internal error passes for "a consumer must reject" (exit 1).
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync, ftruncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { BaseEvent } from '@ag-ui/core';
import { EventEncoder } from '@ag-ui/encoder';
import { analyzeExchanges } from '../../src/analyzer/index.ts';
import { run, type Io } from '../../src/cli/main.ts';
import { toContract } from '../../src/library/report.ts';
import { readExchanges } from '../../src/formats/read.ts';
import { ROOT } from '../support/paths.ts';
import { parseXml } from './xml.ts';

interface Output {
  code: number;
  out: string;
  err: string;
}

function cli(argv: string[], io: Partial<Io> = {}): Output {
  let out = '';
  let err = '';
  const code = run(argv, { out: (s) => void (out += s), err: (s) => void (err += s), colour: false, ...io });
  return { code, out, err };
}

/** The CLI from source as a child process: its real exit status and streams. */
function child(argv: string[], o: { closeStdout?: boolean } = {}): Promise<Output> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/bin.ts'), ...argv], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } });
    let out = '';
    let err = '';
    // Closed before the child can have started: its first write finds no reader.
    if (o.closeStdout) p.stdout.destroy();
    else p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    p.on('error', reject);
    p.on('close', (code) => resolve({ code: code ?? -1, out, err }));
  });
}

const sse = (events: unknown[]) => events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('');

/**
 * What a hostile recording carries in the values the CLI prints: cursor-up + erase-line + a fake green
 * "completed" line (CSI), a window title (OSC), an 8-bit CSI, bidi overrides, isolates and marks, DEL,
 * non-characters and a lone surrogate.
 */
const FAKE_LINE = '\x1b[1A\x1b[2K\x1b[32m✓ all good  completed\x1b[0m';
const TITLE = '\x1b]0;pwned\x07';
const C1 = '\u009b2K\u009d0;t\u009c';
const BIDI = '\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c';
const XML_BAD = '\x7f\ufffe\uffff\ud800';
const hostile = [
  { type: 'RUN_STARTED', threadId: 't', runId: `r${TITLE}`, protocolVersion: `1.1${C1}` },
  { type: 'TEXT_MESSAGE_START', messageId: `m${FAKE_LINE}`, role: 'assistant' },
  { type: 'TEXT_MESSAGE_END', messageId: `x${BIDI}${XML_BAD}` },
  { type: 'RUN_FINISHED', threadId: 't', runId: 'other' },
];
const HOSTILE_NAME = `evil${FAKE_LINE}${BIDI}.sse`;

/** Every character the issue names as unsafe to print: C0 (but the newlines the layout uses), DEL, C1, bidi controls. */
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/;

let dir = '';
const file = (name: string) => join(dir, name);

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'agui-cli-safety-'));
  writeFileSync(file(HOSTILE_NAME), sse(hostile));
  writeFileSync(file('a b#c%d?e.sse'), sse(hostile));
  writeFileSync(file('bad.json'), `{"type": "RUN_STARTED", ${FAKE_LINE}${BIDI}`);
  writeFileSync(file('input.json'), JSON.stringify({ threadId: 't', runId: 'r', messages: [] }));
  const entry = {
    startedDateTime: '2025-05-01T10:00:00.000Z',
    time: 1,
    request: { method: 'POST', url: 'http://localhost/agent', httpVersion: 'HTTP/1.1', headers: [], queryString: [], cookies: [], headersSize: -1, bodySize: -1, postData: { mimeType: 'application/json', text: JSON.stringify({ threadId: 't', runId: 'r', messages: [] }) } },
    response: { status: 200, statusText: '', httpVersion: 'HTTP/1.1', headers: [], cookies: [], content: { size: 0, mimeType: 'text/event-stream', text: sse([{ type: 'RUN_STARTED', threadId: 't', runId: 'r' }, { type: 'RUN_FINISHED', threadId: 't', runId: 'r' }]) }, redirectURL: '', headersSize: -1, bodySize: -1 },
    cache: {},
    timings: { send: 0, wait: 0, receive: 1 },
  };
  writeFileSync(file('one.har'), JSON.stringify({ log: { version: '1.2', creator: { name: 't', version: '1' }, entries: [entry] } }));
  writeFileSync(file('fixture.json'), JSON.stringify({ input: {}, stream: [{ type: 'RUN_STARTED', threadId: 't', runId: 'r' }, { type: 'RUN_FINISHED', threadId: 't', runId: 'r' }] }));
});

after(() => rmSync(dir, { recursive: true, force: true }));

describe('values from a recording or the command line are escaped wherever they are printed', () => {
  it('pretty output and stderr carry no control, C1 or bidi character, and show each one escaped', () => {
    const o = cli(['check', file(HOSTILE_NAME), file('bad.json'), file(`missing${TITLE}.sse`)]);
    assert.equal(o.code, 2);
    assert.doesNotMatch(o.out, UNSAFE);
    assert.doesNotMatch(o.err, UNSAFE);
    assert.equal(o.err.split('\n').length, 3, `one line per unreadable file: ${o.err}`);
    // What was sent is still visible, as escapes: a reader sees the attempt instead of its effect.
    assert.ok(o.out.includes('m\\u001b[1A\\u001b[2K\\u001b[32m✓ all good  completed\\u001b[0m'), o.out);
    assert.ok(o.out.includes('r\\u001b]0;pwned\\u0007 (requested)'), 'run ids');
    assert.ok(o.out.includes('producer 1.1\\u009b2K\\u009d0;t\\u009c'), 'negotiated versions');
    assert.ok(o.out.includes('\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069\\u200e\\u200f\\u061c\\u007f\\ufffe\\uffff\\ud800'), 'messages');
    assert.ok(o.out.includes(`evil\\u001b[1A`), 'file names');
    assert.match(o.err, /bad\.json: not valid JSON/);
    assert.match(o.err, /missing\\u001b\]0;pwned\\u0007\.sse: cannot read file: no such file/);
  });

  it('with colour on, the only escape sequences are the CLI\'s own SGR colours', () => {
    const o = cli(['check', file(HOSTILE_NAME)], { colour: true });
    assert.equal(o.code, 1);
    assert.ok(o.out.includes('\x1b[31m'), 'coloured');
    assert.doesNotMatch(o.out.replace(/\x1b\[\d+m/g, ''), UNSAFE);
  });

  it('--format json and sarif escape what JSON.stringify lets through, and parse back to the exact values', () => {
    for (const format of ['json', 'sarif']) {
      const o = cli(['check', file(HOSTILE_NAME), '--format', format]);
      assert.equal(o.code, 1, format);
      assert.doesNotMatch(o.out, UNSAFE, format);
    }
    const log = JSON.parse(cli(['check', file(HOSTILE_NAME), '--format', 'sarif']).out);
    assert.ok(log.runs[0].results.some((r: { message: { text: string } }) => r.message.text.includes(`x${BIDI}${XML_BAD}`)), 'sarif: the message quotes the value exactly');
    const x = JSON.parse(cli(['check', file(HOSTILE_NAME), '--format', 'json']).out).exchanges[0];
    assert.equal(x.source, file(HOSTILE_NAME));
    assert.equal(x.runs[0].runId, `r${TITLE}`);
    assert.equal(x.negotiation.producer, `1.1${C1}`);
  });

  it('--format junit is well-formed XML 1.0 whatever a finding quotes (U+FFFE, U+FFFF, lone surrogates, controls)', () => {
    const o = cli(['check', file(HOSTILE_NAME), file(`missing${XML_BAD}.sse`), '--format', 'junit']);
    assert.equal(o.code, 2);
    assert.doesNotMatch(o.out, UNSAFE);
    const root = parseXml(o.out);
    const [suite, missing] = root.children;
    const failure = suite!.children[0]!.children.find((c) => c.name === 'failure')!;
    assert.ok(failure.attrs.message!.includes('\\ufffe\\uffff\\ud800'), failure.attrs.message);
    assert.equal(missing!.attrs.name, file('missing\\u007f\\ufffe\\uffff\\ud800.sse'));
  });

  it('the XML check used above rejects what the issue reported', () => {
    const doc = (body: string) => `<?xml version="1.0" encoding="UTF-8"?>\n<a>${body}</a>\n`;
    assert.equal(parseXml(doc('ok &#x2603;')).name, 'a');
    for (const body of ['\ufffe', '\uffff', '\ud800', '\x1b', '&#xFFFE;', '&#27;', '&#xD800;']) assert.throws(() => parseXml(doc(body)), JSON.stringify(body));
  });
});

describe('--format sarif is valid SARIF for any file name', () => {
  it('artifactLocation.uri is a URI reference: a file: URI for an absolute path, a relative reference otherwise', () => {
    const name = 'a b#c%d?e.sse';
    const uri = (path: string) => JSON.parse(cli(['check', path, '--format', 'sarif']).out).runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri as string;
    // RFC 3986 URI-reference: unreserved, sub-delims, ":", "@", "/" and percent-encodings only.
    const URI_REFERENCE = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/]|%[0-9A-F]{2})*$/;
    const absolute = uri(file(name));
    assert.match(absolute, URI_REFERENCE);
    assert.ok(absolute.startsWith('file:///'));
    assert.equal(fileURLToPath(absolute), file(name));
    const rel = relative(process.cwd(), file(name));
    const relativeUri = uri(rel);
    assert.match(relativeUri, URI_REFERENCE);
    assert.ok(relativeUri.endsWith('/a%20b%23c%25d%3Fe.sse'), relativeUri);
    assert.equal(decodeURIComponent(relativeUri), rel);
    assert.match(uri(file(HOSTILE_NAME)), URI_REFERENCE);
  });
});

describe('--input with a file that carries its own requests', () => {
  it('says, in one line on stderr, that --input is not used for a HAR or a fixture, and reports them as without it', () => {
    const harFile = file('one.har');
    const fixtureFile = file('fixture.json');
    for (const [f, why] of [[harFile, "a HAR holds each exchange's own request"], [fixtureFile, 'a conformance fixture holds its own input']] as const) {
      const without = cli(['check', f, '--format', 'json']);
      const withInput = cli(['check', f, '--input', file('input.json'), '--format', 'json']);
      assert.equal(withInput.err, `agui-inspector: ${f}: --input not used: ${why}\n`);
      assert.equal(withInput.code, without.code);
      assert.equal(withInput.out, without.out);
    }
    const raw = cli(['check', file(HOSTILE_NAME), '--input', file('input.json'), '--format', 'json']);
    assert.equal(raw.err, '', 'a raw body uses --input, silently');
    assert.equal(JSON.parse(raw.out).exchanges[0].input.present, true);
  });
});

describe('files of any size', () => {
  const proto = new EventEncoder({ accept: 'application/vnd.ag-ui.event+proto' });
  /** A long run: thousands of content events, so a body spans several of the CLI's 1 MiB reads, and one defect far in. */
  const longRun = (n: number) => {
    const events: Record<string, unknown>[] = [{ type: 'RUN_STARTED', threadId: 't', runId: 'r' }, { type: 'TEXT_MESSAGE_START', messageId: 'm', role: 'assistant' }];
    for (let i = 0; i < n; i++) events.push({ type: 'TEXT_MESSAGE_CONTENT', messageId: i === n - 7 ? 'elsewhere' : 'm', delta: `${'word '.repeat(40)}${i}` });
    events.push({ type: 'TEXT_MESSAGE_END', messageId: 'm' }, { type: 'RUN_FINISHED', threadId: 't', runId: 'r' });
    return events;
  };

  it('streams a raw SSE, protobuf or JSONL body of several MiB through the analyzer, to the report of the whole body', () => {
    const events = longRun(12_000);
    const bodies = {
      'long.sse': Buffer.from(sse(events)),
      'long.bin': Buffer.concat(events.map((e) => proto.encodeProtobuf(e as unknown as BaseEvent))),
      'long.jsonl': Buffer.from(events.map((e) => JSON.stringify(e)).join('\n') + '\n'),
    };
    for (const [name, bytes] of Object.entries(bodies)) {
      assert.ok(bytes.length > 2 * 2 ** 20, `${name}: ${bytes.length} bytes span three reads or more`);
      writeFileSync(file(name), bytes);
      // The document limit far below the file: only frame-by-frame reading can analyse it.
      const o = cli(['check', file(name), '--format', 'json'], { maxDocumentBytes: 4096 });
      assert.equal(o.err, '', name);
      assert.equal(o.code, 1, name);
      const [streamed] = JSON.parse(o.out).exchanges;
      const whole = toContract([{ file: file(name), reports: analyzeExchanges(readExchanges(bytes, file(name))) }]).exchanges[0];
      assert.deepEqual(streamed, JSON.parse(JSON.stringify(whole)), name);
      assert.deepEqual(streamed.findings.filter((f: { severity: string }) => f.severity === 'error').map((f: { rule: string; event: number }) => [f.rule, f.event]), [['streaming/text-not-open', events.length - 9]], name);
    }
  });

  it('refuses a HAR, fixture or JSON document over the limit with exit 2 and a one-line reason', () => {
    const har = readFileSync(file('one.har'));
    const o = cli(['check', file('one.har'), file(HOSTILE_NAME), '--format', 'json'], { maxDocumentBytes: har.length - 1 });
    assert.equal(o.code, 2);
    assert.equal(o.err, `agui-inspector: ${file('one.har')}: a JSON document of ${har.length} bytes is too large to read (the limit is ${har.length - 1} bytes); only response bodies (SSE, protobuf, JSONL, JSON arrays) are read frame by frame\n`);
    assert.equal(JSON.parse(o.out).exchanges.length, 1, 'the other file is still reported');
    assert.equal(cli(['check', file('one.har'), '--format', 'json'], { maxDocumentBytes: har.length }).code, 0, 'at the limit it is read');
  });

  it('reads a pipe, which has no size and cannot seek: a body streams, a document is read up to the limit', async () => {
    /** `check` on a FIFO that another process fills with `source`, as `cat source | agui-inspector check /dev/stdin` does. */
    const throughPipe = async (source: string, io: Partial<Io> = {}): Promise<Output> => {
      const fifo = file('pipe');
      rmSync(fifo, { force: true });
      execFileSync('mkfifo', [fifo]);
      const writer = spawn('sh', ['-c', 'cat "$0" > "$1"', source, fifo]);
      const exited = new Promise((resolve) => writer.on('close', resolve));
      const o = cli(['check', fifo, '--format', 'json'], io);
      await exited;
      return { ...o, out: o.out.replaceAll(JSON.stringify(fifo).slice(1, -1), JSON.stringify(source).slice(1, -1)) };
    };
    for (const name of ['a b#c%d?e.sse', 'one.har']) {
      const piped = await throughPipe(file(name));
      assert.deepEqual(piped, cli(['check', file(name), '--format', 'json']), name);
    }
    const har = readFileSync(file('one.har'));
    const over = await throughPipe(file('one.har'), { maxDocumentBytes: har.length - 1 });
    assert.equal(over.code, 2);
    assert.match(over.err, new RegExp(`: a JSON document over ${har.length - 1} bytes is too large to read \\(the limit is ${har.length - 1} bytes\\)`));
  });

  it('refuses a 600 MB HAR in one line with status 2, where it used to crash with ERR_STRING_TOO_LONG', async () => {
    // Sparse: 600 MB long, a few bytes on disk, and only its first line is ever read.
    const big = file('huge.har');
    const fd = openSync(big, 'w');
    writeSync(fd, '{\n  "log": {\n    "version": "1.2",\n');
    ftruncateSync(fd, 600_000_000);
    closeSync(fd);
    const o = await child(['check', big]);
    assert.equal(o.code, 2);
    assert.equal(o.err, `agui-inspector: ${big}: a JSON document of 600 MB is too large to read (the limit is 537 MB); only response bodies (SSE, protobuf, JSONL, JSON arrays) are read frame by frame\n`);
    assert.match(o.out, /0 completed, 0 failed, 1 unreadable/);
  });
});

describe('values nested as deep as a hostile producer makes them', () => {
  /** `depth` objects, one inside the next, written as text: JSON.stringify itself recurses. */
  const nested = (depth: number) => '{"a":'.repeat(depth) + '{}' + '}'.repeat(depth);
  const line = (e: string) => `data: ${e}\n\n`;
  const run1 = (...events: string[]) => line('{"type":"RUN_STARTED","threadId":"t","runId":"r"}') + events.map(line).join('') + line('{"type":"RUN_FINISHED","threadId":"t","runId":"r"}');

  it('an ACTIVITY_SNAPSHOT content 4,000 deep, and a delta on it, are checked like any other', () => {
    writeFileSync(file('deep-activity.sse'), run1(
      `{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"plan","content":${nested(4000)}}`,
      `{"type":"ACTIVITY_DELTA","messageId":"a","activityType":"plan","patch":[{"op":"add","path":"/b","value":${nested(4000)}}]}`,
    ));
    const o = cli(['check', file('deep-activity.sse'), '--format', 'json']);
    assert.equal(o.code, 0, o.err);
    assert.equal(JSON.parse(o.out).exchanges[0].runs[0].outcome, 'success');
  });

  it('a fixture or event document nested deeper than a reader writes back is refused in one line, exit 2', () => {
    writeFileSync(file('deep-fixture.json'), `{"input":{"state":${nested(5000)}},"stream":[]}`);
    const o = cli(['check', file('deep-fixture.json')]);
    assert.equal(o.code, 2);
    assert.match(o.err, /deep-fixture\.json: nests deeper than 1000 levels: not read\n$/);
    assert.doesNotMatch(o.err + o.out, /internal error/);
  });
});

describe('an internal error is exit 2 and one line, never exit 1 or a stack trace', () => {
  it('in-process: a failing output stream', () => {
    let err = '';
    const code = run(['check', file(HOSTILE_NAME)], {
      out: () => {
        throw new Error(`stdout failed\n    at somewhere${FAKE_LINE}`);
      },
      err: (s) => void (err += s),
      colour: false,
    });
    assert.equal(code, 2);
    assert.equal(err, `agui-inspector: internal error: Error: stdout failed\\u000a    at somewhere\\u001b[1A\\u001b[2K\\u001b[32m✓ all good  completed\\u001b[0m\n`);
  });

  it('as a child process: stdout closed by the reader (EPIPE)', async () => {
    const o = await child(['check', file(HOSTILE_NAME)], { closeStdout: true });
    assert.equal(o.code, 2);
    assert.match(o.err, /^agui-inspector: Error: write EPIPE\n$/);
  });
});
