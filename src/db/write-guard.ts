import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The second line behind the write repositories (features/items/write-repositories.ts), on SQLite: a write's
 * callback that reaches the root database anyway (a service that closes over it) would queue for the one
 * connection its own transaction holds, and wait for ever. With the guard on, the group commit
 * (group-commit.ts) runs each unit of work marked here and the SQLite driver (sqlite-dialect.ts) asks before it
 * hands out the connection, so such a statement throws at once, naming the mistake, instead of hanging the
 * request and every write after it.
 *
 * Off unless switched on: the SQLite tests switch it on (vitest.config.ts). On Node 20 an AsyncLocalStorage in use
 * makes every promise of the process pay for async hooks, which costs a write a measurable share of its CPU
 * (docs/db-plumbing.md, "Write guard"); the types keep the root database out of a write's reach in production.
 */
const openWrite = new AsyncLocalStorage<{ open: boolean }>();
let enabled = false;

export function enableWriteGuard(on = true): void {
  enabled = on;
  if (!on) openWrite.disable();
}

/** Runs `work` as a unit of a write transaction: until it settles, the root database refuses its statements. */
export function asWriteUnit<T>(work: () => Promise<T>): Promise<T> {
  return enabled ? guarded(work) : work();
}

async function guarded<T>(work: () => Promise<T>): Promise<T> {
  const unit = { open: true };
  try {
    return await openWrite.run(unit, work);
  } finally {
    // Whatever the unit started and left running (a timer, a promise) carries the mark on: it is over now.
    unit.open = false;
  }
}

/** Throws when a write transaction's unit of work, still open, asks for the root database's connection. */
export function assertOutsideWriteUnit(what: string): void {
  if (enabled && openWrite.getStore()?.open) {
    throw new Error(
      `${what} inside a write transaction: on SQLite it would wait for ever for the connection the transaction holds; ` +
        'use the repositories the write was given',
    );
  }
}
