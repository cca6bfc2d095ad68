/** What the replay tests share: a whole run's events, and `agui-inspector replay` run as a process. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import type { CapturedExchange } from '../../src/exchange/index.ts';
import { writeHar } from '../../src/formats/har.ts';
import { ROOT } from './paths.ts';

/** A whole run that streams one text message, one event an entry. */
export const runEvents = (threadId: string, runId: string) => [
  { type: 'RUN_STARTED', threadId, runId, protocolVersion: '1.0' },
  { type: 'TEXT_MESSAGE_START', messageId: 'a1', role: 'assistant' },
  { type: 'TEXT_MESSAGE_CONTENT', messageId: 'a1', delta: 'Hello' },
  { type: 'TEXT_MESSAGE_END', messageId: 'a1' },
  { type: 'RUN_FINISHED', threadId, runId },
];

/** The command as the source runs it; the packaged tool is `[<dist/node/agui-inspector.cjs>]`. */
const FROM_SOURCE = ['--import', 'tsx', join(ROOT, 'src/cli/bin.ts')];

/** `agui-inspector replay …` as a user runs it, with what it prints so far. */
export function replayProcess(args: string[], tool: string[] = FROM_SOURCE) {
  const child = spawn(process.execPath, [...tool, 'replay', ...args], { cwd: ROOT });
  const o = { child, out: '', err: '' };
  child.stdout.on('data', (b: Buffer) => (o.out += b.toString()));
  child.stderr.on('data', (b: Buffer) => (o.err += b.toString()));
  return o;
}

/** The URL it says it serves on, once it does. */
export function listening(p: ReturnType<typeof replayProcess>): Promise<string> {
  return new Promise((resolve, reject) => {
    p.child.stdout.on('data', () => {
      const m = / on (http:\/\/\S+:\d+) /.exec(p.out);
      if (m) resolve(m[1]!);
    });
    p.child.once('exit', (code) => reject(new Error(`replay exited ${code}: ${p.out}${p.err}`)));
  });
}

const PACKAGED = join(ROOT, 'dist/node/agui-inspector.cjs');

/**
 * For a suite that runs the packaged tool (`npm run build:cli` first) on a recording: `exchanges` written
 * to a HAR in a directory of its own before the suite, removed after it. `file()` is its path.
 */
export function packagedRecording(exchanges: CapturedExchange[]) {
  let dir = '';
  before(() => {
    assert.ok(existsSync(PACKAGED), `${PACKAGED} missing: run npm run build:cli`);
    dir = mkdtempSync(join(tmpdir(), 'agui-replay-'));
    writeFileSync(join(dir, 'session.har'), writeHar(exchanges, { creator: { name: 'test', version: '0' } }));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  return {
    file: () => join(dir, 'session.har'),
    /** `agui-inspector replay <args>` as npm installs it. */
    replay: (args: string[]) => replayProcess(args, [PACKAGED]),
  };
}
