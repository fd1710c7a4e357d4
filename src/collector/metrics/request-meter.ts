/**
 * Counts the collector's HTTP requests to the API as they go through its undici dispatcher, per
 * source (see source-context.ts): answers by status, network failures, and the bytes of the
 * answers received.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Duplex } from 'node:stream';
import { DecoratorHandler, type Dispatcher } from 'undici';
import { currentSource } from './source-context.js';

/** What the meter reports each request to (each observer hears what it implements). */
export interface RequestObserver {
  /** An answer arrived with `status`, the upstream's `Date` and the times around it. */
  answered?(source: string, status: number, timing: AnswerTiming): void;
  /** The request failed before an answer (connection refused, reset, timed out). */
  failed?(source: string): void;
  /** Bytes of an answer's body arrived. */
  received?(source: string, bytes: number): void;
}

/** When a request was sent and its answer's head arrived (epoch ms), with the upstream's `Date`. */
export interface AnswerTiming {
  sentAtMs: number;
  answeredAtMs: number;
  dateHeader: string | undefined;
}

/** A dispatcher interceptor that reports every request to `observers`, labelled with its source. */
export function meterRequests(...observers: RequestObserver[]): Dispatcher.DispatcherComposeInterceptor {
  const observer: Required<RequestObserver> = {
    answered: (...args) => {
      for (const o of observers) o.answered?.(...args);
    },
    failed: (source) => {
      for (const o of observers) o.failed?.(source);
    },
    received: (source, bytes) => {
      for (const o of observers) o.received?.(source, bytes);
    },
  };
  return (dispatch) => (options, handler) => {
    const source = currentSource();
    return dispatch(options, new MeteredHandler(handler, source, observer));
  };
}

/**
 * Reports the answer, then hands every step on to the request's own handler (adapted by undici's
 * DecoratorHandler, which also takes the older handler style fetch may use).
 */
class MeteredHandler implements Dispatcher.DispatchHandler {
  private readonly sentAtMs = Date.now();
  private readonly inner: Required<Dispatcher.DispatchHandler>;

  constructor(
    handler: Dispatcher.DispatchHandler,
    private readonly source: string,
    private readonly observer: Required<RequestObserver>,
  ) {
    this.inner = new DecoratorHandler(handler) as Required<Dispatcher.DispatchHandler>;
  }

  onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    this.inner.onRequestStart(controller, context);
  }

  onRequestUpgrade(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
    socket: Duplex,
  ): void {
    this.inner.onRequestUpgrade(controller, statusCode, headers, socket);
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
    statusMessage?: string,
  ): void {
    const date = headers.date;
    this.observer.answered(this.source, statusCode, {
      sentAtMs: this.sentAtMs,
      answeredAtMs: Date.now(),
      dateHeader: Array.isArray(date) ? date[0] : date,
    });
    this.inner.onResponseStart(controller, statusCode, headers, statusMessage);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.observer.received(this.source, chunk.length);
    this.inner.onResponseData(controller, chunk);
  }

  onResponseEnd(controller: Dispatcher.DispatchController, trailers: IncomingHttpHeaders): void {
    this.inner.onResponseEnd(controller, trailers);
  }

  onResponseError(controller: Dispatcher.DispatchController, error: Error): void {
    this.observer.failed(this.source);
    this.inner.onResponseError(controller, error);
  }
}
