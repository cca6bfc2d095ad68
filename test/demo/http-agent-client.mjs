// Runs the official @ag-ui/client HttpAgent against a demo agent endpoint and
// prints what its subscriber received, as one `RESULT <json>` line.
//
// Plain JavaScript run by plain node, not tsx: the project's tsconfig sets
// allowJs, which makes tsx resolve fast-json-patch (an @ag-ui/client
// dependency) to the TypeScript source it ships, and that does not load.
//
// argv: <url> <plan json>, plan = { transport: 'sse'|'protobuf', threadId, runId?,
//   messages, state, tools, steps: [{ runId?, resume? }] } — every step runs on one
//   agent, so a resume continues the thread the previous step interrupted.
import { HttpAgent } from '@ag-ui/client';

const [url, planJson] = process.argv.slice(2);
const plan = JSON.parse(planJson);

const agent = new HttpAgent({
  url,
  threadId: plan.threadId,
  initialMessages: plan.messages,
  initialState: plan.state,
  // HttpAgent always sends Accept: text/event-stream; a fetch wrapper is the one place to ask for protobuf.
  ...(plan.transport === 'protobuf' && {
    fetch: (target, init) =>
      fetch(target, { ...init, headers: { ...init.headers, Accept: 'application/vnd.ag-ui.event+proto, text/event-stream' } }),
  }),
});

const runs = [];
for (const step of plan.steps) {
  const events = [];
  try {
    await agent.runAgent(
      { tools: plan.tools, ...(step.runId && { runId: step.runId }), ...(step.resume && { resume: step.resume }) },
      { onEvent: ({ event }) => void events.push(structuredClone(event)) },
    );
    runs.push({ events });
  } catch (err) {
    runs.push({ events, error: err instanceof Error ? err.message : String(err) });
  }
}

process.stdout.write(
  `RESULT ${JSON.stringify({ runs, state: agent.state, messages: agent.messages, pendingInterrupts: agent.pendingInterrupts })}\n`,
);
