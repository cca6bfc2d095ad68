import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { AGUI_MEDIA_TYPE } from '@ag-ui/proto';
import { startDemoAgent, type DemoAgent } from '../../demo/agent.ts';
import { toCurl } from '../../src/formats/curl.ts';
import { bodyOf, type CapturedExchange } from '../../src/exchange/exchange.ts';
import { FormatError } from '../../src/formats/error.ts';
import { toFixture, type Fixture } from '../../src/recording/fixture.ts';
import { inputFor } from '../demo/helpers.ts';
import { recordDemoSession } from '../../demo/record.ts';
import { capture, reread, shapes } from './support.ts';

let agent: DemoAgent;
let session: CapturedExchange[];

before(async () => {
  agent = await startDemoAgent({ port: 0, delayMs: 0, page: false });
  session = await recordDemoSession(agent.url);
});
after(() => agent.close());

describe('toFixture', () => {
  it('reads back to an exchange that analyses as the original does on its own', () => {
    for (const x of session) {
      const text = toFixture(x, 'recorded');
      const back = reread(text, 'recorded.json');
      assert.equal(back.length, 1);
      assert.deepEqual(shapes(back), shapes([x]), x.source);
    }
  });

  it('is a conformance-style fixture: input, decoded stream in order, expected outcome', () => {
    const malformed = session.find((x) => x.url!.endsWith('/misbehave-malformed'))!;
    const f = JSON.parse(toFixture(malformed, 'misbehave-malformed')) as Fixture;
    assert.equal(f.name, 'misbehave-malformed');
    assert.deepEqual(f.input, JSON.parse(malformed.requestBody!));
    assert.deepEqual(
      f.stream.map((e) => (e as { type: string }).type),
      ['RUN_STARTED', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END', 'RUN_FINISHED'],
    );
    assert.equal((f.stream[3] as { delta: unknown }).delta, 42);
    assert.equal(f.expect.outcome, 'failed');
    assert.deepEqual(f.expect.warnings, ['/delta']);
    assert.match(f.specPage, /^\/spec\/1\.0\/[a-z/-]+$/);
    assert.match(f.description, /schema\/malformed/);

    const chat = session.find((x) => x.url!.endsWith('/chat') && x.responseContentType === AGUI_MEDIA_TYPE)!;
    const clean = JSON.parse(toFixture(chat, 'chat')) as Fixture;
    assert.deepEqual(clean.expect, { outcome: 'completed', noWarnings: true });
    assert.equal(clean.specPage, '/spec/1.0');
    assert.equal(clean.client, undefined);
  });

  it('keeps an input that declared no protocolVersion without one', () => {
    const x = session[0]!;
    const input = JSON.parse(x.requestBody!);
    delete input.protocolVersion;
    const undeclared = { ...x, requestBody: JSON.stringify(input) };
    const f = JSON.parse(toFixture(undeclared, 'undeclared')) as Fixture;
    assert.deepEqual(f.client, { maxProtocolVersion: '0.0.0' });
    assert.ok(JSON.stringify(shapes([undeclared])).includes('version/consumer-undeclared'));
    assert.deepEqual(shapes(reread(JSON.stringify(f))), shapes([undeclared]));
  });

  it('refuses a request body a fixture input cannot hold', () => {
    assert.throws(() => toFixture({ ...session[0]!, requestBody: '[1, 2]' }, 'array'), FormatError);
    assert.throws(() => toFixture({ ...session[0]!, requestBody: '{"threadId": ' }, 'cut'), FormatError);
  });
});

/** Runs a command line in `shell` with `curl` replaced by a function that prints each argument NUL-terminated, then its stdin. */
function argsSeenBy(shell: string, command: string): { args: string[]; stdin: string } {
  const stub = `curl() { for a in "$@"; do printf '%s\\0' "$a"; done; printf 'STDIN:'; cat; }\n`;
  const run = spawnSync(shell, ['-c', stub + command], { input: '', encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  const at = run.stdout.lastIndexOf('STDIN:');
  return { args: run.stdout.slice(0, at).split('\0').slice(0, -1), stdin: run.stdout.slice(at + 'STDIN:'.length) };
}

const hasShell = (name: string) => spawnSync(name, ['-c', 'true']).status === 0;
const SHELLS = ['sh', 'dash', 'bash'].filter(hasShell);

describe('toCurl', () => {
  const awkward = JSON.stringify({ threadId: "it's", runId: 'r', messages: [{ id: 'm', role: 'user', content: "don't\n\"quote\" me; $(rm -rf /) `id` \\n %s %% ''' \u00e9\u{1F600}\r\n\ttab" }] }, null, 2);
  const base: CapturedExchange = {
    source: 'x',
    url: "http://127.0.0.1:9/agent/chat?name=o'brien&x=$HOME",
    method: 'POST',
    requestContentType: 'application/json; charset=utf-8',
    requestBody: awkward,
    responseContentType: 'text/event-stream',
    chunks: [],
  };

  for (const shell of SHELLS) {
    it(`passes every argument intact through ${shell}, whatever the body holds`, () => {
      const { args, stdin } = argsSeenBy(shell, toCurl(base));
      assert.deepEqual(args, [
        '-N', '-g',
        '--url', base.url,
        '-H', 'Content-Type: application/json; charset=utf-8',
        '-H', 'Accept: text/event-stream',
        '--data-raw', awkward,
      ]);
      assert.equal(stdin, '');
    });

    it(`sends a body holding NUL through printf on stdin (${shell})`, () => {
      const body = "a\0b'c\\0 %d \\\\ \n\0";
      const { args, stdin } = argsSeenBy(shell, toCurl({ ...base, requestBody: body, responseContentType: AGUI_MEDIA_TYPE }));
      assert.deepEqual(args.slice(-3), [`Accept: ${AGUI_MEDIA_TYPE}, text/event-stream`, '--data-binary', '@-']);
      assert.equal(stdin, body);
    });
  }

  it('names a method curl would not infer, and sends no body or Content-Type when there was none', () => {
    const { args } = argsSeenBy('sh', toCurl({ ...base, method: 'PUT' }));
    assert.deepEqual(args.slice(0, 3), ['-N', '-g', '-X']);
    assert.equal(args[3], 'PUT');
    const get = argsSeenBy('sh', toCurl({ ...base, method: 'GET', requestBody: undefined, requestContentType: undefined }));
    assert.deepEqual(get.args, ['-N', '-g', '--url', base.url, '-H', 'Accept: text/event-stream']);
  });

  it('refuses an exchange with no URL', () => {
    assert.throws(() => toCurl({ ...base, url: undefined }), FormatError);
  });

  // Real curl runs here (.ci/run installs it where it is missing).
  it('replays against the demo agent with real curl, over SSE and protobuf', async () => {
    for (const accept of ['text/event-stream', `${AGUI_MEDIA_TYPE}, text/event-stream`]) {
      const input = inputFor({ runId: 'curl-run', messages: [{ id: 'u', role: 'user', content: "it's \"quoted\"\nand multi-line" }] });
      const x = await capture(`${agent.url}/agent/chat`, JSON.stringify(input), accept, 'curl');
      // Asynchronously: the agent answering curl runs in this process.
      const run = await promisify(execFile)('sh', ['-c', toCurl(x).replace(/^curl /, 'curl -sS ')], { encoding: 'buffer' });
      assert.deepEqual(new Uint8Array(run.stdout), bodyOf(x), accept);
    }
  });
});

describe('toCurl, run by real curl against a server on 127.0.0.1', () => {
  let dir: string;
  let secret: string;
  let server: Server;
  let url: string;
  const received: { method: string; url: string; contentType: string | undefined; body: Buffer }[] = [];
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agui-curl-'));
    secret = join(dir, 'id_rsa');
    writeFileSync(secret, 'PRIVATE KEY, never to leave this machine\n');
    server = createServer((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (b: Buffer) => parts.push(b));
      req.on('end', () => {
        received.push({ method: req.method!, url: req.url!, contentType: req.headers['content-type'], body: Buffer.concat(parts) });
        res.writeHead(200, { 'content-type': 'text/event-stream' }).end('data: {}\n\n');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  // Each starts with what curl's data options read as "a file" (`@`), stdin (`@-`) or a form file (`<`), or an option (`-`), or holds what a shell or printf interprets.
  const bodies = (file: string): Record<string, string> => ({
    'a file to upload': `@${file}`,
    'stdin': '@-',
    'a form file': `<${file}`,
    'an option': `-d @${file}`,
    'a lone dash': '-',
    'quotes and shell syntax': `it's "quoted" \`id\` $(cat ${file}) $HOME \\ \\n %s %% '' "'"`,
    'newlines': 'a\nb\r\nc\n\n',
    'NUL, after an @': `@${file}\0after NUL \\000 %d \n`,
    'non-ASCII': 'é ü 😀 \u2028 \u00a0 日本語',
    'nothing': '',
    'JSON holding all of it': JSON.stringify({ threadId: `@${file}`, messages: [{ content: `<${file}\n'"\u0000é😀` }] }),
  });

  for (const shell of SHELLS) {
    it(`the server receives exactly the recorded body, byte for byte, whatever it starts with or holds (${shell})`, async () => {
      for (const [what, body] of Object.entries(bodies(secret))) {
        received.length = 0;
        const path = "/agent/chat?filter[0]={a,b}&name=o'brien";
        const command = toCurl({ source: what, url: url + path, method: 'POST', requestContentType: 'application/json', requestBody: body, responseContentType: 'text/event-stream', chunks: [] });
        // The command exactly as produced, asynchronously: the server answering curl runs in this process.
        const run = await promisify(execFile)(shell, ['-c', command], { encoding: 'buffer' });
        assert.equal(run.stdout.toString(), 'data: {}\n\n', what);
        assert.equal(received.length, 1, `${what}: one request`);
        const got = received[0]!;
        assert.deepEqual([got.method, got.url, got.contentType], ['POST', path, 'application/json'], what);
        assert.ok(!got.body.includes('PRIVATE KEY') || body.includes('PRIVATE KEY'), `${what}: the file was not sent`);
        assert.deepEqual(got.body, Buffer.from(body, 'utf8'), what);
      }
    });
  }
});
