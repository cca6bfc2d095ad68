/** The detail of one exchange that every view reads: its public surface. */
export { ExchangeReading, overviewOf, SessionReader, type ReadingOptions } from './reading.ts';
export * from './types.ts';
export { composeResend, composeResume, composeToolResult, messageOf, openInterrupts, pendingToolCalls, type OpenInterrupt } from './compose.ts';
export { MAX_CONV_CHANGES } from './conversation.ts';
export { diffValues, stateDiff, valueAt, MAX_CHANGES, type ChangeKind, type DeltaOp, type OpOutcome, type StateChange, type StateDiff } from './state-diff.ts';
export { runTree, type RunTreeNode, type SubagentOutcome, type SubagentRow, type ThreadExchange } from './run-tree.ts';
export { DEFAULT_STALL_MS, SPAN_KINDS, spansOf, ThreadTiming, TimingReading } from './timing.ts';
export { analyzeOne, analyzeSession, type SessionExchange, type SessionOptions } from './session.ts';
export { CheckedSchema } from './json-schema.ts';
export { overview, PROBLEM_GROUPS, type Overview, type OverviewExchange, type Problem, type ProblemGroup, type ProblemView } from './overview.ts';
export { declaredTools, toolSide } from './tool-side.ts';
export { ToolThread, type RejectedCall } from './tools.ts';
export { judgeEdited, type EditedFinding, type EditedVerdict } from './edited.ts';
