import { type Command, parseCommand } from './args.js';

export const serveCommand: Command = {
  name: 'serve',
  usage: `Usage: punchlist serve

Applies the pending database migrations, then serves the web interface and the external API on
HOST:PORT (default 127.0.0.1:8080) until SIGINT or SIGTERM. Never loads demo data (npm start does,
on an empty database).`,
  async run(argv) {
    parseCommand(this.name, argv, {});
    // Loaded here so that the other commands do not pay for the HTTP stack. The server is the process's own
    // (process.env, signals, its exit), whatever io the command is given.
    const { serve } = await import('../main.js');
    await serve({ demo: false });
  },
};
