import { loadConfig } from '../config.js';
import { type AppContext, createContext } from '../context.js';
import type { User } from '../db/tables.js';
import { CliError } from './args.js';

/**
 * Runs one command against the context built from the environment, then closes it so the process
 * can exit. Like the server, it applies pending migrations first unless told not to.
 */
export async function withContext<T>(fn: (ctx: AppContext) => Promise<T>, options: { migrate?: boolean } = {}): Promise<T> {
  const ctx = await createContext(loadConfig(), options);
  try {
    return await fn(ctx);
  } finally {
    await ctx.close();
  }
}

/** The user an operator names by email; an unknown email is an error. */
export async function userByEmail(ctx: AppContext, email: string): Promise<User> {
  const user = await ctx.users.findByEmail(email);
  if (!user) throw new CliError(`no user with the email "${email}"`);
  return user;
}
