/**
 * The wake-up of a background worker (outbox consumers, webhook deliveries, emails): commits and a poll ask
 * it to look at its queue; `look` runs once at a time, and a wake-up during a look asks for one more right
 * after it, so no wake-up is lost and no two looks overlap. Nothing starts while `active()` is false (the
 * worker stopped, or waiting out a failure).
 */
export function oneLookAtATime(look: () => Promise<void>, options: { active: () => boolean; onError?: (err: unknown) => void }) {
  let running: Promise<void> | null = null;
  let again = false;
  function wake(): void {
    if (!options.active()) return;
    if (running) {
      again = true;
      return;
    }
    running = look()
      .catch((err: unknown) => options.onError?.(err))
      .finally(() => {
        running = null;
        if (again) {
          again = false;
          wake();
        }
      });
  }
  return {
    wake,
    /** The look under way, if any. */
    running: () => running,
    /**
     * Waits for the looks under way, then runs `drain` once and resolves when it is done (tests, benchmarks):
     * the worker's stop, read and set through `stop`, is lifted for it and put back after it.
     */
    async drainNow(drain: () => Promise<void>, stop: { get: () => boolean; set: (stopped: boolean) => void }): Promise<void> {
      while (running) await running;
      const wasStopped = stop.get();
      stop.set(false);
      try {
        await drain();
      } finally {
        stop.set(wasStopped);
      }
    },
  };
}
