/**
 * Reads a `text/event-stream` body with `eventsource-parser`: the body is decoded in small pieces,
 * each event carries the last event id as the EventSource standard keeps it (an event without an
 * `id` field has the one before), and reading stops when the caller says so or the body ends.
 */
import { createParser } from 'eventsource-parser';

/** One event of the stream. `type` is the `event` field (`message` when absent). */
export interface StreamEvent {
  type: string;
  /** The last event id seen on this connection, this event's own when it has one. */
  lastEventId: string;
  data: string;
}

/** What a reader does with the body. */
export interface EventReader {
  /** Called with each chunk before it is parsed; reading waits for it (backpressure). */
  onChunk(chunk: Uint8Array): Promise<void> | void;
  /** Called with each event; returning true stops the reading after it. */
  onEvent(event: StreamEvent): boolean;
}

/** Largest piece of the body decoded at once. */
const MAX_PIECE_BYTES = 16_384;

/** Reads `body` until `reader.onEvent` returns true (`stopped`) or the body ends (`ended`). */
export async function readEvents(
  body: AsyncIterable<Uint8Array>,
  reader: EventReader,
): Promise<'ended' | 'stopped'> {
  let lastEventId = '';
  let stopped = false;
  const parser = createParser({
    onEvent(message) {
      if (stopped) return;
      if (message.id !== undefined) lastEventId = message.id;
      stopped = reader.onEvent({ type: message.event ?? 'message', lastEventId, data: message.data });
    },
  });
  const decoder = new TextDecoder();
  for await (const chunk of body) {
    await reader.onChunk(chunk);
    // In pieces: a string decoded from a whole socket read (64 kB, UTF-16 once a ★ is in it) is a
    // large heap object, which only a full collection frees.
    for (let start = 0; start < chunk.length && !stopped; start += MAX_PIECE_BYTES) {
      parser.feed(decoder.decode(chunk.subarray(start, start + MAX_PIECE_BYTES), { stream: true }));
    }
    if (stopped) return 'stopped';
  }
  return 'ended';
}
