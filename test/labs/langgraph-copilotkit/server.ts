/**
 * The LangGraph lab's graph behind CopilotKit: `CopilotRuntime` (`@copilotkit/runtime/v2` 1.75.0,
 * its default in-memory runner) serving `@ag-ui/langgraph`'s LangGraphAgent on the LangGraph API
 * server the LangGraph lab started, through CopilotKit's own fetch handler, REST under
 * /api/copilotkit-langgraph and single-route at /api/copilotkit-langgraph-single.
 * The runtime makes its agent per request (an agents factory, as request-scoped apps configure
 * theirs), in the interrupt style the request's INTERRUPT_STYLE_HEADER names, so that one thread
 * asks in both.
 */
import { LangGraphAgent, type LangGraphAgentConfig } from '@ag-ui/langgraph';
import { CopilotRuntime, createCopilotRuntimeHandler } from '@copilotkit/runtime/v2';
import { INTERRUPTS } from '../langgraph/server.ts';
import { INTERRUPT_STYLE_HEADER } from '../page-api.ts';
import type { Handler } from '../server.ts';

const RUNTIME_PATH = '/api/copilotkit-langgraph';

export function langGraphCopilotKitRoutes(base: LangGraphAgentConfig): [string, Handler][] {
  const runtime = new CopilotRuntime({
    agents: ({ request }) => {
      const style = request.headers.get(INTERRUPT_STYLE_HEADER) === 'outcome' ? 'outcome' : 'legacy';
      return { default: new LangGraphAgent({ ...base, ...INTERRUPTS[style] }) };
    },
  });
  return [
    [`${RUNTIME_PATH}-single`, createCopilotRuntimeHandler({ runtime, basePath: `${RUNTIME_PATH}-single`, mode: 'single-route' })],
    [`${RUNTIME_PATH}/`, createCopilotRuntimeHandler({ runtime, basePath: RUNTIME_PATH, mode: 'multi-route' })],
  ];
}
