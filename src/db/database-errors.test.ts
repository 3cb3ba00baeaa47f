import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from './database-errors.js';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailable', () => {
  it('recognises a database that cannot be reached', () => {
    for (const error of [
      withCode('ECONNREFUSED'),
      withCode('ECONNRESET'),
      withCode('57P01', 'terminating connection due to administrator command'),
      withCode('57P03', 'the database system is starting up'),
      withCode('08006'),
      withCode('53300', 'too many clients'),
      withCode('SQLITE_BUSY'),
      withCode('SQLITE_BUSY_SNAPSHOT'),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
      new Error('wrapped', { cause: withCode('ECONNREFUSED') }),
      new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')], 'connect failed'),
    ]) {
      expect(isDatabaseUnavailable(error), String(error)).toBe(true);
    }
  });

  it('leaves bugs and bad queries alone', () => {
    for (const error of [
      new Error('boom'),
      withCode('23505', 'duplicate key value'),
      withCode('42P01', 'relation does not exist'),
      withCode('SQLITE_CONSTRAINT_UNIQUE'),
      withCode('FST_ERR_CTP_INVALID_JSON_BODY'),
      new TypeError('Cannot read properties of undefined'),
      null,
      'ECONNREFUSED',
      new AggregateError([withCode('ECONNREFUSED'), new Error('boom')]),
    ]) {
      expect(isDatabaseUnavailable(error), String(error)).toBe(false);
    }
  });
});
