import { HttpAgent, type Message, type ResumeEntry, type RunAgentInput, type RunAgentParameters } from '@ag-ui/client';
// The pre-1.0 reference client, as current CopilotKit ships it: for the scenarios a pre-1.0 app sends.
import { HttpAgent as PreHttpAgent } from '@ag-ui/client-0.0.59';
import { AGUI_MEDIA_TYPE } from '@ag-ui/proto';
import { demoFrontendTool, resumeEntriesFor, scenarioInfo, type DemoTransport, type ScenarioInfo } from '../scenarios.ts';
import { WebSocketAgent } from './socket-agent.ts';

/** The HTTP bindings a scenario may answer in, or the demo agent's WebSocket, where every scenario goes as JSON text frames. */
type PageTransport = DemoTransport | 'websocket';

export interface DemoRunOptions {
  /** Defaults to the page's transport toggle. */
  transport?: PageTransport;
  /** `websocket` only: the agent closes the socket with 1011 after this many events (`?close=`); defaults to the page's toggle. */
  closeAfter?: number;
  /** `interrupt` only: answer the pending interrupts of the last interrupted thread instead of starting a new one. */
  resume?: 'all' | 'partial';
  /** Milliseconds between events; the agent's default when absent. */
  delay?: number;
  threadId?: string;
  runId?: string;
  /** The agent's origin, when it is not the page's: a replay server (`agui-inspector replay`), say. */
  base?: string;
  /** Request headers the app sends with every run (an `Authorization`, say), as HttpAgent's `headers`. */
  headers?: Record<string, string>;
  /** The run that spawned this one (basic/run-input#identity), for a run tree across exchanges. */
  parentRunId?: string;
}

export interface DemoRunResult {
  /** Every event the HttpAgent delivered to its subscribers, in order. */
  events: unknown[];
  error?: string;
}

export interface DemoApi {
  scenarios: ScenarioInfo[];
  run(scenario: string, opts?: DemoRunOptions): Promise<DemoRunResult>;
}

declare global {
  interface Window {
    demo: DemoApi;
  }
}

/** HttpAgent always asks for SSE; the demo lets the page ask for the binary binding too. */
class DemoHttpAgent extends HttpAgent {
  transport: DemoTransport = 'sse';
  /** HttpAgent sends no parentRunId of its own: an app spawning runs adds it to the input. */
  parentRunId: string | undefined;

  protected override prepareRunAgentInput(parameters?: RunAgentParameters): RunAgentInput {
    const input = super.prepareRunAgentInput(parameters);
    return this.parentRunId === undefined ? input : { ...input, parentRunId: this.parentRunId };
  }

  protected override requestInit(input: RunAgentInput): RequestInit {
    const init = super.requestInit(input);
    if (this.transport === 'sse') return init;
    const headers = new Headers(init.headers);
    headers.set('Accept', `${AGUI_MEDIA_TYPE}, text/event-stream`);
    return { ...init, headers };
  }
}

const prompts: Record<string, string> = {
  chat: 'Hi there, who are you?',
  tools: 'What is the weather in Lisbon? Show it on my page.',
  state: 'Plan a three-day trip to Lisbon.',
  interrupt: 'Send the quarterly report to finance.',
  replay: 'Where were we?',
};

const scenarios = scenarioInfo();
const log = document.querySelector<HTMLOListElement>('#event-log')!;
const status = document.querySelector<HTMLParagraphElement>('#status')!;
const interruptsView = document.querySelector<HTMLDivElement>('#interrupts')!;
const resumeAll = document.querySelector<HTMLButtonElement>('#resume-all')!;
const resumePartial = document.querySelector<HTMLButtonElement>('#resume-partial')!;

/** The thread the last `interrupt` run left waiting, kept so Resume continues it. */
let interruptedThread: DemoHttpAgent | undefined;

function selectedTransport(): PageTransport {
  const value = document.querySelector<HTMLInputElement>('input[name="transport"]:checked')?.value;
  return value === 'protobuf' || value === 'websocket' ? value : 'sse';
}

/** How many events a socket run gets before the agent closes it, when the page's toggle asks for a close mid-run. */
const CLOSE_AFTER = 3;

function agentUrl(scenario: string, delay: number | undefined, base = location.origin): string {
  const url = new URL(`/agent/${encodeURIComponent(scenario)}`, base);
  if (delay !== undefined) url.searchParams.set('delay', String(delay));
  return url.href;
}

function logLine(text: string, className?: string): void {
  const item = document.createElement('li');
  item.textContent = text;
  if (className) item.className = className;
  log.append(item);
  log.scrollTop = log.scrollHeight;
}

function showInterrupts(): void {
  const pending = interruptedThread?.pendingInterrupts ?? [];
  resumeAll.disabled = resumePartial.disabled = pending.length === 0;
  interruptsView.textContent =
    pending.length === 0
      ? 'No pending interrupts: run "interrupt" first.'
      : `Waiting for: ${pending.map((i) => `${i.id} (${i.message ?? i.reason})`).join('; ')}`;
}

/** Runs `execute` with an event listener, logging each event; what the page's client delivered, or why it failed. */
async function collect(scenario: string, execute: (onEvent: (params: { event: { type: string } }) => void) => Promise<unknown>): Promise<DemoRunResult> {
  status.textContent = `Running ${scenario}…`;
  const events: unknown[] = [];
  try {
    await execute(({ event }) => {
      events.push(structuredClone(event));
      const { type, ...rest } = event;
      logLine(`${type} ${JSON.stringify(rest)}`);
    });
    status.textContent = `${scenario}: finished with ${events.length} events.`;
    return { events };
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    logLine(`error: ${error}`, 'error');
    status.textContent = `${scenario}: failed after ${events.length} events: ${error}`;
    return { events, error };
  }
}

/** A run as a pre-1.0 app makes it: @ag-ui/client 0.0.59 sends no protocolVersion (SSE only). */
function runPre10(scenario: string, opts: DemoRunOptions): Promise<DemoRunResult> {
  const agent = new PreHttpAgent({
    url: agentUrl(scenario, opts.delay, opts.base),
    initialMessages: [{ id: 'user-1', role: 'user', content: prompts[scenario] ?? 'Hello!' }],
    ...(opts.threadId === undefined ? {} : { threadId: opts.threadId }),
  });
  logLine(`${scenario} over sse, sent by @ag-ui/client 0.0.59`, 'run');
  return collect(scenario, (onEvent) => agent.runAgent(opts.runId === undefined ? {} : { runId: opts.runId }, { onEvent }));
}

/** A run over the demo agent's WebSocket: a new thread each time (interrupts are resumed over HTTP). */
function runOverSocket(scenario: string, opts: DemoRunOptions): Promise<DemoRunResult> {
  if (opts.resume) return Promise.resolve({ events: [], error: 'resume is sent over HTTP: pick SSE or Protobuf' });
  const closeAfter = opts.closeAfter ?? (document.querySelector<HTMLInputElement>('#close-mid-run')?.checked ? CLOSE_AFTER : undefined);
  const url = new URL(agentUrl(scenario, opts.delay, opts.base));
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  if (closeAfter !== undefined) url.searchParams.set('close', String(closeAfter));
  const agent = new WebSocketAgent({
    url: url.href,
    initialMessages: [{ id: 'user-1', role: 'user', content: prompts[scenario] ?? 'Hello!' }],
    initialState: { preferences: { units: 'metric', currency: 'EUR' } },
    ...(opts.threadId === undefined ? {} : { threadId: opts.threadId }),
  });
  logLine(`${scenario} over websocket${closeAfter === undefined ? '' : ` (closed after ${closeAfter} events)`}`, 'run');
  return collect(scenario, (onEvent) => agent.runAgent({ tools: [demoFrontendTool], ...(opts.runId === undefined ? {} : { runId: opts.runId }) }, { onEvent }));
}

async function run(scenario: string, opts: DemoRunOptions = {}): Promise<DemoRunResult> {
  const info = scenarios.find((s) => s.name === scenario);
  if (info?.client === 'pre-1.0') return runPre10(scenario, opts);
  const transport = opts.transport ?? selectedTransport();
  if (transport === 'websocket') return runOverSocket(scenario, opts);
  let agent: DemoHttpAgent;
  let resume: ResumeEntry[] | undefined;
  if (opts.resume) {
    if (scenario !== 'interrupt') return { events: [], error: 'resume applies to the "interrupt" scenario only' };
    if (!interruptedThread || interruptedThread.pendingInterrupts.length === 0) {
      return { events: [], error: 'no pending interrupts: run "interrupt" first' };
    }
    agent = interruptedThread;
    agent.url = agentUrl(scenario, opts.delay, opts.base);
    if (opts.headers) agent.headers = opts.headers;
    resume = resumeEntriesFor(agent.pendingInterrupts, opts.resume);
    // The official client refuses an incomplete resume before sending it, as a
    // consumer must. Forgetting the interrupts makes this page the defective
    // consumer the Inspector is there to catch.
    if (opts.resume === 'partial') agent.pendingInterrupts = [];
  } else {
    const initialMessages: Message[] = [{ id: 'user-1', role: 'user', content: prompts[scenario] ?? 'Hello!' }];
    agent = new DemoHttpAgent({
      url: agentUrl(scenario, opts.delay, opts.base),
      initialMessages,
      initialState: { preferences: { units: 'metric', currency: 'EUR' } },
      ...(opts.threadId === undefined ? {} : { threadId: opts.threadId }),
      ...(opts.headers === undefined ? {} : { headers: opts.headers }),
    });
    if (scenario === 'interrupt') interruptedThread = agent;
  }
  agent.transport = transport;
  agent.parentRunId = opts.parentRunId;

  const sseOnly = info !== undefined && !info.transports.includes('protobuf');
  logLine(
    `${scenario}${opts.resume ? ` (resume: ${opts.resume})` : ''} over ${transport}` +
      (transport === 'protobuf' && sseOnly ? ' (this scenario answers SSE only)' : ''),
    'run',
  );
  try {
    return await collect(scenario, (onEvent) =>
      agent.runAgent(
        {
          tools: [demoFrontendTool],
          ...(resume === undefined ? {} : { resume }),
          ...(opts.runId === undefined ? {} : { runId: opts.runId }),
        },
        { onEvent },
      ),
    );
  } finally {
    showInterrupts();
  }
}

function renderScenarios(): void {
  const list = document.querySelector<HTMLUListElement>('#scenarios')!;
  for (const s of scenarios) {
    const item = document.createElement('li');
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = s.name;
    button.setAttribute('aria-describedby', `about-${s.name}`);
    button.addEventListener('click', () => void run(s.name));
    const about = document.createElement('div');
    about.id = `about-${s.name}`;
    about.textContent = s.description;
    const shows = document.createElement('small');
    shows.textContent = `Inspector: ${s.shows}${s.transports.includes('protobuf') ? '' : ' (SSE only)'}`;
    about.append(shows);
    item.append(button, about);
    list.append(item);
  }
}

renderScenarios();
resumeAll.addEventListener('click', () => void run('interrupt', { resume: 'all' }));
resumePartial.addEventListener('click', () => void run('interrupt', { resume: 'partial' }));
document.querySelector<HTMLButtonElement>('#clear-log')!.addEventListener('click', () => log.replaceChildren());

window.demo = { scenarios, run };
