import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { newWebhookSecret, webhookHeaders } from './signature.js';

/** Checked with an independent implementation of the specification: the `standardwebhooks` package. */
describe('webhook signatures', () => {
  it('verify with the standardwebhooks reference library, and fail once the body or the secret differs', () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const body = JSON.stringify({ id: 41, type: 'comment.created', data: { text: 'é ✓' } });
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = webhookHeaders(secret, { id: 'msg_41', timestamp, body });
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(secret).verify(body.replace('41', '42'), headers)).toThrow();
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(secret).verify(body, { ...headers, 'webhook-id': 'msg_42' })).toThrow();
  });
});
