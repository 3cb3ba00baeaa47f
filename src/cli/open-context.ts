import type { AppContext } from '../composition/context.js';
import type { User } from '../db/tables.js';
import { cliError } from './args.js';
import type { CliIo } from './io.js';

/**
 * Runs one command against the context built from the command's environment, then closes it (its pool, timers
 * and worker threads) so that the process can exit, or, in a test, go on with nothing left running. Like the server, it applies pending migrations first unless told not to.
 * The context's modules are loaded here, not at start-up, so that help and usage mistakes answer at
 * once (every module goes through tsx, which makes loading the database stack cost most of a second).
 */
export async function withContext<T>(io: CliIo, fn: (ctx: AppContext) => Promise<T>, options: { migrate?: boolean } = {}): Promise<T> {
  const [{ loadConfig }, { createContext }] = await Promise.all([import('../shared/config.js'), import('../composition/context.js')]);
  const ctx = await createContext(loadConfig(io.env), options);
  try {
    return await fn(ctx);
  } finally {
    await ctx.close();
  }
}

/** The user an operator names by email; an unknown email is an error. */
export async function userByEmail(ctx: AppContext, email: string): Promise<User> {
  const user = await ctx.users.findByEmail(email);
  if (!user) throw cliError({ key: 'cli.error.noUser', values: { email } });
  return user;
}
