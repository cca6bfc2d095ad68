/**
 * The Mastra lab's agent: a Mastra Agent on the scripted model, with @mastra/core's in-memory MockMemory and
 * working memory (which @ag-ui/mastra bridges to AG-UI shared state), wrapped in @ag-ui/mastra's
 * MastraAgent and served at /api/mastra the way AG-UI's server quickstart does it (sse.ts).
 */
import { RunAgentInputSchema } from '@ag-ui/core';
import { MastraAgent } from '@ag-ui/mastra';
import { Agent } from '@mastra/core/agent';
import { MockMemory } from '@mastra/core/memory';
import { scriptedModel, toolParts } from '../model.ts';
import type { Handler } from '../server.ts';
import { eventResponse } from '../sse.ts';

export function mastraRoutes(): [string, Handler][] {
  const model = scriptedModel({
    frontendTool: 'showWeather',
    // Mastra offers the model an updateWorkingMemory tool; @ag-ui/mastra streams its argument as shared state.
    remember: () => toolParts('call-memory', 'updateWorkingMemory', { memory: JSON.stringify({ likes: ['tea'], mood: 'curious' }) }),
  });
  const agent = new Agent({
    id: 'lab',
    name: 'lab',
    instructions: 'You are the lab assistant.',
    model,
    memory: new MockMemory({ enableWorkingMemory: true }),
  });
  const handler: Handler = async (req) => {
    const input = RunAgentInputSchema.parse(await req.json());
    // Working memory is per resource: one per thread keeps the test's concurrent sessions apart.
    const bridge = new MastraAgent({ agentId: 'lab', agent, resourceId: input.threadId });
    return eventResponse(req, bridge.run(input));
  };
  return [['/api/mastra', handler]];
}
