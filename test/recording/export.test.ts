import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { Session } from '../../background/session.ts';
import { analyzeExchanges } from '../../src/analyzer/index.ts';
import { bodyOf, type CapturedExchange } from '../../src/exchange/exchange.ts';
import { TOOL } from '../../src/meta.ts';
import type { ExchangeReport } from '../../src/analyzer/types.ts';
import { DEFAULT_LIMITS, type PageMessage } from '../../src/messages.ts';
import { DEFAULT_REDACTION, exportSession, REDACTION_GROUPS, type RedactionGroup, type SessionLogExtension } from '../../src/recording/export.ts';
import { recordFromOwnAgent } from '../../demo/record.ts';
import { scenarios } from '../../demo/scenarios.ts';
import { chunked, reread, shapes } from './support.ts';
import { ROOT } from '../support/paths.ts';

let session: CapturedExchange[];
/** The same traffic as the extension's worker holds it, each exchange with the worker's analysis. */
let captured: CapturedExchange[];
/** Where in `captured` each kind of exchange sits. */
const at = { capped: 0, abandoned: 0, reconstructed: 0, protobuf: 0, failed: 0, noBody: 0, pending: 0, query: 0 };

const PROTO = 'application/vnd.ag-ui.event+proto';
const QUERY_SECRET = 'SECRET-QUERY-77e1';

/**
 * Feeds the recorded session to the worker's own Session as the page script would report it: one exchange
 * loses its tail to the relay's limit (capped), one is aborted by the page, one arrives through an
 * EventSource (reconstructed), one fails, one's request body was unreadable, the last is still arriving.
 */
function throughWorker(recorded: CapturedExchange[]): CapturedExchange[] {
  // The demo agent answered each in one read; a network would deliver it in pieces, and a cap needs some to drop.
  const xs = recorded.map((x) => {
    const body = bodyOf(x);
    const quarter = Math.ceil(body.length / 4);
    return { ...x, chunks: chunked(body, [quarter, quarter, quarter]) };
  });
  const sse = xs.flatMap((x, i) => (x.responseContentType.startsWith('text/event-stream') ? [i] : []));
  at.capped = sse[0]!;
  at.abandoned = sse[1]!;
  at.reconstructed = sse[2]!;
  at.failed = sse[3]!;
  at.noBody = sse[4]!;
  at.query = sse[5]!;
  at.protobuf = xs.findIndex((x) => x.responseContentType.startsWith(PROTO));
  at.pending = xs.length - 1;
  const s = new Session(7, 'http://127.0.0.1/', false, DEFAULT_LIMITS);
  const msgs: PageMessage[] = [];
  xs.forEach((x, id) => {
    const t0 = Date.parse(x.startedDateTime!);
    const url = id === at.query ? `${x.url}?api_key=${QUERY_SECRET}&delay=1` : x.url!;
    const unreadable = id === at.noBody;
    msgs.push(
      { k: 'open', id, api: id === at.reconstructed ? 'eventsource' : 'fetch', t: t0, method: 'POST', url, requestContentType: 'application/json', requestBody: unreadable ? null : x.requestBody!, requestBodyNote: unreadable ? 'unreadable' : null },
      { k: 'response', id, t: t0 + 0.5, status: x.status!, statusText: 'OK', contentType: x.responseContentType, url, redirected: false, reconstructed: id === at.reconstructed },
    );
    const half = Math.floor(x.chunks.length / 2);
    x.chunks.forEach((c, n) => {
      if (n === half && id === at.capped) msgs.push({ k: 'dropped', t: t0 + c.time, id, exchanges: 0, chunks: 1, bytes: c.bytes.length, rejected: 0 });
      if (n >= half && id === at.abandoned) return;
      msgs.push({ k: 'chunk', id, t: t0 + c.time, bytes: c.bytes });
    });
    if (id === at.pending) return;
    const end = t0 + (x.chunks.at(-1)?.time ?? 0) + 1;
    if (id === at.abandoned) msgs.push({ k: 'end', id, t: end, outcome: 'aborted', error: null });
    else if (id === at.failed) msgs.push({ k: 'end', id, t: end, outcome: 'error', error: 'TypeError: network error' });
    else msgs.push({ k: 'end', id, t: end, outcome: 'complete', error: null });
  });
  s.receive('doc', 1, msgs);
  while (s.busy) s.work(() => false);
  return s.captured();
}

before(async () => {
  ({ session } = await recordFromOwnAgent());
  captured = throughWorker(session);
});

function assertSameCapture(actual: CapturedExchange[], expected: CapturedExchange[]): void {
  assert.equal(actual.length, expected.length);
  actual.forEach((x, i) => {
    const y = expected[i]!;
    assert.equal(x.requestBody, y.requestBody, `${y.source}: request body`);
    assert.deepEqual(bodyOf(x), bodyOf(y), `${y.source}: response body`);
    assert.deepEqual(x.chunks.map((c) => [c.time, c.bytes.length]), y.chunks.map((c) => [c.time, c.bytes.length]), `${y.source}: chunk timing`);
    for (const k of ['url', 'method', 'status', 'startedDateTime', 'requestContentType', 'responseContentType'] as const) {
      assert.equal(x[k], y[k], `${y.source}: ${k}`);
    }
  });
}

/** Export, import, export, import, export: the files the second and third exports write. */
function roundTrips(xs: CapturedExchange[], redact: readonly RedactionGroup[]): { first: string; second: string; third: string } {
  const first = exportSession(xs, { redact });
  const second = exportSession(reread(first, 'first.har'), { redact });
  const third = exportSession(reread(second, 'second.har'), { redact });
  return { first, second, third };
}

describe('exportSession on traffic recorded from the demo agent', () => {
  it('recorded every scenario over both transports, with findings to carry', () => {
    const types = new Set(session.map((x) => x.responseContentType.split(';')[0]));
    assert.deepEqual([...types].sort(), [PROTO, 'text/event-stream']);
    assert.ok(session.length >= 20, `${session.length} exchanges`);
    const rules = new Set(analyzeExchanges(session).flatMap((r) => [...r.input.findings, ...r.findings].map((f) => f.rule)));
    for (const rule of ['identity/run-id-mismatch', 'version/producer-newer', 'interrupt/resume-uncovered', 'schema/malformed']) {
      assert.ok(rules.has(rule), `expected ${rule} among ${[...rules].join(', ')}`);
    }
  });

  it('reads back to the same bytes, timing and analysis', () => {
    const text = exportSession(session);
    const back = reread(text);
    assertSameCapture(back, session);
    assert.deepEqual(shapes(back), shapes(session));
  });

  it('export → import → export is byte-identical', () => {
    const first = exportSession(session);
    assert.equal(exportSession(reread(first)), first);
  });

  it('names its format and version, and who made it, in _agui; an exchange without an analysis is analysed here', () => {
    const doc = JSON.parse(exportSession(session, { as: '1.1' }));
    assert.deepEqual(doc.log.creator, { name: TOOL.name, version: TOOL.version });
    const ext = doc.log._agui as SessionLogExtension & { format: string; version: number };
    assert.equal(ext.format, 'agui-inspector/har');
    assert.equal(ext.version, 1);
    assert.deepEqual(Object.keys(ext), ['format', 'version', 'protocolVersion', 'redaction']);
    assert.equal(ext.protocolVersion, '1.1');
    assert.deepEqual(ext.redaction.groups, [...DEFAULT_REDACTION]);
    const analysed = analyzeExchanges(session, '1.1');
    assert.equal(doc.log.entries.length, session.length);
    doc.log.entries.forEach((e: { _agui: Record<string, unknown> }, i: number) => {
      assert.deepEqual(Object.keys(e._agui), ['chunks', 'arrival', 'tabId', 'api', 'outcome', 'error', 'capped', 'reconstructed', 'requestBodyNote', 'analysisError', 'report']);
      assert.deepEqual(e._agui.report, analysed[i]);
      assert.deepEqual([e._agui.tabId, e._agui.api, e._agui.outcome, e._agui.capped, e._agui.reconstructed], [null, null, null, false, false], 'a file does not know how it was captured');
    });
  });

  it('writes no request header but the content type', () => {
    const doc = JSON.parse(exportSession(session));
    for (const e of doc.log.entries) {
      assert.deepEqual(e.request.headers, [{ name: 'Content-Type', value: 'application/json' }]);
      assert.deepEqual(e.request.cookies, []);
      assert.deepEqual(e.response.headers.map((h: { name: string }) => h.name), ['Content-Type']);
    }
  });

  it('redacting every group keeps the analysis and the timing, and removes the content', () => {
    const text = exportSession(session, { redact: [...REDACTION_GROUPS] });
    const ext = JSON.parse(text).log._agui as SessionLogExtension;
    assert.equal(ext.redaction.analysisPreserved, true);
    assert.ok(ext.redaction.values.messages > 0 && ext.redaction.values.tools > 0 && ext.redaction.values.state > 0);
    const back = reread(text);
    assert.deepEqual(shapes(back), shapes(session));
    // Lengths move only where a boolean became a string (see redact.ts); the chunks arrive when they did.
    back.forEach((x, i) => assert.deepEqual(x.chunks.map((c) => c.time), session[i]!.chunks.map((c) => c.time)));
    // Words the demo only ever says in message text, tool arguments or results, and state.
    for (const said of ['Hi there, who are you?', 'streaming this reply', 'Lisbon', 'Belém', 'sunny', 'metric', 'quarterly report']) {
      assert.ok(exportSession(session).includes(said), `the unredacted export holds ${said}`);
      assert.ok(!text.includes(said), `${said} survived redaction`);
    }
    // Identifiers and structure stay.
    for (const kept of ['show_weather_card', 'approve-send', 'sse-tools:call-lookup', '/trip/stops/-', 'RUN_FINISHED']) assert.ok(text.includes(kept), kept);
  });

  it('analyses the redacted bytes it writes (the analysis is of the export, not of the original)', () => {
    const doc = JSON.parse(exportSession(session, { redact: ['messages'] }));
    const back = reread(JSON.stringify(doc));
    const fresh = analyzeExchanges(back);
    doc.log.entries.forEach((e: { _agui: { report: ExchangeReport } }, i: number) => {
      assert.deepEqual({ ...e._agui.report, source: '' }, { ...fresh[i]!, source: '' });
    });
  });
});

describe('exportSession of what the worker captured, with its analysis', () => {
  it('the worker saw what the test meant it to', () => {
    const a = captured.map((x) => x.analysis!);
    assert.equal(a[at.capped]!.capped, true);
    assert.ok(bodyOf(captured[at.capped]!).length < bodyOf(session[at.capped]!).length, 'the capped exchange lost its tail');
    assert.equal(captured[at.abandoned]!.abandoned, true);
    assert.equal(a[at.abandoned]!.outcome, 'aborted');
    assert.deepEqual([a[at.reconstructed]!.reconstructed, a[at.reconstructed]!.api], [true, 'eventsource']);
    assert.deepEqual([a[at.failed]!.outcome, a[at.failed]!.error], ['error', 'TypeError: network error']);
    assert.deepEqual([a[at.noBody]!.requestBodyNote, a[at.noBody]!.report!.input.present], ['unreadable', false]);
    assert.equal(a[at.pending]!.outcome, 'pending');
    assert.ok(captured[at.protobuf]!.responseContentType.startsWith(PROTO));
    assert.ok(a.every((r) => r.tabId === 7 && r.report !== null));
  });

  it('exporting the same exchanges twice writes the same bytes, redacted or not', () => {
    for (const redact of [[], DEFAULT_REDACTION, REDACTION_GROUPS]) {
      const once = exportSession(captured, { redact });
      assert.equal(exportSession(captured, { redact }), once, `redacting ${redact.join(', ') || 'nothing'}`);
      assert.equal(exportSession(captured.map((x) => ({ ...x })), { redact }), once, 'nothing but the exchanges decides the bytes');
    }
  });

  it('writes the analysis as the worker made it, and reads back every flag and the report', () => {
    const text = exportSession(captured, { redact: [] });
    const back = reread(text, 'tab.har');
    assertSameCapture(back, captured);
    assert.deepEqual(back.map((x) => x.analysis), captured.map((x) => x.analysis));
    assert.deepEqual(back.map((x) => x.abandoned === true), captured.map((x) => x.abandoned === true));
    // Not made again: a capped stream's report has no truncation finding, since the worker never ended it.
    const rules = (r: ExchangeReport | null | undefined) => [...(r?.findings ?? [])].map((f) => f.rule);
    assert.ok(!rules(back[at.capped]!.analysis!.report).includes('lifecycle/truncated'));
    assert.ok(rules(analyzeExchanges([back[at.capped]!])[0]).includes('lifecycle/truncated'), 'analysed anew, it would have one');
  });

  it('a report named by its URL names the redacted URL: the query string leaves no trace', () => {
    const plain = exportSession(captured, { redact: [] });
    const redacted = exportSession(captured, { redact: ['query'] });
    assert.ok(plain.includes(QUERY_SECRET));
    assert.ok(!redacted.includes(QUERY_SECRET));
    const back = reread(redacted);
    assert.equal(back[at.query]!.analysis!.report!.source, back[at.query]!.url);
    assert.deepEqual(back.map((x) => x.analysis!.capped), captured.map((x) => x.analysis!.capped), 'the flags stay');
  });

  it('import → export → import → export writes the same file again, and keeps every source', () => {
    const cases: [string, CapturedExchange[], readonly RedactionGroup[]][] = [
      ['the whole capture', captured, []],
      ['a capped exchange', [captured[at.capped]!], []],
      ['an abandoned exchange', [captured[at.abandoned]!], []],
      ['a reconstructed response', [captured[at.reconstructed]!], []],
      ['a protobuf exchange', [captured[at.protobuf]!], []],
      ['an exchange still arriving', [captured[at.pending]!], []],
      ['the capture, query redacted', captured, DEFAULT_REDACTION],
      ['the capture, every group redacted', captured, REDACTION_GROUPS],
      ['a protobuf exchange, every group redacted', [captured[at.protobuf]!], REDACTION_GROUPS],
      ['a file that carried no analysis', session, []],
    ];
    for (const [what, xs, redact] of cases) {
      const { first, second, third } = roundTrips(xs, redact);
      assert.equal(third, second, what);
      const sources = (text: string) => reread(text).map((x) => x.analysis!.report?.source);
      assert.deepEqual(sources(third), sources(first), `${what}: sources`);
      if (redact.length === 0) assert.equal(second, first, `${what}: not redacted, the first file is written again too`);
    }
  });

  it('reads the shapes earlier exports wrote', () => {
    // What the bundled example was until it was re-recorded: written by the panel's export before the format was
    // versioned, by an analyzer that wrote no era and no readiness. Its bytes are read, reports of another shape not taken.
    const unversioned = reread(readFileSync(join(ROOT, 'test/fixtures/recording/unversioned-export.har'), 'utf8'));
    assert.ok(unversioned.length >= 20 && unversioned.every((x) => x.analysis === undefined));
    assert.deepEqual(reread(exportSession(unversioned)).map((x) => x.analysis!.report), analyzeExchanges(unversioned));
    // The same shape from this version's analyzer: a bare report per entry.
    const flat = JSON.parse(exportSession(session));
    delete flat.log._agui.format;
    delete flat.log._agui.version;
    for (const e of flat.log.entries) {
      const { chunks, report } = e._agui;
      e._agui = { chunks, analysis: report };
    }
    const fromFlat = reread(JSON.stringify(flat));
    assert.deepEqual(fromFlat.map((x) => x.analysis!.report), reread(exportSession(session)).map((x) => x.analysis!.report));
    // The worker's, with the record in `analysis`.
    const worker = JSON.parse(exportSession(captured, { redact: [] }));
    delete worker.log._agui;
    for (const e of worker.log.entries) {
      const { chunks, abandoned, ...analysis } = e._agui;
      e._agui = { chunks, ...(abandoned ? { abandoned } : {}), analysis };
    }
    assert.deepEqual(reread(JSON.stringify(worker)).map((x) => x.analysis), captured.map((x) => x.analysis));
    // A later version's records are not guessed at: its exchanges are read, their analysis made anew.
    const later = JSON.parse(exportSession(captured, { redact: [] }));
    later.log._agui.version = 2;
    const fromLater = reread(JSON.stringify(later));
    assertSameCapture(fromLater, captured);
    assert.ok(fromLater.every((x) => x.analysis === undefined));
  });

  it('the bundled example is in the current format: read and exported again, it is written byte for byte', () => {
    const text = readFileSync(join(ROOT, 'examples', 'session.har'), 'utf8');
    const example = reread(text);
    assert.ok(example.length >= 20, `${example.length} exchanges`);
    assert.ok(example.every((x) => x.analysis?.report !== undefined && x.arrival === 'chunks'), 'each entry carries its analysis and its arrival times');
    assert.deepEqual(example.map((x) => x.analysis!.report), analyzeExchanges(example));
    assert.equal(exportSession(example), text, 'npm run example re-records it');
    const recorded = new Set(example.map((x) => `${new URL(x.url!).pathname.split('/').at(-1)} ${x.responseContentType.startsWith(PROTO) ? 'protobuf' : 'sse'}`));
    const missing = scenarios.flatMap((s) => s.transports.map((t) => `${s.name} ${t}`)).filter((k) => !recorded.has(k));
    assert.deepEqual(missing, [], 'a scenario added since the example was recorded: npm run example');
  });

  it('a record that is not what the Inspector writes is not taken as an analysis', () => {
    const doc = JSON.parse(exportSession(captured, { redact: [] }));
    doc.log.entries[0]._agui.report.findings = 'none';
    doc.log.entries[1]._agui.capped = 'yes';
    doc.log.entries[2]._agui.outcome = 'exploded';
    const back = reread(JSON.stringify(doc));
    assert.deepEqual(back.slice(0, 3).map((x) => x.analysis), [undefined, undefined, undefined]);
    assert.deepEqual(back.slice(3).map((x) => x.analysis), captured.slice(3).map((x) => x.analysis));
    // Exported, those are analysed from their bytes.
    const again = reread(exportSession(back, { redact: [] }));
    assert.equal(again[0]!.analysis!.report!.verdict, analyzeExchanges([back[0]!])[0]!.verdict);
  });
});
