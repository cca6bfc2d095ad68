import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { analyzeExchanges } from '../../src/analyzer/index.ts';
import { bodyOf, type CapturedExchange } from '../../src/formats/exchange.ts';
import { TOOL } from '../../src/meta.ts';
import type { ExchangeReport } from '../../src/analyzer/types.ts';
import { DEFAULT_REDACTION, exportSession, REDACTION_GROUPS, type SessionLogExtension } from '../../src/recording/export.ts';
import { recordFromOwnAgent } from '../../demo/record.ts';
import { reread, shapes } from './support.ts';

let session: CapturedExchange[];

before(async () => {
  ({ session } = await recordFromOwnAgent());
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

describe('exportSession on traffic recorded from the demo agent', () => {
  it('recorded every scenario over both transports, with findings to carry', () => {
    const types = new Set(session.map((x) => x.responseContentType.split(';')[0]));
    assert.deepEqual([...types].sort(), ['application/vnd.ag-ui.event+proto', 'text/event-stream']);
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

  it('carries the analysis and who made it in _agui', () => {
    const doc = JSON.parse(exportSession(session, { as: '1.1' }));
    assert.deepEqual(doc.log.creator, { name: TOOL.name, version: TOOL.version });
    const ext = doc.log._agui as SessionLogExtension;
    assert.deepEqual(ext.tool, { name: TOOL.name, version: TOOL.version });
    assert.equal(ext.protocolVersion, '1.1');
    assert.deepEqual(ext.redaction.groups, [...DEFAULT_REDACTION]);
    const analysed = analyzeExchanges(session, '1.1');
    assert.equal(doc.log.entries.length, session.length);
    doc.log.entries.forEach((e: { _agui: { analysis: unknown } }, i: number) => assert.deepEqual(e._agui.analysis, analysed[i]));
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
    doc.log.entries.forEach((e: { _agui: { analysis: ExchangeReport } }, i: number) => {
      assert.deepEqual({ ...e._agui.analysis, source: '' }, { ...fresh[i]!, source: '' });
    });
  });
});
