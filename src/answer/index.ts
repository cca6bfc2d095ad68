/** The public surface of src/answer/: what the CLI's replay server and the page script build on. */
export { answer, editedSource, encodeEvent, idsOf, LONGEST_WAIT_MS, paced } from './answer.ts';
export type { Answer, AnswerOptions, AnswerSource, Ids, Pace, TimedChunk } from './answer.ts';
export { FAULT_SPECS, faultName, fitsSocket, parseFault, type Fault } from './faults.ts';
export { socketPayload, type SocketPayload } from './socket.ts';
