/**
 * What capture costs a page whose agent streams over a WebSocket (#38): the measurement capture.ts makes
 * of HTTP, on a socket, with the harness they share (capture-harness.ts). A `ws` server on 127.0.0.1
 * waits for the page's RunAgentInput frame, then sends one AG-UI event per text frame and closes the
 * socket after RUN_FINISHED.
 *
 * 1. Throughput: an 8 MB answer (TEXT_MESSAGE_CONTENT frames of 200–2000 bytes, some 7,400 of them) sent
 *    as fast as the socket drains, from opening the socket to the last frame. On a socket the cost is per
 *    frame, not per byte: each is a message event the page script records and posts on.
 * 2. The same frames paced at 2 MB/s, some 1,850 frames a second, still ten times the events a model
 *    streams. Not HTTP's 50 MB/s: that is ~45,000 frames a second, more than a plain page takes on two
 *    busy cores (about 7 MB/s, measured), so the pace would not bind and the ratio would be the unpaced one.
 * 3. Per-frame delay: 1,000 frames of 1 KB, 2 ms apart, each stamped with its send time; the page
 *    stamps each message event. Server and page read the same system clock.
 *
 * As over HTTP, the with-extension figures count only if the worker then holds every byte.
 *
 *   npx tsx bench/capture-socket.ts
 */
import { fileURLToPath } from 'node:url';
import { WebSocketServer, type WebSocket } from 'ws';
import { delayRows, longAnswer, MB, paced, pacedRows, startServer, throughputRuns, timedFrames, unpacedRows, withBrowsers } from './capture-harness.ts';
import { formatSection, measuresSection, type Measure } from './report.ts';

const STREAM_BYTES = 8 * MB;
const SOCKET_PACED_MBPS = 2;
/** Past this much unsent, the server waits for the socket to drain, as the HTTP bench's pipeline does. */
const HIGH_WATER = 1 << 20;

const frame = (event: Record<string, unknown>): string => JSON.stringify(event);

/** Sends each frame the source yields, waiting for the socket to drain when it backs up, then closes it. */
async function send(ws: WebSocket, source: Iterable<string> | AsyncIterable<string | string[]>): Promise<void> {
  for await (const item of source) {
    for (const f of typeof item === 'string' ? [item] : item) {
      if (ws.bufferedAmount < HIGH_WATER) ws.send(f);
      else await new Promise<void>((resolve, reject) => ws.send(f, (err) => (err ? reject(err) : resolve())));
    }
  }
  ws.close(1000);
}

export async function socketCaptureBench(): Promise<Measure[]> {
  const frames = longAnswer(STREAM_BYTES, frame);
  const bytes = frames.reduce((n, f) => n + f.length, 0);
  const server = await startServer({});
  const wss = new WebSocketServer({ server: server.http });
  const answers: Record<string, () => Iterable<string> | AsyncIterable<string | string[]>> = {
    '/stream': () => frames,
    '/paced': () => paced(frames, SOCKET_PACED_MBPS),
    '/timed': () => timedFrames(frame),
  };
  wss.on('connection', (ws, req) => {
    const answer = answers[new URL(req.url ?? '/', 'http://127.0.0.1').pathname];
    if (!answer) return ws.close(1008);
    // The run starts once its input arrives, as an agent's would.
    ws.once('message', () => void send(ws, answer()).catch(() => ws.terminate()));
  });
  try {
    return await withBrowsers(async (sides, order) => {
      const what = `${(bytes / MB).toFixed(1)} MB in ${frames.length} text frames, one event each`;
      return [
        ...unpacedRows('WebSocket', await throughputRuns(sides, order, server.url, 'socketThroughput', '/stream', bytes), sides, what),
        ...pacedRows(`WebSocket paced at ${SOCKET_PACED_MBPS} MB/s`, await throughputRuns(sides, order, server.url, 'socketThroughput', '/paced', bytes), sides,
          `the same ${what}, sent at ${SOCKET_PACED_MBPS} MB/s`),
        ...(await delayRows(sides, order, server.url, 'socketLatency', '/timed', 'frame')),
      ];
    });
  } finally {
    for (const ws of wss.clients) ws.terminate();
    await new Promise((resolve) => wss.close(resolve));
    await server.close();
  }
}

export const SOCKET_CAPTURE_TITLE = 'WebSocket capture overhead in Chromium: the page with and without the extension';
export const SOCKET_CAPTURE_NOTES = ['MB = 10^6 bytes; delays are the page\'s message event time minus the send time stamped by the server, same system clock'];

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(formatSection(measuresSection(SOCKET_CAPTURE_TITLE, await socketCaptureBench(), SOCKET_CAPTURE_NOTES)));
}
