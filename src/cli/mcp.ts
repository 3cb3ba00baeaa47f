import { type Command, CliError, parseCommand, required } from './args.js';

export const mcpCommand: Command = {
  name: 'mcp',
  usage: `Usage: punchlist mcp --token TOKEN [--url BASE_URL]

Runs the Punchlist MCP server on standard input and output, for an agent that starts it as a local
process. Its tools call the external API v1 of a running Punchlist service with the token, so each
call is checked, limited and audited like the same API call. Only the tools the token's scopes allow
are offered (the scopes are read with GET /auth/me.php at start).

Options:
  --token TOKEN   the API token the tools act with (plk_...)
  --url BASE_URL  the service's address (default: BASE_URL, else http://HOST:PORT, i.e.
                  http://127.0.0.1:8080)

Nothing but the MCP protocol is written to stdout; problems go to stderr. The same tools are served
over HTTP by the service itself at BASE_URL/mcp (see docs/integrators.md).`,
  async run(argv) {
    const { values } = parseCommand(this.name, argv, { token: { type: 'string' }, url: { type: 'string' } });
    const token = required(this.name, 'token', values.token);
    // Loaded here: the other commands do not pay for the MCP SDK.
    const [{ loadConfig }, { createPunchlistClient, PunchlistApiError }, { createMcpServer, MCP_SERVER_VERSION }, { StdioServerTransport }, { SCOPES }] =
      await Promise.all([
        import('../config.js'),
        import('../client/index.js'),
        import('../mcp/server.js'),
        import('@modelcontextprotocol/sdk/server/stdio.js'),
        import('../domain/scopes.js'),
      ]);
    // Only BASE_URL/HOST/PORT matter here; a placeholder secret keeps loadConfig from creating ./data/session-secret.
    const baseUrl = values.url ?? loadConfig({ ...process.env, SESSION_SECRET: process.env.SESSION_SECRET || 'unused-by-mcp' }).baseUrl;
    if (!/^https?:\/\//.test(baseUrl)) throw new CliError(`--url must be an http(s) URL, got "${baseUrl}"`);
    const client = createPunchlistClient({ baseUrl, token, userAgent: `punchlist-mcp-stdio/${MCP_SERVER_VERSION}`, maxRetryDelayMs: 10_000 });

    let scopes: readonly string[];
    try {
      scopes = (await client.me()).token.scopes;
    } catch (err) {
      if (!(err instanceof PunchlistApiError)) throw err;
      // Without auth:me the scopes cannot be read: offer the other tools; v1 still refuses what the token lacks.
      if (err.code === 'scope_missing') scopes = SCOPES.filter((s) => s !== 'auth:me');
      else if (err.status === 401) throw new CliError(`the token was refused by ${baseUrl}: ${err.code} (${err.message})`);
      else throw new CliError(`cannot use ${baseUrl}: ${err.code} (${err.message})`);
    }

    const server = createMcpServer({ client, scopes });
    await server.connect(new StdioServerTransport());
    process.stderr.write(`punchlist mcp: serving ${scopes.length} scope(s) of ${baseUrl} on stdio\n`);
  },
};
