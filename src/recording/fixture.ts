/**
 * One exchange as a conformance-style fixture (the format of the official corpus, which
 * readExchanges reads back): the input, the decoded events in order, and what the Inspector
 * concluded, ready to become a regression test.
 *
 * What a fixture cannot hold is lost: frames that did not decode to an object, the transport's
 * framing and timing, the HTTP status, and anything the analysis drew from earlier exchanges on
 * the thread (resume coverage). Read back, the fixture analyses as the exchange does on its own
 * when it had none of those.
 */
import { analyzeExchanges } from '../analyzer/index.ts';
import { isObject } from '../json.ts';
import { createDecoder } from '../wire/index.ts';
import { bodyOf, type CapturedExchange } from '../exchange/index.ts';
import { FormatError } from '../formats/index.ts';

export interface Fixture {
  name: string;
  description: string;
  specPage: string;
  /** Pins a peer from before `protocolVersion` existed, so the reader adds none to an input that declared none. */
  client?: { maxProtocolVersion: string };
  input?: Record<string, unknown>;
  stream: unknown[];
  expect: { outcome: 'completed' | 'failed'; noWarnings?: true; warnings?: string[] };
}

/** Below every version that has the field: the corpus's way of saying the client never declares one. */
const PRE_VERSIONING = '0.0.0';

function requestInput(x: CapturedExchange): Record<string, unknown> | undefined {
  if (x.requestBody === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(x.requestBody);
  } catch {
    throw new FormatError(`${x.source}: the request body is not JSON, which a fixture's input cannot hold`);
  }
  if (!isObject(value)) throw new FormatError(`${x.source}: the request body is not a JSON object, which a fixture's input cannot hold`);
  return value;
}

/** `description` replaces the default one, which says where the exchange was recorded. */
export function toFixture(exchange: CapturedExchange, name: string, description?: string): string {
  const input = requestInput(exchange);
  const decoder = createDecoder(exchange.responseContentType);
  const items = [...decoder.push(bodyOf(exchange), 0), ...decoder.end(0)];
  const stream = items.flatMap((it) => (it.kind === 'event' ? [it.value] : []));
  const [report] = analyzeExchanges([exchange]);
  const findings = [...report!.input.findings, ...report!.findings];
  const raised = findings.filter((f) => f.severity !== 'info');
  const cited = raised.find((f) => f.severity === 'error') ?? raised[0];
  const rules = [...new Set(raised.map((f) => f.rule))];
  const fixture: Fixture = {
    name,
    description: description ?? `Recorded ${exchange.method ?? 'POST'} ${exchange.url ?? exchange.source}: ${report!.verdict}${rules.length ? `, raising ${rules.join(', ')}` : ' with no warnings'}`,
    specPage: cited ? cited.spec.split('#')[0]! : `/spec/${report!.consumerVersion}`,
    stream,
    expect: { outcome: report!.verdict },
  };
  if (input !== undefined) {
    if (typeof input.protocolVersion !== 'string') fixture.client = { maxProtocolVersion: PRE_VERSIONING };
    fixture.input = input;
  }
  // The corpus matches each `warnings` entry against a finding's path (or message), so the paths are what it can check.
  const paths = [...new Set(raised.flatMap((f) => (f.path === null ? [] : [f.path])))];
  if (raised.length === 0) fixture.expect.noWarnings = true;
  else if (paths.length > 0) fixture.expect.warnings = paths;
  return JSON.stringify(fixture, null, 2) + '\n';
}
