import { createRequire } from 'node:module';

/** nodemailer loads where SMTP_URL is set only (createSmtpMailer): a node that sends no email never needs it. */
const require = createRequire(import.meta.url);

/** One message to one address. Header values are single lines (the caller strips CR and LF). */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
  /** Files sent with it (a company pack's PDF, docs/design.md §20). */
  attachments?: { filename: string; content: Buffer; contentType: string }[];
}

/** Why a send failed: `permanent` when the server refused for good (a 5xx), else worth retrying. */
export class MailError extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
  ) {
    super(message);
  }
}

/** The only door to SMTP (STYLE.md 5): nodemailer behind it. */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/** Strips what would end a header line (CR, LF and the other line breaks) and trims. */
export function headerSafe(value: string): string {
  return value.replace(/[\r\n\u2028\u2029\u0085]+/g, ' ').trim();
}

/**
 * A mailer for `SMTP_URL` (`smtp://[user:pass@]host:port`, or `smtps://` for TLS from the start), sending
 * from `from`. A response code of 5xx is a permanent refusal; anything else (4xx, no answer, refused
 * connection, timeout) is worth retrying.
 */
export function createSmtpMailer(smtpUrl: string, from: string): Mailer {
  const nodemailer = require('nodemailer') as typeof import('nodemailer');
  const transport = nodemailer.createTransport(smtpUrl, { from: headerSafe(from) });
  // Timeouts: a stuck server must not hold the sender's lease for long (features/notifications/email-sender.ts).
  Object.assign(transport.options, { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 });
  return {
    async send(message) {
      try {
        await transport.sendMail({
          to: headerSafe(message.to),
          subject: headerSafe(message.subject),
          text: message.text,
          html: message.html,
          headers: Object.fromEntries(Object.entries(message.headers).map(([k, v]) => [k, headerSafe(v)])),
          attachments: message.attachments?.map((a) => ({ ...a, filename: headerSafe(a.filename) })),
        });
      } catch (err) {
        const code = (err as { responseCode?: unknown }).responseCode;
        const permanent = typeof code === 'number' && code >= 500 && code < 600;
        throw new MailError(`${typeof code === 'number' ? `SMTP ${code}: ` : ''}${(err as Error).message}`.slice(0, 500), permanent);
      }
    },
    close() {
      transport.close();
    },
  };
}
