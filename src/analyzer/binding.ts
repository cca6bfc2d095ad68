import { defineRules } from '../rules/index.ts';
import type { SocketClose } from '../exchange/index.ts';
import type { FindingSink } from './sink.ts';

/**
 * What is said of an exchange that ran on a custom binding. The spec defines only the HTTP bindings; a
 * custom one keeps the event model and the binding contract, and only HTTP's mechanics (the status, the
 * SSE and protobuf framing of a response body) do not apply to it (basic/transports#custom-transports).
 */
export const BINDING_RULES = defineRules({
  customBinding: {
    id: 'transport/custom-binding',
    category: 'transport',
    severity: 'info',
    fatal: false,
    spec: 'basic/transports#custom-transports',
    title: 'The exchange ran on a custom binding (a WebSocket): the HTTP binding\'s rules were not applied',
  },
});

/** The note on a WebSocket exchange, with the close that cut its run short when one did. */
export function reportWebSocket(sink: FindingSink, cutBy: SocketClose | null): void {
  const close = cutBy === null ? '' : ` The socket closed${cutBy.code === null ? '' : ` with code ${cutBy.code}`}${cutBy.reason === '' ? '' : ` (${JSON.stringify(cutBy.reason)})`} before the requested run's terminal event.`;
  sink.report(BINDING_RULES.customBinding, `The exchange ran on a WebSocket, a custom binding: the input and the events are judged as on any binding, the HTTP binding's status and body framing rules are not applied.${close}`);
}
