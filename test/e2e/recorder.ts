/**
 * A recording reverse proxy on 127.0.0.1: the page talks to the proxy, the proxy to the real server,
 * and every request body and response byte is kept exactly as it crossed the wire, so tests can
 * compare what the extension captured with what was actually sent.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';

export interface Recorded {
  method: string;
  path: string;
  requestBody: Buffer;
  status: number;
  contentType: string;
  responseBody: Buffer;
  done: Promise<void>;
}

export interface Recorder {
  url: string;
  exchanges: Recorded[];
  close(): Promise<void>;
}

export async function startRecorder(target: string): Promise<Recorder> {
  const upstream = new URL(target);
  const exchanges: Recorded[] = [];
  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    const out: Buffer[] = [];
    let finish!: () => void;
    const rec: Recorded = {
      method: req.method ?? 'GET', path: req.url ?? '/', requestBody: Buffer.alloc(0), status: 0, contentType: '',
      responseBody: Buffer.alloc(0), done: new Promise((r) => (finish = r)),
    };
    exchanges.push(rec);
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      rec.requestBody = Buffer.concat(parts);
      const headers = { ...req.headers, host: upstream.host };
      const up = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers }, (ures) => {
        rec.status = ures.statusCode ?? 0;
        rec.contentType = String(ures.headers['content-type'] ?? '');
        res.writeHead(rec.status, ures.headers);
        res.flushHeaders();
        ures.on('data', (c: Buffer) => {
          out.push(c);
          res.write(c);
        });
        ures.on('end', () => {
          rec.responseBody = Buffer.concat(out);
          res.end();
          finish();
        });
        ures.on('error', () => {
          rec.responseBody = Buffer.concat(out);
          res.destroy();
          finish();
        });
      });
      up.on('error', () => {
        res.destroy();
        finish();
      });
      up.end(rec.requestBody);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('recorder has no TCP address');
  return {
    url: `http://127.0.0.1:${address.port}`,
    exchanges,
    close: () => new Promise<void>((r) => {
      server.close(() => r());
      server.closeAllConnections();
    }),
  };
}
