import { createHmac, randomBytes } from 'node:crypto';

/**
 * Standard Webhooks (standardwebhooks.com): a secret is `whsec_` + base64 of its key bytes; a message is
 * signed as `v1,` + base64(HMAC-SHA256(key, "{webhook-id}.{webhook-timestamp}.{body}")).
 */
const PREFIX = 'whsec_';

/** A new endpoint secret: 32 random bytes (the specification asks for at least 24). */
export function newWebhookSecret(): string {
  return PREFIX + randomBytes(32).toString('base64');
}

export function webhookHeaders(secret: string, message: { id: string; timestamp: number; body: string }): Record<string, string> {
  if (!secret.startsWith(PREFIX)) throw new Error('a webhook secret starts with whsec_');
  const key = Buffer.from(secret.slice(PREFIX.length), 'base64');
  const signature = createHmac('sha256', key).update(`${message.id}.${message.timestamp}.${message.body}`).digest('base64');
  return {
    'webhook-id': message.id,
    'webhook-timestamp': String(message.timestamp),
    'webhook-signature': `v1,${signature}`,
  };
}
