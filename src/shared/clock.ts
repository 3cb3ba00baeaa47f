/** Time behind a small interface so tests can move it (token expiry, idempotency windows). */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
