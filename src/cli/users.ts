import { USER_ROLES, type UserRole } from '../domain/values.js';
import { type Command, parseCommand, required, usageError } from './args.js';
import { withContext } from './open-context.js';
import { printJson, printLine } from './output.js';

export const usersCreateCommand: Command = {
  name: 'users create',
  usage: `Usage: punchlist users create --email E --name N [--role admin|member] [--password P] [--json]

Creates a user. Without --password the user exists (tokens can be made for them) but cannot sign in
to the web interface.

Options:
  --email E          the sign-in email (unique, stored lower-cased)
  --name N           the display name
  --role R           admin (sees and may do everything) or member (default: member)
  --password P       the web sign-in password
  --json             print {id, email, name, role} instead of one line`,
  async run(argv, io) {
    const { values } = parseCommand(this.name, argv, {
      email: { type: 'string' },
      name: { type: 'string' },
      role: { type: 'string' },
      password: { type: 'string' },
      json: { type: 'boolean' },
    });
    const email = required(this.name, 'email', values.email);
    const name = required(this.name, 'name', values.name);
    const role = values.role ?? 'member';
    if (!(USER_ROLES as readonly string[]).includes(role)) {
      throw usageError(`--role must be one of ${USER_ROLES.join(', ')}, got "${role}"`);
    }
    const user = await withContext(io, (ctx) =>
      ctx.users.createUser({ email, name, role: role as UserRole, password: values.password ?? null }),
    );
    if (values.json) return printJson(io, { id: user.id, email: user.email, name: user.name, role: user.role });
    printLine(io, `created user ${user.id}: ${user.email} (${user.role})`);
  },
};
