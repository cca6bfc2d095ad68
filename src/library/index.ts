/**
 * The library, the package's main export: `check`, `analyze`, `reduce` and `diff`. Every command of the CLI
 * is a thin client of it — it parses arguments, reads files and prints; what it concludes comes from here.
 * Browser-free and Node-free, like the core it is built from.
 */
export { analyze, check, exchangesOf, type Checkable, type CheckOptions } from './check.ts';
export { consumerView, diff, DIFFERENCE_KINDS, type Difference, type DifferenceKind, type DiffOptions, type ExchangeSeen, type MessageSeen, type RunSeen, type ToolCallSeen } from './diff.ts';
export { ACCEPT, probe, ProbeError, type Probe, type ProbeOptions, type Redirect, type TransportSeen } from './probe.ts';
export { DEFAULT_BUDGET, DEFAULT_TIME_LIMIT_MS, reduce, ReduceError, type ReduceOptions, type Reduction } from './reduce.ts';
export { fileResult, sessionOf, statusOf, toContract, type Contract, type ContractExchange, type FileResult } from './report.ts';
export { FormatError } from '../formats/index.ts';
export type { CapturedExchange, Chunk } from '../exchange/index.ts';
export type { ExchangeReport, RunReport } from '../analyzer/index.ts';
export type { Finding, ProtocolVersion, Severity } from '../rules/index.ts';
export type { Timing } from '../detail/index.ts';
