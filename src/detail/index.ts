/** The detail of one exchange that every view reads: its public surface. */
export { ExchangeReading, SessionReader, type ReadingOptions } from './reading.ts';
export * from './types.ts';
export { DETAIL_PARTS } from './types.ts';
export type { ConvMessage, DetailPart, Ev, ExchangeDetail, ExchangeReport, FieldRow, InputDetail, NegotiationVerdict, PendingInterrupt, RunRow, StateRow, StrippedMember } from './types.ts';
