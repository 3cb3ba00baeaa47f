import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../composition/context.js';
import { ITEM_STATUSES, type ItemStatus } from '../../domain/values.js';
import { invalidField } from '../../i18n/reasons.js';
import { idParam, parseFields, parseId } from '../form.js';
import { Type } from 'typebox';
import { Text } from '../../http/write-inputs.js';
import { formPage } from '../form-page.js';
import { languageOf } from '../layout.js';
import { sessionOf } from '../session.js';
import { readPlanForm, uploadRoutes } from '../uploads.js';
import { planPage, plansPage } from '../views/plans-page.js';
import type { FormFailure, WebWriter } from '../web-write.js';

type PlanDeps = Pick<AppContext, 'planViews' | 'planUploads' | 'items' | 'config'> & { webWrite: WebWriter };

const query = (request: FastifyRequest) => request.query as Record<string, string | undefined>;

/** `?status=` and `?participant=` of the plan's page, as the project page reads them (anything else: no filter). */
function pinFilter(request: FastifyRequest) {
  const status = query(request).status;
  return {
    status: ITEM_STATUSES.includes(status as ItemStatus) ? (status as ItemStatus) : null,
    participant: parseId(query(request).participant),
  };
}

/** A project's plans, with the progress of an upload (`?upload=`). */
async function planListView({ planViews, planUploads }: PlanDeps, request: FastifyRequest, projectId: number, failure: FormFailure | null) {
  const session = sessionOf(request);
  const uploadId = parseId(query(request).upload);
  const [list, upload] = await Promise.all([
    planViews.planList(session.user, projectId),
    uploadId === null ? null : planUploads.uploadStatus(session.user, uploadId).catch(() => null),
  ]);
  const uploads = upload && upload.project_id === projectId && upload.status !== 'done' ? [upload] : [];
  return plansPage({
    session,
    project: list.project,
    plans: list.plans,
    uploads: uploads.map((u) => ({
      id: u.id,
      name: u.name,
      state: u.status === 'failed' ? 'failed' : 'processing',
      done: u.pages_done,
      total: u.pages_total,
      error: u.error,
    })),
    canUpload: list.canUpload,
    failure,
    notice:
      upload?.status === 'done' ? `Plan uploaded: ${upload.plan_ids.length} ${upload.plan_ids.length === 1 ? 'sheet' : 'sheets'}.` : null,
  }).value;
}

/** A plan's page: the drawing and its pins (filtered), ready for the tap of "Place on plan" (`?place=`). */
async function sheetView({ planViews, items }: PlanDeps, request: FastifyRequest, planId: number, failure: FormFailure | null) {
  const session = sessionOf(request);
  const filter = pinFilter(request);
  const placeId = parseId(query(request).place);
  const [shown, placing] = await Promise.all([
    planViews.planPage(session.user, planId, { version: parseId(query(request).version), ...filter }),
    placeId === null ? null : items.getItemCard(session.user, placeId).then(({ item }) => ({ itemId: item.id, text: item.text })),
  ]);
  return planPage({
    session,
    ...shown,
    placing: shown.canManage ? placing : null,
    filter,
    failure,
    notice: query(request).saved === 'version' ? languageOf(session).t('plans.saved.version') : null,
  }).value;
}

// "Place on plan" on an item's page: the plan chosen there opens ready for the tap.
async function choosePlan(request: FastifyRequest, reply: FastifyReply) {
  const [plan, item] = [parseId(query(request).plan), parseId(query(request).item)];
  if (plan === null || item === null) throw invalidField('plan', 'reason.choosePlan');
  return reply.redirect(`/plans/${plan}?place=${item}`, 303);
}

/** The upload form's own schema (no v1 twin): the plan's name, optional. */
const PlanUploadForm = Type.Object({ name: Type.Optional(Text) });

/** A plan or a version uploaded: the upload starts (checked, 422 beside "Plan file"), its progress is shown. */
async function upload(
  deps: PlanDeps,
  page: ReturnType<typeof formPage>,
  request: FastifyRequest,
  reply: FastifyReply,
  target: { projectId: number; planId?: number },
) {
  const session = sessionOf(request);
  const form = await readPlanForm(request, session);
  try {
    return await page.write(request, reply, target.planId ?? target.projectId, {
      form: target.planId === undefined ? 'plan-upload' : 'plan-version',
      fields: new URLSearchParams(form.entries),
      fingerprint: form.fingerprint,
      redirect: (started) => `/projects/${target.projectId}/plans?upload=${(started as { id: number }).id}`,
      write: (audit) => {
        const file = form.files[0];
        if (!file) throw invalidField('file', 'reason.choosePlanFile');
        const { name } = parseFields(PlanUploadForm, { name: form.fields.name });
        const options = { name: name?.trim() || undefined, planId: target.planId };
        return deps.planUploads.startUpload(
          session.user,
          target.projectId,
          { path: file.path, filename: file.originalName },
          options,
          audit,
        );
      },
    });
  } finally {
    await form.cleanup();
  }
}

/**
 * Plans and pins in the web (docs/design.md §19): the project's plans with "Upload plan" and the progress of an
 * upload, the plan's page (the drawing, its pins, "Items on this plan", versions, "Upload new version"), and an
 * item's place ("Place on plan" / "Remove from plan" post here from the item's page, the tap on the plan's page).
 * Every post goes through webWrite (CSRF, idempotency key, audit, 422 shown again, 303).
 */
export async function planPages(app: FastifyInstance, deps: PlanDeps) {
  const listPage = formPage(deps.webWrite, { entity: 'project', view: (request, id, failure) => planListView(deps, request, id, failure) });
  const sheetPage = formPage(deps.webWrite, { entity: 'plan', view: (request, id, failure) => sheetView(deps, request, id, failure) });
  app.get('/projects/:id/plans', async (request, reply) => listPage.show(request, reply, idParam(request)));
  app.get('/plans/choose', choosePlan);
  app.get('/plans/:id', async (request, reply) => sheetPage.show(request, reply, idParam(request)));
  await uploadRoutes(
    app,
    (scope) => {
      scope.post('/projects/:id/plans', { config: { ownCsrf: true } }, (request, reply) =>
        upload(deps, listPage, request, reply, { projectId: idParam(request) }),
      );
      scope.post('/plans/:id/versions', { config: { ownCsrf: true } }, async (request, reply) => {
        const planId = idParam(request);
        const projectId = await deps.planViews.projectOf(sessionOf(request).user, planId);
        return upload(deps, sheetPage, request, reply, { projectId, planId });
      });
    },
    // One file, as large as PLAN_MAX_MB allows (a byte over it is read as too large, 422).
    { files: 1, fileSize: deps.config.plans.maxMb * 1024 * 1024 + 1 },
  );
}
