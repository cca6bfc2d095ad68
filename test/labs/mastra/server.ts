/**
 * The Mastra lab's agent: a Mastra Agent on the scripted model, with @mastra/core's in-memory MockMemory and
 * working memory (which @ag-ui/mastra bridges to AG-UI shared state), wrapped in @ag-ui/mastra's
 * MastraAgent and served at /api/mastra the way AG-UI's server quickstart does it: parse the run
 * input, run the agent, write each event through @ag-ui/encoder in the encoding the request accepts
 * (SSE for the page's HttpAgent).
 */
import { EventEncoder } from '@ag-ui/encoder';
import { EventType, RunAgentInputSchema, type RunErrorEvent } from '@ag-ui/core';
import { MastraAgent } from '@ag-ui/mastra';
import { Agent } from '@mastra/core/agent';
import { MockMemory } from '@mastra/core/memory';
import { scriptedModel, toolParts } from '../model.ts';
import type { Handler } from '../server.ts';

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
    const encoder = new EventEncoder({ accept: req.headers.get('accept') ?? undefined });
    // Working memory is per resource: one per thread keeps the test's concurrent sessions apart.
    const bridge = new MastraAgent({ agentId: 'lab', agent, resourceId: input.threadId });
    let stop = (): void => undefined;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        const sub = bridge.run(input).subscribe({
          next: (event) => controller.enqueue(encoder.encodeBinary(event)),
          // A failure the agent throws reaches the page as the run's RUN_ERROR, as AG-UI servers report it.
          error: (e: unknown) => {
            const failure: RunErrorEvent = { type: EventType.RUN_ERROR, message: String(e) };
            controller.enqueue(encoder.encodeBinary(failure));
            controller.close();
          },
          complete: () => controller.close(),
        });
        stop = () => sub.unsubscribe();
      },
      cancel: () => stop(),
    });
    return new Response(body, { headers: { 'content-type': encoder.getContentType(), 'cache-control': 'no-cache' } });
  };
  return [['/api/mastra', handler]];
}
