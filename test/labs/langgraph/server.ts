/**
 * The LangGraph lab's AG-UI endpoints: `@ag-ui/langgraph`'s LangGraphAgent in front of the LangGraph
 * API server (api.ts, its own process), answered as AG-UI's server quickstart does it (sse.ts).
 * Mounted twice, once per interrupt convention the adapter offers (INTERRUPTS): `/api/langgraph`
 * and `/api/langgraph-outcome`. The LangGraph-behind-CopilotKit lab serves the same API server
 * through `base`.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { RunAgentInputSchema } from '@ag-ui/core';
import { LangGraphAgent, type LangGraphAgentConfig } from '@ag-ui/langgraph';
import type { InterruptStyle } from '../page-api.ts';
import type { Handler } from '../server.ts';
import { eventResponse } from '../sse.ts';

export interface LangGraphRoutes {
  routes: [string, Handler][];
  /** What a LangGraphAgent needs to reach the graph on the API server this lab started. */
  base: LangGraphAgentConfig;
  close(): Promise<void>;
}

/**
 * The adapter's two interrupt conventions: its defaults (a `CUSTOM` `on_interrupt` event, then a
 * plain `RUN_FINISHED`) and `emitInterruptOutcome` (RUN_FINISHED's interrupt outcome only).
 */
export const INTERRUPTS = {
  legacy: {},
  outcome: { emitInterruptOutcome: true, enableLegacyOnInterruptEvent: false },
} satisfies Record<InterruptStyle, Partial<LangGraphAgentConfig>>;

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
      ['/api/langgraph-outcome', handler({ ...base, ...INTERRUPTS.outcome })],
      ['/api/langgraph', handler({ ...base, ...INTERRUPTS.legacy })],
    ],
    base,
    close: api.close,
  };
}
