/**
 * A recorded session read as the CLI prints it: each exchange's report, its timing, and the tool calls
 * its declared schemas reject, in the order they began, each from one pass over its chunks. What an output
 * does not print is not read: junit and sarif print neither timing nor the summary the rejected calls
 * feed (`timing`, `tools` false).
 */
import { analyzeExchange, ThreadTracker, type ExchangeAnalyzerOptions, type ExchangeReport } from '../analyzer/index.ts';
import { sentAtOf, type CapturedExchange, type Chunk } from '../exchange/index.ts';
import type { ProtocolVersion } from '../rules/index.ts';
import { conversationOf } from './conversation.ts';
import { ThreadTiming, TimingReading, type Timing } from './timing.ts';
import { ToolCallsReading, type RejectedCall } from './tools.ts';

export interface SessionOptions {
  as?: ProtocolVersion;
  stallMs?: number;
  /** Read each exchange's timing (default true); an exchange whose source recorded no times has none anyway. */
  timing?: boolean;
  /** Check tool calls' arguments against their declared schemas (default true). */
  tools?: boolean;
}

export interface SessionExchange {
  report: ExchangeReport;
  timing: Timing | null;
  /** Absent when `tools` was false. */
  rejected?: RejectedCall[];
}

type Hooks = Pick<ExchangeAnalyzerOptions, 'onInput' | 'onReceived' | 'onArrival' | 'onItem'>;

/**
 * The tool reading rides on `onItem`, not `onEmit`: the calls' starts, ends and results are all items, so
 * it is called for one event in six, and its arguments are read from the consumer's conversation at the end.
 * Only calls of declared tools can be rejected: with none declared, it is not called at all.
 */
function withTools(hooks: Hooks | undefined, tools: ToolCallsReading): Hooks {
  const { onInput, onItem } = hooks ?? {};
  let watching = false;
  return {
    ...hooks,
    onInput: (input) => {
      onInput?.(input);
      tools.hooks.onInput(input.value);
      watching = tools.declaresAny;
    },
    onItem: (ev, index, content) => {
      onItem?.(ev, index, content);
      if (watching && !content) tools.hooks.onEmit(ev, index);
    },
  };
}

/** One exchange read alone, as a response body file is (no session around it): the first of a session of one. */
export function analyzeOne(x: Omit<CapturedExchange, 'chunks'>, chunks: Iterable<Chunk>, o: SessionOptions = {}): SessionExchange {
  return new SessionAnalysis(o).read(x, chunks);
}

/** A session's exchanges read in order: one thread tracker spans them, so each input is judged against what the earlier ones left. */
class SessionAnalysis {
  private readonly thread = new ThreadTracker();
  private readonly threadTiming = new ThreadTiming();

  constructor(private readonly o: SessionOptions) {}

  read(x: Omit<CapturedExchange, 'chunks'>, chunks: Iterable<Chunk>): SessionExchange {
    const o = this.o;
    const timing = x.arrival && o.timing !== false ? new TimingReading({ arrival: x.arrival, stallMs: o.stallMs, thread: this.threadTiming, sentAt: sentAtOf(x) }) : null;
    const tools = o.tools !== false ? new ToolCallsReading(x) : null;
    let rejected: RejectedCall[] | undefined;
    const report = analyzeExchange(x, timing ? timing.tap(chunks) : chunks, {
      as: o.as,
      thread: this.thread,
      hooks: tools ? withTools(timing?.hooks, tools) : timing?.hooks,
      read: tools ? (a) => (rejected = tools.rejected(() => conversationOf(a.consumer), a.version)) : undefined,
    });
    timing?.end();
    return { report, timing: timing?.timing() ?? null, ...(rejected ? { rejected } : {}) };
  }
}

/** Every exchange of a recorded session, in the order they began. */
export function analyzeSession(exchanges: readonly CapturedExchange[], o: SessionOptions = {}): SessionExchange[] {
  const session = new SessionAnalysis(o);
  return exchanges.map((x) => session.read(x, x.chunks));
}
