import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../composition/context.js';
import { earliestToday } from '../../domain/inputs.js';
import { ITEM_STATUSES, type ItemStatus, PRIORITIES, type Priority } from '../../domain/values.js';
import { invalidField } from '../../i18n/reasons.js';
import { companyOf, documentLinksOf, formOf, fractionOf, idParam, idsOf, parseId, vocabularyOf } from '../form.js';
import { checklistChoices } from './structure.js';
import type { UploadForm } from '../../http/multipart.js';
import type { SessionUser } from '../../features/sessions/sessions.service.js';
import { languageOf } from '../layout.js';
import { sessionOf } from '../session.js';
import { readPhotoForm, uploadRoutes } from '../uploads.js';
import { photoDetailsOf } from '../../features/attachments/attachments.service.js';
import { type HistoryPaging, ITEM_NOTICES, itemPageView } from '../views/item-page.js';
import { formPage } from '../form-page.js';
import type { WebWrite, WebWriter } from '../web-write.js';

function oneOf<T extends string>(values: readonly T[], field: string, value: string | null): T {
  if (!(values as readonly (string | null)[]).includes(value))
    throw invalidField(field, 'reason.chooseOneOf', { values: values.join(', ') });
  return value as T;
}

/** The screenful of comments and timeline asked for; anything else than a positive number means the newest. */
function historyPaging(query: Record<string, string | undefined>): HistoryPaging {
  const positive = (value: string | undefined) => (value && /^[1-9][0-9]{0,9}$/.test(value) ? Number(value) : null);
  return { commentsBefore: positive(query.comments_before), timelinePage: positive(query.timeline) ?? 1 };
}

export async function itemPages(
  app: FastifyInstance,
  deps: Pick<
    AppContext,
    | 'items'
    | 'itemWrites'
    | 'comments'
    | 'answers'
    | 'attachments'
    | 'review'
    | 'clock'
    | 'events'
    | 'structure'
    | 'planViews'
    | 'itemLocations'
    | 'vocabulary'
    | 'itemDisputes'
  > & {
    webWrite: WebWriter;
  },
) {
  const {
    items,
    itemWrites,
    comments,
    answers,
    attachments,
    review,
    clock,
    events,
    structure,
    planViews,
    itemLocations,
    vocabulary,
    itemDisputes,
    webWrite,
  } = deps;

  const itemPage = formPage(webWrite, {
    entity: 'item',
    async view(request, itemId, failure) {
      const session = sessionOf(request);
      const workspace = await items.getItemWorkspace(session.user, itemId);
      const [{ events: itemEvents, names }, edit, place, projectVocabulary] = await Promise.all([
        events.ofItem(itemId),
        workspace.rights['item.edit'] ? structure.newItemChoices(session.user, workspace.project.id) : null,
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
    },
  });

  /** A write from one of the item page's forms: redirect back to the page (at the form), or show it again with the problem. */
  function itemWrite<T>(
    request: FastifyRequest,
    reply: FastifyReply,
    itemId: number,
    form: string,
    sent: URLSearchParams | UploadForm,
    write: WebWrite<T>['write'],
  ) {
    return itemPage.write(request, reply, itemId, {
      form,
      ...(sent instanceof URLSearchParams ? { fields: sent } : { fields: sent.fields, fingerprint: sent.fingerprint }),
      redirect: () => `/items/${itemId}?saved=${form.replace(/-\d+$/, '')}`,
      write,
    });
  }

  app.get('/items/:id', async (request, reply) => itemPage.show(request, reply, idParam(request)));

  // "Place on plan" (the tap on the plan's page, or the place typed there) and "Remove from plan" (docs/design.md §19).
  app.post('/items/:id/location', async (request, reply) => {
    const { user } = sessionOf(request);
    const [id, form] = [idParam(request), formOf(request)];
    const place = { planId: parseId(form.get('plan_id')) ?? 0, x: fractionOf(form.get('x')), y: fractionOf(form.get('y')) };
    return itemWrite(request, reply, id, 'place', form, (audit) => itemLocations.placeItem(user, id, place, audit));
  });
  app.post('/items/:id/location/remove', async (request, reply) => {
    const { user } = sessionOf(request);
    const id = idParam(request);
    return itemWrite(request, reply, id, 'unplace', formOf(request), (audit) => itemLocations.removeFromPlan(user, id, audit));
  });

  // A photo's stage and caption (docs/design.md §22): its uploader or a manager.
  app.post('/items/:id/photos/:photoId', async (request, reply) => {
    const { user } = sessionOf(request);
    const [id, photoId, form] = [idParam(request), idParam(request, 'photoId'), formOf(request)];
    await attachments.photoOfItem(user, photoId, id);
    return itemWrite(request, reply, id, `photo-${photoId}`, form, (audit) => {
      const details = photoDetailsOf({ stage: form.get('stage') ?? 'none', caption: form.get('caption') ?? '' });
      return attachments.describePhoto(user, photoId, { stage: details.stage ?? null, caption: details.caption ?? null }, audit);
    });
  });

  app.post('/items/:id/status', async (request, reply) => {
    const { user } = sessionOf(request);
    const [id, form] = [idParam(request), formOf(request)];
    return itemWrite(request, reply, id, 'status', form, (audit) =>
      itemWrites.setStatus(user, id, oneOf<ItemStatus>(ITEM_STATUSES, 'status', form.get('status')), audit),
    );
  });

  app.post('/items/:id/planning', async (request, reply) => {
    const { user } = sessionOf(request);
    const [id, form] = [idParam(request), formOf(request)];
    return itemWrite(request, reply, id, 'planning', form, (audit) =>
      itemWrites.setPlanning(
        user,
        id,
        {
          deadline: form.get('deadline') ?? '',
          priority: oneOf<Priority>(PRIORITIES, 'priority', form.get('priority')),
          requires_answer: form.has('requires_answer'),
          fromForm: true,
        },
        audit,
      ),
    );
  });

  // Disputes (docs/design.md §20).
  app.post('/items/:id/dispute', async (request, reply) => {
    const { user } = sessionOf(request);
    const [id, form] = [idParam(request), formOf(request)];
    return itemWrite(request, reply, id, 'dispute', form, (audit) =>
      itemDisputes.dispute(user, id, { reason: form.get('reason') ?? '' }, audit),
    );
  });

  app.post('/items/:id/resolve-dispute', async (request, reply) => {
    const { user } = sessionOf(request);
    const [id, form] = [idParam(request), formOf(request)];
    return itemWrite(request, reply, id, 'resolve-dispute', form, (audit) =>
      itemDisputes.resolve(user, id, { note: form.get('note') ?? '', companyId: companyOf(form) }, audit),
    );
  });

  app.post('/items/:id/comments', async (request, reply) => {
    const { user } = sessionOf(request);
    const [id, form] = [idParam(request), formOf(request)];
    return itemWrite(request, reply, id, 'comment', form, (audit) =>
      comments.addComment(user, id, { text: form.get('text') ?? '' }, audit),
    );
  });

  app.post('/items/:id/edit', async (request, reply) => {
    const { user } = sessionOf(request);
    const [id, form] = [idParam(request), formOf(request)];
    return itemWrite(request, reply, id, 'edit', form, (audit) =>
      structure.updateItem(
        user,
        id,
        {
          text: form.get('text') ?? undefined,
          description: form.get('description') ?? undefined,
          participantIds: form.has('participants_sent') ? idsOf(form, 'participants') : undefined,
          checklistId: form.has('checklist') ? (parseId(form.get('checklist')) ?? 0) : undefined,
          vocabulary: vocabularyOf(form),
          companyId: companyOf(form),
        },
        audit,
      ),
    );
  });

  app.post('/items/:id/links', async (request, reply) => {
    const { user } = sessionOf(request);
    const [id, form] = [idParam(request), formOf(request)];
    return itemWrite(request, reply, id, 'links', form, (audit) =>
      itemWrites.replaceItemLinks(
        user,
        id,
        documentLinksOf((name) => form.get(name)),
        audit,
      ),
    );
  });

  app.post('/items/:id/answers/:answerId/review', async (request, reply) => {
    const { user } = sessionOf(request);
    const [id, answerId, form] = [idParam(request), idParam(request, 'answerId'), formOf(request)];
    return itemWrite(request, reply, id, `review-${answerId}`, form, (buildAudit) =>
      review.reviewAnswer(user, answerId, form.get('decision') ?? '', {
        seenUpdatedAt: form.get('seen') ?? undefined,
        buildAudit,
        itemId: id,
      }),
    );
  });

  app.post('/items/:id/verdict', async (request, reply) => {
    const { user } = sessionOf(request);
    const [id, form] = [idParam(request), formOf(request)];
    return itemWrite(request, reply, id, 'verdict', form, (audit) => review.setItemVerdict(user, id, form.get('verdict') ?? '', audit));
  });

  app.post('/items/:id/rework', async (request, reply) => {
    const { user } = sessionOf(request);
    const [id, form] = [idParam(request), formOf(request)];
    return itemWrite(request, reply, id, 'rework', form, (audit) =>
      review.returnToRework(user, id, { reason: form.get('reason') ?? '', deadline: form.get('deadline') ?? '' }, audit),
    );
  });

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

  await uploadRoutes(app, (uploads) => {
    const ownCsrf = { config: { ownCsrf: true } };

    uploads.post('/items/:id/photos', ownCsrf, (request, reply) =>
      photoWrite(request, 'photos', (form, user) => {
        const id = idParam(request);
        return itemWrite(request, reply, id, 'photos', form, (audit) =>
          attachments.attachToItem(user, id, needPhotos(form.files), audit, photoDetailsOf(form.fields)),
        );
      }),
    );

    uploads.post('/items/:id/answers', ownCsrf, (request, reply) =>
      photoWrite(request, 'answer', (form, user) => {
        const id = idParam(request);
        const { fields, files } = form;
        return itemWrite(request, reply, id, 'answer', form, (audit) =>
          answers.addAnswer(
            user,
            id,
            {
              text: fields.text ?? '',
              document_links: documentLinksOf((name) => fields[name]),
              prepareImages: files.length ? () => attachments.prepare(files, photoDetailsOf(fields)) : undefined,
            },
            audit,
          ),
        );
      }),
    );

    uploads.post('/answers/:id/photos', ownCsrf, (request, reply) =>
      photoWrite(request, 'photos', async (form, user) => {
        const answerId = idParam(request);
        const itemId = await answers.itemOfAnswer(user, answerId);
        return itemWrite(request, reply, itemId, `answer-photos-${answerId}`, form, (audit) =>
          attachments.attachToAnswer(user, answerId, needPhotos(form.files), audit, photoDetailsOf(form.fields)),
        );
      }),
    );

    // "Save markup" (docs/design.md §22): the picture drawn on one of the item's (or its answers') photos. The form's
    // key is also the markup's own: the same drawing sent again, however late (the outbox), is stored once.
    uploads.post('/items/:id/markup/:photoId', ownCsrf, (request, reply) =>
      photoWrite(request, 'markup', async (form, user) => {
        const [id, photoId] = [idParam(request), idParam(request, 'photoId')];
        await attachments.photoOfItem(user, photoId, id);
        return itemWrite(request, reply, id, `markup-${photoId}`, form, async (audit) => {
          if (form.files.length !== 1) throw invalidField('attachments[]', 'reason.markedPicture');
          const details = { ...photoDetailsOf(form.fields), markupKey: form.fields._key || undefined };
          return attachments.markUp(user, photoId, form.files[0]!, details, audit);
        });
      }),
    );
  });
}

function needPhotos<T>(files: T[]): T[] {
  if (files.length === 0) throw invalidField('attachments[]', 'reason.choosePhoto');
  return files;
}
