/**
 * The LangGraph lab's AG-UI endpoints: `@ag-ui/langgraph`'s LangGraphAgent in front of the LangGraph
 * API server (api.ts, its own process), answered as AG-UI's server quickstart does it (sse.ts).
 * Mounted twice, once per interrupt convention the adapter offers:
 * `/api/langgraph` with its defaults (a `CUSTOM` `on_interrupt` event, then a plain `RUN_FINISHED`)
 * and `/api/langgraph-outcome` with `emitInterruptOutcome` (RUN_FINISHED's interrupt outcome only).
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { RunAgentInputSchema } from '@ag-ui/core';
import { LangGraphAgent, type LangGraphAgentConfig } from '@ag-ui/langgraph';
import type { Handler } from '../server.ts';
import { eventResponse } from '../sse.ts';

export interface LangGraphRoutes {
  routes: [string, Handler][];
  close(): Promise<void>;
}

/** Starts the LangGraph API server and resolves once it listens. */
async function startApi(): Promise<{ url: string; close(): Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./api.ts', import.meta.url))], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the LangGraph API server exited (${code}) before it listened`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const m = /^listening (\S+)$/.exec(line);
      if (m) resolve(m[1]!);
    });
  });
  return {
    url,
    close: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

function handler(config: LangGraphAgentConfig): Handler {
  return async (req) => {
    const input = RunAgentInputSchema.parse(await req.json());
    // One agent per request, as CopilotKit's runtime clones its agent per run.
    const agent = new LangGraphAgent(config);
    // The page stopped: cancel the LangGraph run too, as the adapter's abortRun does.
    return eventResponse(req, agent.run(input), () => agent.abortRun());
  };
}

export async function langGraphRoutes(): Promise<LangGraphRoutes> {
  const api = await startApi();
  const base = { deploymentUrl: api.url, graphId: 'agent' };
  return {
    routes: [
      ['/api/langgraph-outcome', handler({ ...base, emitInterruptOutcome: true, enableLegacyOnInterruptEvent: false })],
      ['/api/langgraph', handler(base)],
    ],
    close: api.close,
  };
}
