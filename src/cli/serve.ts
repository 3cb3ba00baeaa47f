import { message } from '../i18n/i18n.js';
import { type Command, parseCommand } from './args.js';

export const serveCommand: Command = {
  name: 'serve',
  usage: (language) => message(language, 'cli.serve.usage'),
  async run(argv) {
    parseCommand(this.name, argv, {});
    // Loaded here so that the other commands do not pay for the HTTP stack. The server is the process's own
    // (process.env, signals, its exit), whatever io the command is given.
    const { serve } = await import('../main.js');
    await serve({ demo: false });
  },
};
