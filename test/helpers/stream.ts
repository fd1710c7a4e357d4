/** Listing-stream clients for tests: the real `eventsource` package, and a raw reader for comments. */
import { EventSource } from 'eventsource';
import { expect, vi } from 'vitest';

/** One event as a client saw it. */
export interface SeenEvent {
  id: string;
  type: 'new' | 'gone' | 'resync';
  data: any;
}

/** An open stream that records what it receives. */
export interface StreamClient {
  events: SeenEvent[];
  lastId(): string | undefined;
  /** Resolves once the service has answered with the stream's head (it then follows the catalogue). */
  opened: Promise<void>;
  /** Resolves once `predicate` holds over the events (polling), or rejects after `timeoutMs`. */
  until(predicate: (events: SeenEvent[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): void;
}

/** Opens `/listings/stream` with the key (and a resume id) sent by a custom fetch. */
export function openStream(
  baseUrl: string,
  key: string,
  options: { lastEventId?: string; query?: string } = {},
): StreamClient {
  const events: SeenEvent[] = [];
  let first = true;
  const es = new EventSource(`${baseUrl}/listings/stream${options.query ? `?${options.query}` : ''}`, {
    fetch: (input, init) => {
      const headers: Record<string, string> = {
        ...(init?.headers as Record<string, string>),
        authorization: `Bearer ${key}`,
      };
      // The library keeps the last id only in memory: the first request carries the stored one.
      if (first && options.lastEventId) headers['last-event-id'] = options.lastEventId;
      first = false;
      return fetch(input, { ...init, headers });
    },
  });
  // The service subscribes to the catalogue before it writes the head, so from here nothing is missed.
  const opened = new Promise<void>((resolve) => es.addEventListener('open', () => resolve(), { once: true }));
  for (const type of ['new', 'gone', 'resync'] as const) {
    es.addEventListener(type, (e) => events.push({ id: e.lastEventId, type, data: JSON.parse(e.data) }));
  }
  return {
    events,
    lastId: () => events.filter((e) => e.type !== 'resync').at(-1)?.id,
    opened,
    until: (predicate, timeoutMs = 10_000) =>
      vi.waitFor(() => expect(predicate(events)).toBe(true), { timeout: timeoutMs }),
    close: () => es.close(),
  };
}

/** Reads the raw bytes of a stream (comments included) until `stop` returns true. */
export async function readRaw(
  url: string,
  key: string,
  stop: (text: string) => boolean,
  timeoutMs = 10_000,
): Promise<string> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const response = await fetch(url, {
    headers: { authorization: `Bearer ${key}` },
    signal: controller.signal,
  });
  let text = '';
  try {
    const decoder = new TextDecoder();
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      text += decoder.decode(chunk, { stream: true });
      if (stop(text)) break;
    }
  } catch (error) {
    if (!controller.signal.aborted) throw error;
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  return text;
}
