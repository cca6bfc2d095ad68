/**
 * What capture costs the page: the same AG-UI streams read by the same page in plain Chromium and in
 * Chromium with the built extension, side by side in one run.
 *
 * 1. Throughput: a 64 MB SSE answer (TEXT_MESSAGE_CONTENT frames of 200–2000 bytes) written in
 *    16–64 KB writes as fast as the page takes them, read with fetch + getReader().
 * 2. The same answer paced by the server at 50 MB/s, far above any model's output: capture costs the
 *    page's thread several milliseconds per megabyte in Chrome (its extension messaging), which an
 *    unpaced read on loopback, done in ~100 ms, cannot absorb; a paced stream leaves the page idle time.
 * 3. Per-chunk delay: 1,000 frames of 1 KB, 2 ms apart, each stamped with its send time; the page
 *    stamps each read. Server and page read the same system clock (timeOrigin + now()).
 *
 * The with-extension figures count only if the worker then holds every byte; otherwise the
 * extension was not in the path and the comparison would be meaningless. What is shared with the
 * WebSocket's bench (capture-socket.ts) is in capture-harness.ts.
 *
 *   npx tsx bench/capture.ts
 */
import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { Rng } from '../test/analyzer/support/prng.ts';
import { delayRows, longAnswer, MB, paced, PACED_MBPS, pacedRows, startServer, throughputRuns, timedFrames, unpacedRows, withBrowsers } from './capture-harness.ts';
import { formatSection, measuresSection, type Measure } from './report.ts';

/** Under the default per-tab cap of 64 MiB (request body included), so nothing is dropped. */
const STREAM_BYTES = 64 * MB;
const WRITE_MIN = 16 * 1024;
const WRITE_MAX = 64 * 1024;

const sse = (event: Record<string, unknown>): string => `data: ${JSON.stringify(event)}\n\n`;

function* writes(body: Buffer): Generator<Buffer> {
  // The same seed for every request, so both browsers get the same write pattern.
  const rng = new Rng(5);
  for (let at = 0; at < body.length; ) {
    const n = rng.int(WRITE_MIN, WRITE_MAX);
    yield body.subarray(at, at + n);
    at += n;
  }
}

export async function captureBench(): Promise<Measure[]> {
  const body = Buffer.from(longAnswer(STREAM_BYTES, sse).join(''));
  const stream = (res: ServerResponse, source: Iterable<Buffer | string> | AsyncIterable<Buffer | string>): void => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
    // pipeline writes only when the socket drained; a page that went away just ends the response.
    pipeline(Readable.from(source), res).catch(() => res.destroy());
  };
  const server = await startServer({
    '/stream': (res) => stream(res, writes(body)),
    '/paced': (res) => stream(res, paced(writes(body))),
    '/timed': (res) => stream(res, (async function* () {
      for await (const batch of timedFrames(sse)) yield batch.join('');
    })()),
  });
  try {
    return await withBrowsers(async (sides, order) => {
      const runs = await throughputRuns(sides, order, server.url, 'throughput', '/stream', body.length);
      const pacedRuns = await throughputRuns(sides, order, server.url, 'throughput', '/paced', body.length);
      const mb = (body.length / MB).toFixed(1);
      return [
        ...unpacedRows('SSE', runs, sides, `${mb} MB, ${WRITE_MIN / 1024}–${WRITE_MAX / 1024} KB writes`),
        ...pacedRows(`SSE paced at ${PACED_MBPS} MB/s`, pacedRuns, sides, `the same ${mb} MB and writes, sent at ${PACED_MBPS} MB/s`),
        ...(await delayRows(sides, order, server.url, 'latency', '/timed', 'chunk')),
      ];
    });
  } finally {
    await server.close();
  }
}

export const CAPTURE_TITLE = 'Capture overhead in Chromium: the page with and without the extension';
export const CAPTURE_NOTES = ['MB = 10^6 bytes; delays are receive time in the page minus send time stamped by the server, same system clock'];

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(formatSection(measuresSection(CAPTURE_TITLE, await captureBench(), CAPTURE_NOTES)));
}
