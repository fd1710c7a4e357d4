import { describe, expect, it } from 'vitest';
import { applyAttempt, retryDelaySeconds } from '../../../src/service/webhooks/attempt-outcome.js';
import type { DeliveryRecord } from '../../../src/service/webhooks/delivery-store.js';
import type { EndpointRecord } from '../../../src/service/webhooks/endpoint-store.js';

const failure = { ok: false, status: 500, body: 'down', error: 'receiver answered 500', durationMs: 3 };
const success = { ok: true, status: 200, body: 'ok', error: null, durationMs: 3 };

function delivery(attempts = 0): DeliveryRecord {
  return {
    id: 'dlv_1',
    seq: 1,
    webhookId: 'wh_1',
    eventId: 'evt_1',
    eventType: 'order.updated',
    payload: '{}',
    status: 'pending',
    attempts,
    nextAttemptAt: 0,
    lastAttemptAt: null,
    responseStatus: null,
    responseBody: null,
    lastError: null,
    createdAt: 0,
    deliveredAt: null,
    version: 0,
  };
}

function endpoint(consecutiveFailures = 0): EndpointRecord {
  return {
    id: 'wh_1',
    seq: 1,
    accountId: 'acc_1',
    url: 'https://hooks.example.com/',
    events: ['order.updated'],
    enabled: true,
    description: '',
    secret: 'svc_whsec_x',
    lastSuccessAt: null,
    lastFailureAt: null,
    lastError: null,
    consecutiveFailures,
    createdAt: 0,
  };
}

describe('the retry ladder', () => {
  it.each([
    [1, 10],
    [2, 30],
    [3, 60],
    [4, 300],
    [5, 900],
    [6, 1800],
    [7, 3600],
    [8, 7200],
    [9, 14_400],
    [10, 21_600],
    [11, 43_200],
    [12, null],
  ])('waits after failed attempt %i: %s s', (attempt, seconds) => {
    expect(retryDelaySeconds(attempt)).toBe(seconds);
  });

  it('schedules the next attempt from the failed one, and fails the delivery after the twelfth', () => {
    const d = delivery(10);
    applyAttempt(d, endpoint(), failure, 1_000_000);
    expect(d).toMatchObject({ status: 'pending', attempts: 11, nextAttemptAt: 1_000_000 + 43_200_000 });
    applyAttempt(d, endpoint(), failure, 2_000_000);
    expect(d).toMatchObject({
      status: 'failed',
      attempts: 12,
      nextAttemptAt: null,
      lastError: failure.error,
    });
  });

  it('disables the endpoint at the fiftieth consecutive failure, not before', () => {
    const e = endpoint(48);
    applyAttempt(delivery(), e, failure, 5);
    expect(e).toMatchObject({ enabled: true, consecutiveFailures: 49 });
    applyAttempt(delivery(), e, failure, 6);
    expect(e).toMatchObject({ enabled: false, consecutiveFailures: 50, lastFailureAt: 6 });
  });

  it('delivers on a 2xx and clears the failure count', () => {
    const d = delivery(3);
    const e = endpoint(7);
    applyAttempt(d, e, success, 9);
    expect(d).toMatchObject({
      status: 'delivered',
      attempts: 4,
      deliveredAt: 9,
      nextAttemptAt: null,
      lastError: null,
    });
    expect(e).toMatchObject({ consecutiveFailures: 0, lastSuccessAt: 9 });
  });
});
