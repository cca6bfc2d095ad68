/**
 * How the labs without a framework runtime answer a run (Mastra, LangGraph): the agent's events
 * written through @ag-ui/encoder in the encoding the request accepts, as AG-UI's server quickstart
 * does it. A failure the agent throws reaches the page as the run's RUN_ERROR, as AG-UI servers
 * report it; a page that goes away stops the agent.
 */
import { EventEncoder } from '@ag-ui/encoder';
import { EventType, type BaseEvent, type RunErrorEvent } from '@ag-ui/core';

/** What an agent's `run(input)` returns (an rxjs Observable), as far as the answer needs it. */
interface Events {
  subscribe(observer: { next(e: BaseEvent): void; error(e: unknown): void; complete(): void }): { unsubscribe(): void };
}

export function eventResponse(req: Request, events: Events, onCancel: () => void = () => undefined): Response {
  const encoder = new EventEncoder({ accept: req.headers.get('accept') ?? undefined });
  let stop = (): void => undefined;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const sub = events.subscribe({
        next: (event) => controller.enqueue(encoder.encodeBinary(event)),
        error: (e: unknown) => {
          const failure: RunErrorEvent = { type: EventType.RUN_ERROR, message: String(e) };
          controller.enqueue(encoder.encodeBinary(failure));
          controller.close();
        },
        complete: () => controller.close(),
      });
      stop = () => {
        onCancel();
        sub.unsubscribe();
      };
    },
    cancel: () => stop(),
  });
  return new Response(body, { headers: { 'content-type': encoder.getContentType(), 'cache-control': 'no-cache' } });
}
