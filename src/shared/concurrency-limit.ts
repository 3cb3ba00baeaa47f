/** Runs at most `max` tasks at once; the others wait their turn in order. */
export function concurrencyLimit(max: number) {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (running < max) running++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await task();
    } finally {
      // Hand the slot straight to the next task, or give it back.
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}
