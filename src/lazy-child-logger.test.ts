import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { lazyChildLogger } from './lazy-child-logger.js';

function logger(level: string) {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  const parent = pino({ level, redact: ['req.headers.authorization'] }, stream);
  let children = 0;
  const child = parent.child;
  // pino's children inherit this: it counts the children of children too.
  parent.child = function (this: typeof parent, ...args: Parameters<typeof child>) {
    children += 1;
    return child.apply(this, args);
  } as typeof parent.child;
  return { parent, lines, children: () => children };
}

describe('lazyChildLogger', () => {
  it('makes no child while nothing is logged at an enabled level', () => {
    const { parent, lines, children } = logger('warn');
    const log = lazyChildLogger(parent, { reqId: 'r1' }, {});
    log.info('incoming request');
    log.debug({ a: 1 }, 'detail');
    expect(children()).toBe(0);
    expect(lines).toEqual([]);
    expect(log.level).toBe('warn');
  });

  it('writes what an eager child writes, with the bindings, making the child once', async () => {
    const { parent, lines, children } = logger('info');
    const log = lazyChildLogger(parent, { reqId: 'r2' }, {});
    log.info({ req: { headers: { authorization: 'Bearer secret' } } }, 'incoming request');
    log.error('failed');
    expect(children()).toBe(1);
    log.child({ extra: true }).warn('nested');
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines.map((l) => [l.reqId, l.msg, l.level])).toEqual([
      ['r2', 'incoming request', 30],
      ['r2', 'failed', 50],
      ['r2', 'nested', 40],
    ]);
    expect(JSON.stringify(lines)).not.toContain('secret');
    expect(lines[2]).toMatchObject({ extra: true });
  });
});
