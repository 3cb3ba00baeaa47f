import { AUDIT_RECORD_FIELDS } from '../db/tables.js';
import type { AuditRecord } from '../features/audit/audit.service.js';
import { type Command, parseCommand, parseInstant, positiveInteger, usageError } from './args.js';
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
  usage: `Usage: punchlist audit [--token ID] [--user EMAIL] [--since ISO] [--limit N] [--json | --ndjson]

Shows the records of the calls under /api/ (failures included), newest first.

Options:
  --token ID         only calls made with that token
  --user EMAIL       only calls of that user
  --since ISO        only calls at or after that instant: 2026-05-01 (start of the day, UTC) or
                     2026-05-01T12:00:00Z (a time without a zone is UTC)
  --limit N          at most N records (default ${DEFAULT_LIMIT}, up to ${MAX_LIMIT}; with --ndjson: all)
  --json             print a JSON array of {request_id, at, token_id, user_id, method, path, query,
                     status, error_code, ip, user_agent, duration_ms, entity_type, entity_id}
  --ndjson           stream the records for a SIEM or a log shipper: one JSON object a line, the
                     fields of --json, newest first, read and written page by page (any number of
                     records in constant memory); every matching record unless --limit is given`,
  async run(argv, io) {
    const { values } = parseCommand(this.name, argv, {
      token: { type: 'string' },
      user: { type: 'string' },
      since: { type: 'string' },
      limit: { type: 'string' },
      json: { type: 'boolean' },
      ndjson: { type: 'boolean' },
    });
    if (values.json && values.ndjson) throw usageError('--json and --ndjson exclude each other (see punchlist audit --help)');
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
    if (records.length === 0) return printLine(io, 'no audit records');
    printLine(
      io,
      formatTable(
        ['AT', 'STATUS', 'METHOD', 'PATH', 'ERROR', 'TOKEN', 'USER', 'MS', 'ENTITY', 'IP', 'REQUEST ID'],
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
