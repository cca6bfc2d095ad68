import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, it } from 'node:test';
import type { BaseEvent } from '@ag-ui/core';
import { EventEncoder } from '@ag-ui/encoder';
import { ExchangeAnalyzer, ThreadTracker, type ExchangeReport } from '../../src/analyzer/index.ts';
import { ALL_RULES } from '../../src/catalog/index.ts';
import type { SocketClose } from '../../src/exchange/index.ts';
import type { Finding, ProtocolVersion } from '../../src/rules/types.ts';
import { transportOf } from '../../src/wire/index.ts';
import { ROOT } from '../support/paths.ts';
import { concatBytes } from '../../src/bytes.ts';

/** The fixture format is documented in test/fixtures/rules/README.md. */
interface FixtureExchange {
  input?: unknown;
  inputText?: string;
  contentType?: string;
  status?: number;
  stream?: unknown[];
  body?: string;
  bodyBase64?: string;
  /** The page ended the response itself (aborted it, or stopped reading). */
  abandoned?: boolean;
  /** The exchange ran on a WebSocket (ExchangeAnalyzerOptions.websocket). */
  websocket?: { cutBy: SocketClose | null };
}

interface ExpectedFinding {
  rule: string;
  event?: number | null;
  path?: string | null;
  exchange?: number;
  /** Whether it is a pre-1.0 exchange's 1.0-readiness item; checked when given. */
  readiness?: boolean;
}

interface Fixture {
  name: string;
  description: string;
  rule: string;
  kill: string;
  as?: ProtocolVersion;
  exchanges: FixtureExchange[];
  expect: {
    verdict: 'completed' | 'failed';
    findings: ExpectedFinding[];
    absent?: string[];
    runs?: { runId: string | null; outcome: string; requested: boolean }[];
    negotiation?: string;
    inputVerdict?: 'valid' | 'invalid';
    era?: 'pre-1.0' | '1.x';
    /** The last exchange's 1.0-readiness verdict, null when it has no readiness reading. */
    readiness?: 'completed' | 'failed' | null;
  };
}

const DIR = join(ROOT, 'test/fixtures/rules');
const RULE_IDS = new Set(ALL_RULES.map((r) => r.id));
const utf8 = new TextEncoder();
const proto = new EventEncoder({ accept: 'application/vnd.ag-ui.event+proto' });

const files = readdirSync(DIR).filter((f) => f.endsWith('.json')).sort();
const fixtures: [string, Fixture][] = files.map((f) => [f, JSON.parse(readFileSync(join(DIR, f), 'utf8')) as Fixture]);


/** `stream` is written in the transport the content type names, so one list of events serves every wire. */
function responseBody(x: FixtureExchange, contentType: string): Uint8Array {
  if (x.stream !== undefined) {
    switch (transportOf(contentType)) {
      case 'protobuf':
        return concatBytes(x.stream.map((e) => proto.encodeProtobuf(e as BaseEvent)));
      case 'json':
        return utf8.encode(JSON.stringify(x.stream));
      case 'jsonl':
        return utf8.encode(x.stream.map((e) => JSON.stringify(e) + '\n').join(''));
      default:
        return utf8.encode(x.stream.map((e) => `data: ${JSON.stringify(e)}\n\n`).join(''));
    }
  }
  if (x.bodyBase64 !== undefined) return new Uint8Array(Buffer.from(x.bodyBase64, 'base64'));
  return utf8.encode(x.body ?? '');
}

/** Every exchange of a fixture in order, on one thread tracker, as a recorded session is analysed; with each one's frame count. */
function analyze(fx: Fixture): { reports: ExchangeReport[]; frames: number[] } {
  const frames: number[] = [];
  const thread = new ThreadTracker();
  const reports = fx.exchanges.map((x, i) => {
    const contentType = x.contentType ?? 'text/event-stream';
    const a = new ExchangeAnalyzer({
      source: `${fx.name}#${i}`,
      requestBody: x.inputText ?? (x.input === undefined ? undefined : JSON.stringify(x.input)),
      contentType,
      status: x.status,
      websocket: x.websocket,
      as: fx.as,
      thread,
    });
    a.push(responseBody(x, contentType), 0);
    a.end(0, x.abandoned);
    frames.push(a.eventCount);
    return a.report();
  });
  return { reports, frames };
}

const everyFinding = (r: ExchangeReport): Finding[] => [...r.input.findings, ...r.findings];

function shown(reports: ExchangeReport[]): string {
  return reports
    .map((r, i) => `exchange ${i} (${r.era}, ${r.verdict}):\n` + everyFinding(r).map((f) => `  ${f.severity}${f.readiness ? ' (readiness)' : ''} ${f.rule} #${f.event}${f.path ?? ''}: ${f.message}`).join('\n'))
    .join('\n');
}

function matches(f: Finding, want: ExpectedFinding): boolean {
  return (
    f.rule === want.rule &&
    (want.event === undefined || f.event === want.event) &&
    (want.path === undefined || f.path === want.path) &&
    (want.readiness === undefined || (f.readiness === true) === want.readiness)
  );
}

describe('rule fixtures (test/fixtures/rules)', () => {
  it('has well-formed fixtures, each naming the rule it triggers or near-misses', () => {
    assert.ok(fixtures.length > 0, `no fixtures in ${DIR}`);
    for (const [file, fx] of fixtures) {
      assert.equal(fx.name, basename(file, '.json'), `${file}: name must equal the file name`);
      assert.ok(typeof fx.description === 'string' && fx.description.length > 0, `${file}: description`);
      assert.ok(typeof fx.kill === 'string' && fx.kill.length > 0, `${file}: kill`);
      assert.ok(RULE_IDS.has(fx.rule), `${file}: unknown rule ${fx.rule}`);
      assert.ok(fx.as === undefined || fx.as === '1.0' || fx.as === '1.1', `${file}: as`);
      assert.ok(Array.isArray(fx.exchanges) && fx.exchanges.length > 0, `${file}: exchanges`);
      for (const x of fx.exchanges) {
        assert.ok(!(x.input !== undefined && x.inputText !== undefined), `${file}: input and inputText are exclusive`);
        const bodies = [x.stream, x.body, x.bodyBase64].filter((b) => b !== undefined);
        assert.ok(bodies.length <= 1, `${file}: stream, body and bodyBase64 are exclusive`);
      }
      const named = [...fx.expect.findings.map((f) => f.rule), ...(fx.expect.absent ?? [])];
      for (const id of named) assert.ok(RULE_IDS.has(id), `${file}: expect names unknown rule ${id}`);
      assert.ok(named.includes(fx.rule), `${file}: its rule ${fx.rule} is neither expected nor asserted absent`);
      for (const f of fx.expect.findings) {
        assert.ok(f.exchange === undefined || (f.exchange >= 0 && f.exchange < fx.exchanges.length), `${file}: finding exchange out of range`);
        assert.ok(!(fx.expect.absent ?? []).includes(f.rule), `${file}: ${f.rule} is both expected and absent`);
      }
    }
  });

  it('triggers every rule in ALL_RULES with at least one fixture', () => {
    const exercised = new Set(fixtures.flatMap(([, fx]) => fx.expect.findings.map((f) => f.rule)));
    const missing = [...RULE_IDS].filter((id) => !exercised.has(id));
    assert.deepEqual(missing, [], `rules no fixture triggers: ${missing.join(', ')}`);
    assert.deepEqual([...exercised].sort(), [...RULE_IDS].sort());
  });

  for (const [file, fx] of fixtures) {
    it(`${fx.name} [${fx.rule}]: ${fx.description}`, () => {
      const { reports, frames } = analyze(fx);
      const last = reports.at(-1)!;
      const context = `${file}\nkill: ${fx.kill}\n${shown(reports)}`;
      for (const [i, r] of reports.entries()) {
        for (const f of everyFinding(r)) {
          assert.ok(f.event === null || (Number.isInteger(f.event) && f.event >= 0 && f.event < frames[i]!), `${f.rule} names event ${f.event}, but exchange ${i} carried ${frames[i]} frames\n${context}`);
        }
      }
      assert.equal(last.verdict, fx.expect.verdict, `verdict\n${context}`);
      for (const want of fx.expect.findings) {
        const report = reports[want.exchange ?? reports.length - 1]!;
        assert.ok(everyFinding(report).some((f) => matches(f, want)), `expected ${JSON.stringify(want)}\n${context}`);
      }
      for (const id of fx.expect.absent ?? []) {
        for (const [i, r] of reports.entries()) {
          assert.ok(!everyFinding(r).some((f) => f.rule === id), `${id} must not fire (exchange ${i})\n${context}`);
        }
      }
      if (fx.expect.runs !== undefined) {
        assert.deepEqual(last.runs.map((r) => ({ runId: r.runId, outcome: r.outcome, requested: r.requested })), fx.expect.runs, `runs\n${context}`);
      }
      if (fx.expect.negotiation !== undefined) assert.equal(last.negotiation.verdict, fx.expect.negotiation, `negotiation\n${context}`);
      if (fx.expect.inputVerdict !== undefined) assert.equal(last.input.verdict, fx.expect.inputVerdict, `input verdict\n${context}`);
      if (fx.expect.era !== undefined) assert.equal(last.era, fx.expect.era, `era\n${context}`);
      if (fx.expect.readiness !== undefined) assert.equal(last.readiness?.verdict ?? null, fx.expect.readiness, `readiness\n${context}`);
    });
  }
});
