/**
 * The import worker's work without a browser (panel/files.ts): what an import posts rebuilds the file's
 * exchanges with the analysis the CLI gives them; live exchanges are found among the worker's export
 * entries; export files are named for the page and the moment.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recordFromOwnAgent } from '../../demo/record.ts';
import { analyzeExchanges, ExchangeAnalyzer } from '../../src/analyzer/index.ts';
import type { ExchangeReport } from '../../src/analyzer/types.ts';
import { writeHar } from '../../src/formats/har.ts';
import type { Timing } from '../../src/detail/index.ts';
import { answerOf, importFile, type Held, type ImportMessage } from '../../panel/files.ts';
import { exportFileName, unpackEvents } from '../../panel/transfer.ts';
import { timedRecording } from './large-recording.ts';

test('an import posts every exchange with its exact bytes, its events and the analysis the CLI gives it', async () => {
  const { session } = await recordFromOwnAgent();
  const text = writeHar(session, { creator: { name: 'recording-files.test', version: '1' } });
  const messages: ImportMessage[] = [];
  await importFile(new Blob([text]), 'session.har', (m) => void messages.push(m), { readings: [], sockets: [] });

  assert.equal(messages.at(-1)?.type, 'done');
  const progress = messages.flatMap((m) => (m.type === 'progress' ? [m.progress] : []));
  assert.deepEqual([...new Set(progress.map((p) => p.phase))], ['reading', 'parsing', 'analysing']);
  assert.deepEqual(progress.map((p) => p.percent), progress.map((p) => p.percent).sort((a, b) => a - b), 'progress only increases');
  assert.equal(progress.at(-1)!.exchangesAnalysed, session.length);

  const reports: (ExchangeReport | null)[] = [];
  const events: string[][] = session.map(() => []);
  messages.forEach((m) => {
    if (m.type === 'events') events[m.index]!.push(...unpackEvents(m).map((e) => e.raw));
    if (m.type === 'end') {
      reports[m.index] = m.report;
      assert.deepEqual(m.chunks.map((c) => [c.time, Buffer.from(c.bytes).toString('base64')]),
        session[m.index]!.chunks.map((c) => [c.time, Buffer.from(c.bytes).toString('base64')]), `bytes of exchange ${m.index}`);
    }
  });
  const expected = analyzeExchanges(session);
  assert.deepEqual(reports.map((r) => r && { ...r, source: '' }), expected.map((r) => ({ ...r, source: '' })));
  const frames = session.map((x) => {
    const raws: string[] = [];
    const a = new ExchangeAnalyzer({ source: x.source, requestBody: x.requestBody, contentType: x.responseContentType, onEvent: (r) => void raws.push(typeof r.raw === 'string' ? r.raw : Buffer.from(r.raw).toString('base64')) });
    for (const c of x.chunks) a.push(c.bytes, c.time);
    a.end(0);
    return raws;
  });
  assert.deepEqual(events, frames, 'every frame, its text intact after travelling joined');
});

test("a question about an exchange still being analysed is answered as it stands: the Waterfall's bars grow while a file is read", async () => {
  // Some 3 MB: a dozen of the import's slices.
  const text = timedRecording(20_000);
  const held: Held = { readings: [], sockets: [] };
  const { readings } = held;
  const timing = (): Timing | null => answerOf(readings, { type: 'detail', ask: 0, index: 0, part: 'timing' }) as Timing | null;
  let done = false;
  let asked: { timing: Timing | null; done: boolean } | null = null;
  await importFile(new Blob([text]), 'timed.har', (m) => {
    if (m.type === 'done') done = true;
    // Asked as the panel asks, once the first events are shown: the worker takes it between slices.
    if (m.type === 'events' && !asked) setTimeout(() => void (asked = { timing: timing(), done }), 0);
  }, held);

  const partial = asked!.timing!;
  const whole = timing()!;
  assert.equal(asked!.done, false, 'answered while the file was still being analysed');
  assert.ok(partial.messages!.length > 0 && partial.messages!.length < whole.messages!.length, `${partial.messages!.length} of the ${whole.messages!.length} messages so far`);
  assert.ok(partial.durationMs! < whole.durationMs!, `${partial.durationMs} ms of ${whole.durationMs} ms arrived so far`);
  const closed = partial.messages!.filter((s) => s.endMs !== null);
  assert.deepEqual(closed, whole.messages!.slice(0, closed.length), 'the messages so far, as the whole analysis has them');
  assert.equal(partial.runs![0]!.endMs, null, 'the run still open');
});

test('export files are named agui-<host>-<yyyymmdd-hhmmss>.har', () => {
  const at = new Date(2025, 2, 4, 5, 6, 7);
  assert.equal(exportFileName('http://127.0.0.1:5173/chat', at), 'agui-127.0.0.1-20250304-050607.har');
  assert.equal(exportFileName('session.sse', at), 'agui-session-20250304-050607.har');
  assert.equal(exportFileName(null, at), 'agui-session-20250304-050607.har');
});
