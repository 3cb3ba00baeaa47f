import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../composition/context.js';
import { earliestToday } from '../../domain/inputs.js';
import { invalidField } from '../../i18n/reasons.js';
import { formOf, idParam } from '../form.js';
import { checklistChoices } from './structure.js';
import type { UploadForm } from '../../http/multipart.js';
import type { SessionUser } from '../../features/sessions/sessions.service.js';
import { languageOf } from '../layout.js';
import { sessionOf } from '../session.js';
import { readPhotoForm, uploadRoutes } from '../uploads.js';
import { photoDetailsOf } from '../../features/items/index.js';
import { type HistoryPaging, ITEM_NOTICES, itemPageView } from '../views/item-page.js';
import { formPage } from '../form-page.js';
import type { FormFailure, WebWrite, WebWriter } from '../web-write.js';
import type { AuditEntryBuilder } from '../../features/write-path/write-path.js';
import {
  answerOf,
  commentOf,
  disputeOf,
  itemEditOf,
  linksOf,
  photoDescriptionOf,
  placeOf,
  planningOf,
  resolutionOf,
  reviewOf,
  reworkOf,
  statusOf,
  verdictOf,
} from './item-forms.js';

/** The screenful of comments and timeline asked for; anything else than a positive number means the newest. */
function historyPaging(query: Record<string, string | undefined>): HistoryPaging {
  const positive = (value: string | undefined) => (value && /^[1-9][0-9]{0,9}$/.test(value) ? Number(value) : null);
  return { commentsBefore: positive(query.comments_before), timelinePage: positive(query.timeline) ?? 1 };
}

type ItemPageDeps = Pick<
  AppContext,
  | 'items'
  | 'itemWrites'
  | 'comments'
  | 'answers'
  | 'attachments'
  | 'review'
  | 'clock'
  | 'events'
  | 'itemEdits'
  | 'planViews'
  | 'itemLocations'
  | 'vocabulary'
  | 'itemDisputes'
> & { webWrite: WebWriter };

/** The item page of one id, with the refused form when there is one. */
async function itemView(deps: ItemPageDeps, request: FastifyRequest, itemId: number, failure: FormFailure | null) {
  const { items, events, itemEdits, planViews, vocabulary, clock } = deps;
  const session = sessionOf(request);
  const workspace = await items.getItemWorkspace(session.user, itemId);
  const [{ events: itemEvents, names }, edit, place, projectVocabulary] = await Promise.all([
    events.ofItem(itemId),
    workspace.rights['item.edit'] ? itemEdits.newItemChoices(session.user, workspace.project.id) : null,
    planViews.placeOf(session.user, workspace.item),
    workspace.rights['item.edit'] ? vocabulary.vocabularyOf(session.user, workspace.project.id) : null,
  ]);
  const query = request.query as Record<string, string | undefined>;
  const saved = query.saved;
  const noticeKey = saved && Object.hasOwn(ITEM_NOTICES, saved) ? ITEM_NOTICES[saved]! : null;
  const notice = failure || !noticeKey ? null : languageOf(session).t(noticeKey);
  return itemPageView({
    ...workspace,
    session,
    earliestDeadline: earliestToday(clock.now()),
    notice,
    failure,
    timeline: { events: itemEvents, names, history: workspace.item.status_history },
    paging: historyPaging(query),
    edit: edit && {
      choices: checklistChoices(edit.tree),
      members: edit.members,
      vocabulary: projectVocabulary!,
      companies: edit.companies,
    },
    place,
  });
}

/** What each route's handler gets: the services, and the write of one of the page's forms. */
interface ItemRoutes {
  deps: ItemPageDeps;
  /** A write from one of the item page's forms: redirect back to the page (at the form), or show it again with the problem. */
  write<T>(
    request: FastifyRequest,
    reply: FastifyReply,
    itemId: number,
    form: string,
    sent: URLSearchParams | UploadForm,
    write: WebWrite<T>['write'],
  ): Promise<FastifyReply>;
}

type Handler = (routes: ItemRoutes, request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

/** The route's item, the signed-in user and the url-encoded form. */
const posted = (request: FastifyRequest) => ({ user: sessionOf(request).user, id: idParam(request), form: formOf(request) });

/**
 * A url-encoded form of the page whose write acts on the route's item: `run` parses the form (item-forms.ts) and
 * calls one service, inside the form path's write so that a refusal shows the form again.
 */
const itemForm =
  (
    name: string,
    run: (deps: ItemPageDeps, user: SessionUser, id: number, form: URLSearchParams, audit: AuditEntryBuilder) => Promise<unknown>,
  ): Handler =>
  ({ deps, write }, request, reply) => {
    const { user, id, form } = posted(request);
    return write(request, reply, id, name, form, (audit) => run(deps, user, id, form, audit));
  };

// "Place on plan" (the tap on the plan's page, or the place typed there) and "Remove from plan" (docs/design.md §19).
const placeItem = itemForm('place', (deps, user, id, form, audit) => deps.itemLocations.placeItem(user, id, placeOf(form), audit));
const removeFromPlan = itemForm('unplace', (deps, user, id, _form, audit) => deps.itemLocations.removeFromPlan(user, id, audit));

// A photo's stage and caption (docs/design.md §22): its uploader or a manager.
const describePhoto: Handler = async ({ deps, write }, request, reply) => {
  const { user, id, form } = posted(request);
  const photoId = idParam(request, 'photoId');
  await deps.attachments.photoOfItem(user, photoId, id);
  return write(request, reply, id, `photo-${photoId}`, form, (audit) => {
    const details = photoDetailsOf(photoDescriptionOf(form));
    return deps.attachments.describePhoto(user, photoId, { stage: details.stage ?? null, caption: details.caption ?? null }, audit);
  });
};

const setStatus = itemForm('status', (deps, user, id, form, audit) => deps.itemWrites.setStatus(user, id, statusOf(form), audit));
const setPlanning = itemForm('planning', (deps, user, id, form, audit) => deps.itemWrites.setPlanning(user, id, planningOf(form), audit));
// Disputes (docs/design.md §20).
const dispute = itemForm('dispute', (deps, user, id, form, audit) => deps.itemDisputes.dispute(user, id, disputeOf(form), audit));
const resolveDispute = itemForm('resolve-dispute', (deps, user, id, form, audit) =>
  deps.itemDisputes.resolve(user, id, resolutionOf(form), audit),
);
const addComment = itemForm('comment', (deps, user, id, form, audit) => deps.comments.addComment(user, id, commentOf(form), audit));
const editItem = itemForm('edit', (deps, user, id, form, audit) => deps.itemEdits.updateItem(user, id, itemEditOf(form), audit));
const replaceLinks = itemForm('links', (deps, user, id, form, audit) => deps.itemWrites.replaceItemLinks(user, id, linksOf(form), audit));
const setVerdict = itemForm('verdict', (deps, user, id, form, audit) => deps.review.setItemVerdict(user, id, verdictOf(form), audit));
const returnToRework = itemForm('rework', (deps, user, id, form, audit) => deps.review.returnToRework(user, id, reworkOf(form), audit));

const reviewAnswer: Handler = ({ deps, write }, request, reply) => {
  const { user, id, form } = posted(request);
  const answerId = idParam(request, 'answerId');
  return write(request, reply, id, `review-${answerId}`, form, (buildAudit) => {
    const { decision, seen } = reviewOf(form);
    return deps.review.reviewAnswer(user, answerId, decision, { seenUpdatedAt: seen, buildAudit, itemId: id });
  });
};

/** A photo form (multipart): read with its CSRF check (web/uploads.ts), its temp files removed whatever happens. */
async function photoWrite(
  request: FastifyRequest,
  kind: 'photos' | 'answer' | 'markup',
  run: (form: UploadForm, user: SessionUser) => Promise<FastifyReply>,
) {
  const session = sessionOf(request);
  const form = await readPhotoForm(request, session, kind);
  try {
    return await run(form, session.user);
  } finally {
    await form.cleanup();
  }
}

function needPhotos<T>(files: T[]): T[] {
  if (files.length === 0) throw invalidField('attachments[]', 'reason.choosePhoto');
  return files;
}

const attachPhotos: Handler = ({ deps, write }, request, reply) =>
  photoWrite(request, 'photos', (form, user) => {
    const id = idParam(request);
    return write(request, reply, id, 'photos', form, (audit) =>
      deps.attachments.attachToItem(user, id, needPhotos(form.files), audit, photoDetailsOf(form.fields)),
    );
  });

const addAnswer: Handler = ({ deps, write }, request, reply) =>
  photoWrite(request, 'answer', (form, user) => {
    const id = idParam(request);
    const { fields, files } = form;
    return write(request, reply, id, 'answer', form, (audit) => {
      const prepareImages = files.length ? () => deps.attachments.prepare(files, photoDetailsOf(fields)) : undefined;
      return deps.answers.addAnswer(user, id, { ...answerOf(fields), prepareImages }, audit);
    });
  });

const attachAnswerPhotos: Handler = ({ deps, write }, request, reply) =>
  photoWrite(request, 'photos', async (form, user) => {
    const answerId = idParam(request);
    const itemId = await deps.answers.itemOfAnswer(user, answerId);
    return write(request, reply, itemId, `answer-photos-${answerId}`, form, (audit) =>
      deps.attachments.attachToAnswer(user, answerId, needPhotos(form.files), audit, photoDetailsOf(form.fields)),
    );
  });

// "Save markup" (docs/design.md §22): the picture drawn on one of the item's (or its answers') photos. The form's
// key is also the markup's own: the same drawing sent again, however late (the outbox), is stored once.
const saveMarkup: Handler = ({ deps, write }, request, reply) =>
  photoWrite(request, 'markup', async (form, user) => {
    const [id, photoId] = [idParam(request), idParam(request, 'photoId')];
    await deps.attachments.photoOfItem(user, photoId, id);
    return write(request, reply, id, `markup-${photoId}`, form, async (audit) => {
      if (form.files.length !== 1) throw invalidField('attachments[]', 'reason.markedPicture');
      const details = { ...photoDetailsOf(form.fields), markupKey: form.fields._key || undefined };
      return deps.attachments.markUp(user, photoId, form.files[0]!, details, audit);
    });
  });

/** The item page and its forms: one small handler per route (above). */
export async function itemPages(app: FastifyInstance, deps: ItemPageDeps) {
  const itemPage = formPage(deps.webWrite, { entity: 'item', view: (request, id, failure) => itemView(deps, request, id, failure) });
  const routes: ItemRoutes = {
    deps,
    write: (request, reply, itemId, form, sent, write) =>
      itemPage.write(request, reply, itemId, {
        form,
        ...(sent instanceof URLSearchParams ? { fields: sent } : { fields: sent.fields, fingerprint: sent.fingerprint }),
        redirect: () => `/items/${itemId}?saved=${form.replace(/-\d+$/, '')}`,
        write,
      }),
  };
  const post = (path: string, handler: Handler) => app.post(path, (request, reply) => handler(routes, request, reply));

  app.get('/items/:id', async (request, reply) => itemPage.show(request, reply, idParam(request)));
  post('/items/:id/location', placeItem);
  post('/items/:id/location/remove', removeFromPlan);
  post('/items/:id/photos/:photoId', describePhoto);
  post('/items/:id/status', setStatus);
  post('/items/:id/planning', setPlanning);
  post('/items/:id/dispute', dispute);
  post('/items/:id/resolve-dispute', resolveDispute);
  post('/items/:id/comments', addComment);
  post('/items/:id/edit', editItem);
  post('/items/:id/links', replaceLinks);
  post('/items/:id/answers/:answerId/review', reviewAnswer);
  post('/items/:id/verdict', setVerdict);
  post('/items/:id/rework', returnToRework);

  await uploadRoutes(app, (uploads) => {
    const ownCsrf = { config: { ownCsrf: true } };
    uploads.post('/items/:id/photos', ownCsrf, (request, reply) => attachPhotos(routes, request, reply));
    uploads.post('/items/:id/answers', ownCsrf, (request, reply) => addAnswer(routes, request, reply));
    uploads.post('/answers/:id/photos', ownCsrf, (request, reply) => attachAnswerPhotos(routes, request, reply));
    uploads.post('/items/:id/markup/:photoId', ownCsrf, (request, reply) => saveMarkup(routes, request, reply));
  });
}
