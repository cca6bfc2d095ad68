/**
 * An AG-UI agent over the browser's WebSocket: the official `@ag-ui/client` 1.0.0 `AbstractAgent` with
 * its `run` on a socket, as an app with a custom binding writes one (basic/transports#custom-transports).
 * A run opens a socket, sends the RunAgentInput as one JSON text frame, and emits each event frame; it
 * completes after the requested run's terminal event and errors when the socket closes before it, which
 * is how a consumer tells a truncated run from a finished one on a socket. The client's own pipeline
 * (verification, state and message application) is AbstractAgent's, as it is for HttpAgent.
 */
import { AbstractAgent, type AgentConfig, type BaseEvent, type RunAgentInput } from '@ag-ui/client';
import { Observable } from 'rxjs';
import { RunEnd } from '../../src/exchange/run-end.ts';

export class WebSocketAgent extends AbstractAgent {
  /** `ws:` or `wss:`, the demo agent's `/agent/<scenario>` endpoint. */
  url: string;

  constructor(config: AgentConfig & { url: string }) {
    super(config);
    this.url = config.url;
  }

  run(input: RunAgentInput): Observable<BaseEvent> {
    return new Observable<BaseEvent>((subscriber) => {
      const socket = new WebSocket(this.url);
      const end = new RunEnd(input.runId);
      let ended = false;
      socket.addEventListener('open', () => socket.send(JSON.stringify(input)));
      socket.addEventListener('message', ({ data }) => {
        if (ended) return;
        let event: BaseEvent;
        try {
          if (typeof data !== 'string') throw new Error('a binary frame');
          event = JSON.parse(data) as BaseEvent;
        } catch (err) {
          ended = true;
          socket.close(1003, 'expected JSON text frames');
          return subscriber.error(new Error(`the agent sent what is no JSON event: ${err instanceof Error ? err.message : String(err)}`));
        }
        subscriber.next(event);
        if (end.endedBy(event)) {
          ended = true;
          subscriber.complete();
          socket.close(1000);
        }
      });
      socket.addEventListener('close', ({ code, reason }) => {
        if (ended) return;
        ended = true;
        subscriber.error(new Error(`the socket closed before the run ended (${code}${reason ? ` ${reason}` : ''})`));
      });
      // An unsubscribe before the end (abortRun) closes the socket: the run's end is no longer awaited.
      return () => {
        ended = true;
        if (socket.readyState === WebSocket.CONNECTING || socket.readyState === WebSocket.OPEN) socket.close(1000);
      };
    });
  }
}
