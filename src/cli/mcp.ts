import { message } from '../i18n/i18n.js';
import { type Command, cliError, parseCommand, required } from './args.js';
import { cliTranslator } from './language.js';

export const mcpCommand: Command = {
  name: 'mcp',
  usage: (language) => message(language, 'cli.mcp.usage'),
  async run(argv, io) {
    const { values } = parseCommand(this.name, argv, {
      token: { type: 'string' },
      url: { type: 'string' },
      'read-only': { type: 'boolean' },
    });
    const t = cliTranslator(io);
    const token = required(this.name, t('cli.mcp.missingToken'), values.token ?? (io.env.PUNCHLIST_TOKEN || undefined));
    // Loaded here: the other commands do not pay for the MCP SDK.
    const [
      { loadConfig },
      { createPunchlistClient, PunchlistApiError },
      { createMcpServer, MCP_SERVER_VERSION },
      { StdioServerTransport },
    ] = await Promise.all([
      import('../shared/config.js'),
      import('../client/index.js'),
      import('../mcp/server.js'),
      import('@modelcontextprotocol/sdk/server/stdio.js'),
    ]);
    // Only BASE_URL/HOST/PORT matter here; a placeholder secret keeps loadConfig from creating ./data/session-secret.
    const baseUrl = values.url ?? loadConfig({ ...io.env, SESSION_SECRET: io.env.SESSION_SECRET || 'unused-by-mcp' }).baseUrl;
    if (!/^https?:\/\//.test(baseUrl)) throw cliError({ key: 'cli.mcp.url', values: { url: baseUrl } });
    const client = createPunchlistClient({
      baseUrl,
      token,
      userAgent: `punchlist-mcp-stdio/${MCP_SERVER_VERSION}`,
      maxRetryDelayMs: 10_000,
    });

    let scopes: readonly string[];
    try {
      scopes = (await client.me()).token.scopes;
    } catch (err) {
      if (!(err instanceof PunchlistApiError)) throw err;
      // GET /auth/me.php is the only call of v1 that tells a token its scopes. Offering every tool would list
      // tools the token cannot use (docs/design.md §9); probing each operation would spend the token's quota and
      // fill the audit log with refusals. So the command refuses to start.
      if (err.code === 'scope_missing') {
        throw cliError({ key: 'cli.mcp.needsMe' });
      }
      // The server's own message stays as it came (its language is the server's business).
      const values = { url: baseUrl, code: err.code, reason: err.message };
      if (err.status === 401) throw cliError({ key: 'cli.mcp.refused', values });
      throw cliError({ key: 'cli.mcp.cannotUse', values });
    }

    const server = createMcpServer({ client, scopes, readOnly: values['read-only'] === true });
    // The MCP protocol runs on the process's own stdin and stdout: this command stays bound to the process.
    await server.connect(new StdioServerTransport());
    io.stderr.write(`${t(values['read-only'] ? 'cli.mcp.servingReadOnly' : 'cli.mcp.serving', { count: scopes.length, url: baseUrl })}\n`);
  },
};
