/**
 * The LangGraph API server that `langgraphjs dev` runs (`@langchain/langgraph-api`'s startServer,
 * in-memory storage persisted to a temporary folder), serving graph.ts as graph `agent` on
 * 127.0.0.1 at a random port. Run as its own process: the server's run workers poll forever and
 * its graph registry is per process. It prints `listening <url>` once it serves.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

process.env.LOG_LEVEL ??= 'error';
const cwd = mkdtempSync(join(tmpdir(), 'agui-labs-langgraph-'));
const { startServer } = await import('@langchain/langgraph-api/server');
const { host, cleanup } = await startServer({
  port: 0,
  host: '127.0.0.1',
  nWorkers: 4,
  cwd,
  graphs: { agent: `${fileURLToPath(new URL('./graph.ts', import.meta.url))}:graph` },
});
process.stdout.write(`listening http://${host}\n`);
process.on('SIGTERM', () => {
  void cleanup().finally(() => {
    rmSync(cwd, { recursive: true, force: true });
    process.exit(0);
  });
});
