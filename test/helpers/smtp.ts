import { type AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll } from 'vitest';
import type { Clock } from '../../src/shared/clock.js';
import { startTestServer, type TestServer } from './server.js';

export interface ReceivedMail {
  to: string;
  /** The envelope's sender (MAIL FROM). */
  from: string;
  parsed: ParsedMail;
  raw: string;
}

/**
 * A real SMTP server on loopback (smtp-server) that keeps what it receives, parsed with mailparser. Addresses
 * in `refused` get a permanent 550 at RCPT TO. `stop()` closes it (senders then find nobody listening) and
 * `start()` opens it again on the same port.
 */
export async function startSmtpReceiver(options: { refused?: string[] } = {}) {
  const received: ReceivedMail[] = [];
  const refused = new Set((options.refused ?? []).map((a) => a.toLowerCase()));
  const waiters = new Set<() => void>();
  let port = 0;
  let server: SMTPServer | null = null;

  const open = () =>
    new Promise<void>((resolve, reject) => {
      const s = new SMTPServer({
        authOptional: true,
        disabledCommands: ['STARTTLS', 'AUTH'],
        logger: false,
        onRcptTo(address, _session, callback) {
          if (refused.has(address.address.toLowerCase())) {
            const err = new Error('Mailbox unavailable') as Error & { responseCode: number };
            err.responseCode = 550;
            return callback(err);
          }
          callback();
        },
        onData(stream, session, callback) {
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('end', () => {
            const raw = Buffer.concat(chunks).toString('utf8');
            simpleParser(raw)
              .then((parsed) => {
                const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
                for (const rcpt of session.envelope.rcptTo) received.push({ to: rcpt.address, from, parsed, raw });
                for (const wake of [...waiters]) wake();
                callback();
              })
              .catch(callback);
          });
        },
      });
      s.on('error', () => {});
      s.listen(port, '127.0.0.1', () => {
        port = (s.server.address() as AddressInfo).port;
        server = s;
        resolve();
      });
      s.server.once('error', reject);
    });

  await open();
  return {
    received,
    get url() {
      return `smtp://127.0.0.1:${port}`;
    },
    /** The messages to `address` so far. */
    to: (address: string) => received.filter((m) => m.to === address),
    /** Resolves once `count` messages reached `address` (fails after `ms`). */
    waitFor(address: string, count = 1, ms = 15_000): Promise<ReceivedMail[]> {
      return new Promise((resolve, reject) => {
        const check = () => {
          const got = received.filter((m) => m.to === address);
          if (got.length < count) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(got);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(`${count} message(s) to ${address} expected within ${ms} ms; got ${received.filter((m) => m.to === address).length}`),
          );
        }, ms);
        waiters.add(check);
        check();
      });
    },
    async stop() {
      const s = server;
      server = null;
      if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
    },
    start: open,
  };
}

export type SmtpReceiver = Awaited<ReturnType<typeof startSmtpReceiver>>;

/**
 * A test file's server whose emails go to a real SMTP receiver: both started before the file's tests (the outbox
 * drained once), stopped after. Read `server` and `smtp` inside tests (they are set by then).
 */
export function useMailingServer(clock: Clock) {
  const mailing = {} as { server: TestServer; smtp: SmtpReceiver; drain: () => Promise<void> };
  beforeAll(async () => {
    mailing.smtp = await startSmtpReceiver();
    mailing.server = await startTestServer({ clock, env: { SMTP_URL: mailing.smtp.url, MAIL_FROM: 'Punchlist <noreply@punchlist.test>' } });
    mailing.drain = () => mailing.server.ctx.notificationWorker.drainNow();
    await mailing.drain();
  });
  afterAll(async () => {
    await mailing.server?.close();
    await mailing.smtp?.stop();
  });
  return mailing;
}
