/**
 * The labs' server on 127.0.0.1 (random port): each lab's pages, bundled with esbuild from the
 * lab's own packages, and each lab's agent endpoints, mounted the way an app mounts them. It logs
 * every request that carries an AG-UI run input — bare or in CopilotKit's single-route envelope —
 * so the test can compare what the Inspector captured with what the server saw.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { copilotKitRoutes } from './copilotkit/server.ts';
import { langGraphRoutes } from './langgraph/server.ts';
import { langGraphCopilotKitRoutes } from './langgraph-copilotkit/server.ts';
import { mastraRoutes } from './mastra/server.ts';

/** A route answers a Fetch request, as Hono apps and framework handlers do. */
export type Handler = (req: Request) => Promise<Response>;

/** One request that carried a run input, in the order the server received them. */
export interface LoggedRun {
  path: string;
  /** The envelope's method for the single-route transport, otherwise null. */
  method: string | null;
  threadId: string;
  runId: string;
}

export interface LabServer {
  url: string;
  log: LoggedRun[];
  close(): Promise<void>;
}

const HERE = fileURLToPath(new URL('./', import.meta.url));

/** The run input a request body carries, bare or enveloped, if it carries one. */
export function runOf(path: string, body: string): LoggedRun | null {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return null;
  }
  if (!json || typeof json !== 'object') return null;
  const o = json as Record<string, unknown>;
  const envelope = typeof o.method === 'string' && o.body && typeof o.body === 'object';
  const input = (envelope ? o.body : o) as Record<string, unknown>;
  if (typeof input.threadId !== 'string' || typeof input.runId !== 'string' || !Array.isArray(input.messages)) return null;
  return { path, method: envelope ? (o.method as string) : null, threadId: input.threadId, runId: input.runId };
}

async function bundle(entry: string): Promise<string> {
  const out = await build({
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'warning',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  return out.outputFiles[0]!.text;
}

const page = (lab: string) => `<!doctype html><html><head><meta charset="utf-8"><title>${lab} lab</title></head>
<body><main id="log"></main><script type="module" src="/${lab}.js"></script></body></html>`;

function toFetch(req: IncomingMessage, body: Buffer, abort: AbortSignal, origin: string): Request {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  return new Request(new URL(req.url ?? '/', origin), { method: req.method, headers, body: hasBody ? new Uint8Array(body) : undefined, signal: abort });
}

async function send(res: ServerResponse, r: Response): Promise<void> {
  res.writeHead(r.status, Object.fromEntries(r.headers));
  if (!r.body) return void res.end();
  const reader = r.body.getReader();
  res.on('close', () => void reader.cancel().catch(() => undefined));
  for (;;) {
    const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
    if (done) break;
    res.write(value);
  }
  res.end();
}

/** Each lab's page is `<lab>/page.ts`, served as `/<lab>.html` and `/<lab>.js`. */
const PAGES = ['copilotkit', 'mastra', 'langgraph', 'langgraph-copilotkit'];

export async function startLabServer(): Promise<LabServer> {
  const [langgraph, ...scripts] = await Promise.all([langGraphRoutes(), ...PAGES.map((lab) => bundle(`${HERE}${lab}/page.ts`))]);
  const routes: [prefix: string, handler: Handler][] = [...copilotKitRoutes(), ...mastraRoutes(), ...langgraph.routes, ...langGraphCopilotKitRoutes(langgraph.base)];
  const statics: Record<string, [type: string, body: string]> = Object.fromEntries(
    PAGES.flatMap((lab, i) => [
      [`/${lab}.html`, ['text/html', page(lab)]],
      [`/${lab}.js`, ['text/javascript', scripts[i]!]],
    ]),
  );
  const log: LoggedRun[] = [];
  let origin = '';
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', origin).pathname;
      const fixed = statics[path];
      if (fixed) return void res.writeHead(200, { 'content-type': fixed[0] }).end(fixed[1]);
      const route = routes.find(([prefix]) => path.startsWith(prefix));
      if (!route) return void res.writeHead(404).end();
      const body = Buffer.concat(chunks);
      const run = req.method === 'POST' ? runOf(path, body.toString('utf8')) : null;
      if (run) log.push(run);
      const abort = new AbortController();
      res.on('close', () => abort.abort());
      route[1](toFetch(req, body, abort.signal, origin))
        .then((r) => send(res, r))
        .catch((e: unknown) => {
          if (!res.headersSent) res.writeHead(500);
          res.end(String(e));
        });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: origin,
    log,
    close: async () => {
      await new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      });
      await langgraph.close();
    },
  };
}
