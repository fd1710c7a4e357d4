import { describe, expect, it } from 'vitest';
import { isWebhookVerificationError, verifyWebhook } from '../../src/client/index.js';
import { webhookSignature, webhookSignatureHeader } from '../../src/contract/webhook-signature.js';

const secret = 'svc_whsec_test-secret';
const body = '{"id":"evt_1","type":"webhook.test","created_at":"2026-06-01T00:00:00.000Z","data":{}}';
const t = 1_780_000_000;
const now = t * 1000;

function reasonOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (isWebhookVerificationError(error)) return error.reason;
    throw error;
  }
  return 'accepted';
}

describe('verifyWebhook', () => {
  it('accepts a signed body and parses it after verifying', () => {
    expect(verifyWebhook(secret, webhookSignatureHeader(secret, t, body), body, { now }).id).toBe('evt_1');
    expect(
      verifyWebhook(secret, webhookSignatureHeader(secret, t, body), Buffer.from(body), { now }).id,
    ).toBe('evt_1');
  });

  it('keys the HMAC with the whole secret string, prefix included', () => {
    const header = webhookSignatureHeader('test-secret', t, body);
    expect(reasonOf(() => verifyWebhook(secret, header, body, { now }))).toBe('signature_mismatch');
  });

  it('accepts any matching v1 among several', () => {
    const header = `t=${t},v1=${'0'.repeat(64)},v1=${webhookSignature(secret, t, body)}`;
    expect(verifyWebhook(secret, header, body, { now }).type).toBe('webhook.test');
  });

  it.each([
    [-301, 'timestamp_out_of_tolerance'],
    [301, 'timestamp_out_of_tolerance'],
    [300, 'accepted'],
    [-300, 'accepted'],
  ])('with t %i s from now: %s', (offset, reason) => {
    const header = webhookSignatureHeader(secret, t + offset, body);
    expect(reasonOf(() => verifyWebhook(secret, header, body, { now }))).toBe(reason);
  });

  it('takes another tolerance', () => {
    const header = webhookSignatureHeader(secret, t - 60, body);
    expect(reasonOf(() => verifyWebhook(secret, header, body, { now, toleranceSeconds: 30 }))).toBe(
      'timestamp_out_of_tolerance',
    );
  });

  it.each([undefined, '', 'v1=abc', `t=${t}`, `t=soon,v1=${'a'.repeat(64)}`])(
    'refuses the header %j',
    (header) => {
      expect(reasonOf(() => verifyWebhook(secret, header, body, { now }))).toBe('malformed_header');
    },
  );

  it('refuses a changed body before parsing it', () => {
    const header = webhookSignatureHeader(secret, t, body);
    expect(reasonOf(() => verifyWebhook(secret, header, `${body} `, { now }))).toBe('signature_mismatch');
    expect(reasonOf(() => verifyWebhook(secret, header, 'not json', { now }))).toBe('signature_mismatch');
  });
});
