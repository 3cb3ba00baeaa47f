import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../composition/context.js';
import { auditRecordsOwner, canAdminister } from '../../domain/policy.js';
import { wallTimeToUtc } from '../../domain/time-zones.js';
import type { AuditFilter } from '../../features/audit/audit.service.js';
import { parseId } from '../form.js';
import { sessionOf } from '../session.js';
import { auditPageView } from '../views/audit-page.js';

const LIMIT = 200;

/** `200` (exact) or `4xx` (a class); anything else is no status filter. */
function statusFilter(value: string): Pick<AuditFilter, 'status' | 'statusRange'> {
  if (/^[1-5][0-9]{2}$/.test(value)) return { status: Number(value) };
  const match = /^([1-5])xx$/i.exec(value);
  return match ? { statusRange: { min: Number(match[1]) * 100, max: Number(match[1]) * 100 + 99 } } : {};
}

/**
 * The audit log: a user sees their own calls and web changes; an administrator sees every record
 * and may filter by user. Filters: token, status (exact or class), time range (in the user's time zone).
 */
export async function auditPages(app: FastifyInstance, deps: Pick<AppContext, 'audit' | 'tokens' | 'usersAdmin'>) {
  const { audit, tokens, usersAdmin } = deps;

  app.get('/audit', async (request, reply) => {
    const session = sessionOf(request);
    const admin = canAdminister(session.user);
    const q = request.query as Record<string, string | undefined>;
    const form = { token: q.token ?? '', user: q.user ?? '', status: (q.status ?? '').trim(), from: q.from ?? '', to: q.to ?? '' };
    const ownTokens = await tokens.listTokens(session.user.id);
    const users = admin ? await usersAdmin.listUsers(session.user) : [];
    const tokenId = parseId(form.token) ?? undefined;
    const userId = auditRecordsOwner(session.user, parseId(form.user) ?? undefined);
    const records = await audit.list({
      userId,
      tokenId,
      ...statusFilter(form.status),
      since: wallTimeToUtc(form.from, session.timeZone),
      until: wallTimeToUtc(form.to, session.timeZone),
      limit: LIMIT,
    });
    return reply.type('text/html; charset=utf-8').send(auditPageView({ session, admin, form, users, ownTokens, records, limit: LIMIT }));
  });
}
