import { USER_ROLES, type UserRole } from '../domain/values.js';
import { message } from '../i18n/i18n.js';
import { type Command, parseCommand, required, usageWords } from './args.js';
import { cliTranslator } from './language.js';
import { withContext } from './open-context.js';
import { printJson, printLine } from './output.js';

export const usersCreateCommand: Command = {
  name: 'users create',
  usage: (language) => message(language, 'cli.users.create.usage', { fields: '{id, email, name, role}' }),
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
      throw usageWords('cli.users.create.role', { roles: USER_ROLES.join(', '), value: role });
    }
    const user = await withContext(io, (ctx) =>
      ctx.users.createUser({ email, name, role: role as UserRole, password: values.password ?? null }),
    );
    if (values.json) return printJson(io, { id: user.id, email: user.email, name: user.name, role: user.role });
    printLine(io, cliTranslator(io)('cli.users.create.created', { id: String(user.id), email: user.email, role: user.role }));
  },
};
