import { message } from '../i18n/i18n.js';
import { AUDIT_RECORD_FIELDS } from '../db/tables.js';
import type { AuditRecord } from '../features/audit/audit.service.js';
import { type Command, parseCommand, parseInstant, positiveInteger, usageWords } from './args.js';
import { cliTranslator } from './language.js';
import { userByEmail, withContext } from './open-context.js';
import { formatTable, longTime, printJson, printLine, writeStdout } from './output.js';

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 100_000;

/** The fields of docs/design.md §7, in that order (the stored client_request_id is not part of it). */
function publicRecord(r: AuditRecord) {
  return Object.fromEntries(AUDIT_RECORD_FIELDS.map((field) => [field, r[field]])) as Pick<
    AuditRecord,
    (typeof AUDIT_RECORD_FIELDS)[number]
  >;
}

export const auditCommand: Command = {
  name: 'audit',
  usage: (language) =>
    message(language, 'cli.audit.usage', {
      default: String(DEFAULT_LIMIT),
      max: String(MAX_LIMIT),
      fields:
        '{request_id, at, token_id, user_id, method, path, query,\n                     status, error_code, ip, user_agent, duration_ms, entity_type, entity_id}',
    }),
  async run(argv, io) {
    const { values } = parseCommand(this.name, argv, {
      token: { type: 'string' },
      user: { type: 'string' },
      since: { type: 'string' },
      limit: { type: 'string' },
      json: { type: 'boolean' },
      ndjson: { type: 'boolean' },
    });
    if (values.json && values.ndjson) throw usageWords('cli.audit.exclusive');
    const tokenId = values.token === undefined ? undefined : positiveInteger('--token', values.token);
    const since = values.since === undefined ? undefined : parseInstant('--since', values.since);
    const limit =
      values.limit !== undefined ? positiveInteger('--limit', values.limit, MAX_LIMIT) : values.ndjson ? undefined : DEFAULT_LIMIT;
    const email = values.user;
    const records = await withContext(io, async (ctx) => {
      const userId = email === undefined ? undefined : (await userByEmail(ctx, email)).id;
      if (!values.ndjson) return ctx.audit.list({ tokenId, userId, since, limit });
      for await (const page of ctx.audit.stream({ tokenId, userId, since, limit })) {
        await writeStdout(io, page.map((r) => JSON.stringify(publicRecord(r)) + '\n').join(''));
      }
      return null;
    });
    if (records === null) return;
    if (values.json) return printJson(io, records.map(publicRecord));
    const t = cliTranslator(io);
    if (records.length === 0) return printLine(io, t('cli.none.audit'));
    const headers = ['at', 'status', 'method', 'path', 'error', 'token', 'user', 'ms', 'entity', 'ip', 'requestId'] as const;
    printLine(
      io,
      formatTable(
        headers.map((h) => t(`cli.table.${h}`)),
        records.map((r) => [
          longTime(r.at),
          String(r.status),
          r.method,
          r.query ? `${r.path}?${r.query}` : r.path,
          r.error_code ?? '-',
          r.token_id === null ? '-' : String(r.token_id),
          r.user_id === null ? '-' : String(r.user_id),
          String(Math.round(r.duration_ms)),
          r.entity_type ? `${r.entity_type} ${r.entity_id ?? ''}`.trim() : '-',
          r.ip ?? '-',
          r.request_id,
        ]),
      ),
    );
  },
};
