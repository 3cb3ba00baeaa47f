import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../composition/context.js';
import { ITEM_STATUSES, type ItemStatus, PRIORITIES, type Priority, VERDICTS } from '../../domain/values.js';
import { invalidField } from '../../i18n/reasons.js';
import { type BulkChange, type BulkOutcome, bulkAbilities } from '../../features/items/index.js';
import type { WorklistReads } from '../../features/offload/offloaded-reads.js';
import { parseItemFilter } from '../../features/worklists/worklists.service.js';
import { myItemsView } from '../views/my-items.js';
import { reviewQueueView } from '../views/review-queue.js';
import { type BulkSummary, filterQuery, projectPageView, statusLabel } from '../views/project-page.js';
import { projectsListView } from '../views/projects-list.js';
import { companyLinks, packsNotice } from '../views/company-links.js';
import type { PacksOutcome } from '../../features/companies/company-packs.service.js';
import { structureLinks } from '../views/structure-page.js';
import { formOf, idParam, idsIn, parseFields, parseId, textField } from '../form.js';
import { Type } from 'typebox';
import { Text } from '../../http/write-inputs.js';
import { formPage } from '../form-page.js';
import type { FormFailure, WebWriter } from '../web-write.js';
import { html } from '../html.js';
import { csrfField, languageOf, writeKeyField } from '../layout.js';
import { sessionOf } from '../session.js';
import type { WebSession } from '../../features/sessions/sessions.service.js';

const PAGE_SIZE = 50;

/** The `page` query parameter: 1 unless a page number from 1 to a million. */
const pageParam = (query: Record<string, string | undefined>) =>
  Math.max(1, Math.min(1_000_000, Number.parseInt(query.page ?? '1', 10) || 1));

/**
 * The bulk form (no v1 twin): the ticked items and the changes, with its own schema. A select left on "Keep" (empty)
 * changes nothing; a value outside the choices is refused here, beside its field; the write checks the rest (each
 * item's rules, the project's members, companies and categories).
 */
const BulkForm = Type.Object({
  items: Type.Array(Text),
  status: Text,
  priority: Text,
  company: Text,
  add_participant: Text,
  category: Text,
  remove_participant: Text,
  deadline: Text,
  clear_deadline: Type.Boolean(),
});

/** The project's verdict form (no v1 twin): its value, checked by the review service. */
const VerdictForm = Type.Object({ verdict: Text });

function bulkChangeOf(form: URLSearchParams): { itemIds: number[]; change: BulkChange } {
  const fields = parseFields(BulkForm, {
    items: form.getAll('items'),
    status: textField(form, 'status'),
    priority: textField(form, 'priority'),
    company: textField(form, 'company'),
    add_participant: textField(form, 'add_participant'),
    category: textField(form, 'category'),
    remove_participant: textField(form, 'remove_participant'),
    deadline: textField(form, 'deadline').trim(),
    clear_deadline: form.get('clear_deadline') === '1',
  });
  const choice = <T extends string>(field: 'status' | 'priority', values: readonly T[]): T | undefined => {
    const value = fields[field];
    if (value === '') return undefined;
    if (!(values as readonly string[]).includes(value)) throw invalidField(field, 'reason.chooseOneOf', { values: values.join(', ') });
    return value as T;
  };
  const change: BulkChange = { status: choice<ItemStatus>('status', ITEM_STATUSES), priority: choice<Priority>('priority', PRIORITIES) };
  const person = (field: 'add_participant' | 'remove_participant'): number | undefined => {
    const value = fields[field];
    if (value === '') return undefined;
    const id = parseId(value);
    if (id === null) throw invalidField(field, 'reason.chooseMember');
    return id;
  };
  // "Keep" (empty), "No company" / "No category" (none), or an id (one of the project's: the write checks).
  const noneOrId = (value: string) => (value === 'none' ? null : (parseId(value) ?? 0));
  if (fields.company !== '') change.company = noneOrId(fields.company);
  change.addParticipant = person('add_participant');
  if (fields.category !== '') change.category = noneOrId(fields.category);
  change.removeParticipant = person('remove_participant');
  if (fields.clear_deadline) {
    if (fields.deadline) throw invalidField('deadline', 'reason.deadlineOrClear');
    change.deadline = null;
  } else if (fields.deadline) change.deadline = fields.deadline;
  return { itemIds: idsIn(fields.items), change };
}

/** The project's verdict: "" for none. */
const projectVerdictOf = (form: URLSearchParams) => parseFields(VerdictForm, { verdict: textField(form, 'verdict') }).verdict;

/** The summary in the redirect after a bulk change (so a double submission shows it again): ids by outcome. */
function bulkSummaryQuery(outcome: BulkOutcome): string {
  const params = new URLSearchParams({
    changed: outcome.changed.join(','),
    unchanged: outcome.unchanged.join(','),
    refused: outcome.refused.map((r) => `${r.id}:${r.code}`).join(','),
  });
  return params.toString();
}

function bulkSummaryOf(query: Record<string, string | undefined>): BulkSummary | null {
  if (query.changed === undefined && query.refused === undefined) return null;
  const ids = (value: string | undefined) => (value ?? '').split(',').flatMap((v) => (/^[1-9][0-9]{0,15}$/.test(v) ? [Number(v)] : []));
  const refused = (query.refused ?? '').split(',').flatMap((entry) => {
    const match = /^([1-9][0-9]{0,15}):([a-z_]{1,40})$/.exec(entry);
    return match ? [{ id: Number(match[1]), code: match[2]! }] : [];
  });
  return { changed: ids(query.changed), unchanged: ids(query.unchanged), refused };
}

/** The project's verdict form: a select (none, accepted, rejected) and a submit button; `refused`: why it was not saved. */
function verdictForm(session: WebSession, action: string, current: string | null, refused: string | null) {
  const id = `verdict-${action.replace(/[^a-z0-9]/gi, '-')}`;
  const { t } = languageOf(session);
  return html`<form method="post" action="${action}" class="actions">
${csrfField(session)}${writeKeyField()}
<label for="${id}" class="inline"><strong>${t('project.verdictForm')}</strong></label>
<select id="${id}" name="verdict" ${refused ? html`aria-invalid="true" aria-describedby="${id}-error"` : ''}>
<option value="" ${current === null ? html`selected` : ''}>${t('item.noVerdict')}</option>
${VERDICTS.map((v) => html`<option value="${v}" ${current === v ? html`selected` : ''}>${statusLabel(t, v)}</option>`)}
</select>
<button type="submit">${t('item.saveVerdict')}</button>
${refused ? html`<p class="field-error" id="${id}-error">${refused}</p>` : ''}
</form>`;
}

/** Where the pages' heavy reads run: the worker thread's jobs or, before it has started, the service inline (web-plugin.ts). */
export type HeavyReads = () => WorklistReads;

type ProjectDeps = Pick<
  AppContext,
  'projects' | 'review' | 'structure' | 'bulkChanges' | 'vocabulary' | 'companies' | 'invitations' | 'companyPacks'
> & { webWrite: WebWriter; heavyReads: HeavyReads };

/** What a project page's write handler gets: the services, and the page its forms post back to. */
interface ProjectRoutes {
  deps: ProjectDeps;
  page: ReturnType<typeof formPage>;
}

const queryOf = (request: FastifyRequest) => request.query as Record<string, string | undefined>;
const sendHtml = (reply: FastifyReply, text: string) => reply.type('text/html; charset=utf-8').send(text);

async function listProjects({ projects }: ProjectDeps, request: FastifyRequest, reply: FastifyReply) {
  const session = sessionOf(request);
  const query = queryOf(request);
  const archived = query.archived === '1';
  const pageNumber = pageParam(query);
  const list = await projects.listProjects(session.user, {
    archived: archived ? 'archived' : 'active',
    limit: PAGE_SIZE,
    offset: (pageNumber - 1) * PAGE_SIZE,
  });
  const base = archived ? '/projects?archived=1&' : '/projects?';
  const pages = Math.max(1, Math.ceil(list.total / PAGE_SIZE));
  return sendHtml(reply, projectsListView({ session, list, archived, pageNumber, pages, base }));
}

/** The project page; `failure` shows the bulk form (or the verdict's) again with what was sent and the message beside its field. */
async function projectView(deps: ProjectDeps, request: FastifyRequest, id: number, failure: FormFailure | null) {
  const { review, heavyReads, structure, vocabulary, companies, invitations } = deps;
  const session = sessionOf(request);
  const query = queryOf(request);
  const filter = parseItemFilter(query);
  const bulkSummary = bulkSummaryOf(query);
  // 40–70 ms of CPU for a 5 000-item project: in the worker thread.
  const named = bulkSummary?.refused.map((r) => r.id) ?? [];
  const [items, canVerdict, rights, projectVocabulary, choosableCompanies, mayInvite] = await Promise.all([
    heavyReads().projectItems(session.user, id, filter, pageParam(query), named),
    review.canSetProjectVerdict(session.user, id),
    structure.rightsOn(session.user, id),
    vocabulary.vocabularyOf(session.user, id),
    companies.activeCompanies(),
    invitations.mayInvite(session.user, id),
  ]);
  const refused = failure?.form === 'project-verdict' ? failure.message : null;
  const verdict = canVerdict ? verdictForm(session, `/projects/${id}/verdict`, items.project.verdict, refused) : null;
  const notice = query.saved ? languageOf(session).t('item.saved.verdict') : packsNotice(session, query.packs);
  const bulk = bulkAbilities(session.user, items.project.id, items.membership, items.project.archived);
  return projectPageView({
    ...items,
    session,
    filter,
    notice,
    verdictForm: verdict,
    structureLinks: structureLinks(id, rights, languageOf(session).t),
    bulk,
    bulkSummary,
    failure,
    vocabulary: projectVocabulary,
    choosableCompanies,
    companyLinks: mayInvite ? companyLinks(session, id, failure?.form === 'company-packs' ? failure.message : null) : null,
  });
}

/** Selected items changed together; back to the list (its filter and page kept) with the summary. */
async function bulkChange({ deps, page }: ProjectRoutes, request: FastifyRequest, reply: FastifyReply) {
  const { user } = sessionOf(request);
  const [id, form] = [idParam(request), formOf(request)];
  const query = queryOf(request);
  const back = filterQuery(parseItemFilter(query), pageParam(query));
  return page.write<BulkOutcome>(request, reply, id, {
    form: 'bulk',
    redirect: (outcome) => `/projects/${id}${back}${back ? '&' : '?'}${bulkSummaryQuery(outcome)}`,
    write: (buildAudit) => {
      const { itemIds, change } = bulkChangeOf(form);
      return deps.bulkChanges.apply(user, id, itemIds, change, (itemId) => () => {
        // Each item's write records itself: the same request, the item as its entity.
        request.api.auditEntity = { type: 'item', id: itemId };
        return buildAudit();
      });
    },
  });
}

/** "Send to companies" (docs/design.md §20): the packs queued; back to the project with how many. */
async function sendCompanyPacks({ deps, page }: ProjectRoutes, request: FastifyRequest, reply: FastifyReply) {
  const { user } = sessionOf(request);
  const id = idParam(request);
  return page.write<PacksOutcome>(request, reply, id, {
    form: 'company-packs',
    redirect: (outcome) => `/projects/${id}?packs=${outcome.queued},${outcome.alreadySent}`,
    write: (_, recordAudit) => deps.companyPacks.sendPacks(user, id, request.language, recordAudit),
  });
}

async function setProjectVerdict({ deps, page }: ProjectRoutes, request: FastifyRequest, reply: FastifyReply) {
  const { user } = sessionOf(request);
  const [id, form] = [idParam(request), formOf(request)];
  return page.write(request, reply, id, {
    form: 'project-verdict',
    redirect: () => `/projects/${id}?saved=1`,
    write: (buildAudit) => deps.review.setProjectVerdict(user, id, projectVerdictOf(form), buildAudit),
  });
}

async function myItems({ heavyReads }: ProjectDeps, request: FastifyRequest, reply: FastifyReply) {
  const session = sessionOf(request);
  const items = await heavyReads().myItems(session.user, pageParam(queryOf(request)));
  return sendHtml(reply, myItemsView({ ...items, session }));
}

async function reviewQueue({ heavyReads }: ProjectDeps, request: FastifyRequest, reply: FastifyReply) {
  const session = sessionOf(request);
  const queue = await heavyReads().reviewQueue(session.user, pageParam(queryOf(request)));
  session.toReview = queue.toReview;
  return sendHtml(reply, reviewQueueView({ ...queue, session }));
}

/** The projects list, a project's page and its forms, My items and To review: one small handler per route (above). */
export async function projectPages(app: FastifyInstance, deps: ProjectDeps) {
  const page = formPage(deps.webWrite, { entity: 'project', view: (request, id, failure) => projectView(deps, request, id, failure) });
  const routes: ProjectRoutes = { deps, page };
  app.get('/projects', (request, reply) => listProjects(deps, request, reply));
  app.get('/projects/:id', async (request, reply) => page.show(request, reply, idParam(request)));
  app.post('/projects/:id/bulk', (request, reply) => bulkChange(routes, request, reply));
  app.post('/projects/:id/company-packs', (request, reply) => sendCompanyPacks(routes, request, reply));
  app.get('/my-items', (request, reply) => myItems(deps, request, reply));
  app.get('/review', (request, reply) => reviewQueue(deps, request, reply));
  app.post('/projects/:id/verdict', (request, reply) => setProjectVerdict(routes, request, reply));
}
