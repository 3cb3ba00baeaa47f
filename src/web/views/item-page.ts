import type { ItemAction } from '../../domain/policy.js';
import { itemPlace, type ItemPlaceModel } from './item-place.js';
import { ITEM_STATUSES, LINK_KINDS, PRIORITIES, VERDICTS } from '../../domain/values.js';
import type { AnswerView, ItemCard, ItemWorkspace } from '../../features/items/index.js';
import type { WebSession } from '../../features/sessions/sessions.service.js';
import { EMPTY_LINK_ROWS } from '../form.js';
import { html, type SafeHtml } from '../html.js';
import { badge, crumbs, csrfField, languageOf, page, safeLink, time, writeKeyField } from '../layout.js';
import type { MessageKey, Translate } from '../../i18n/i18n.js';
import type { FormFailure } from '../web-write.js';
import { checked, FormState, selected } from './forms.js';
import { type ChecklistChoice, editItemForm, type Member, photoPicker, roleLabel } from './item-form.js';
import { timeline, type TimelineModel } from './timeline.js';
import type { Vocabulary } from '../../features/vocabulary/vocabulary.service.js';
import type { CompanyView } from '../../features/companies/companies.service.js';
import { companyOptions } from './admin-companies.js';
import { ballLabel, priorityLabel, statusLabel } from './project-page.js';
import { beforeAfterSection, markupDialog, photoList, type PhotoLike } from './photos.js';
import { KONVA, MARKUP_SCRIPT } from '../assets.js';

/** Which screenful of the item's history the page shows (the newest by default; "Show earlier" pages back). */
export interface HistoryPaging {
  /** Comments older than this comment id; null: the newest. */
  commentsBefore: number | null;
  /** The timeline's screenful, 1 being the newest. */
  timelinePage: number;
}

/** How many comments a page shows at once: an item's page stays small however long its history (issue 46). */
export const COMMENTS_PER_PAGE = 20;

interface ItemPageModel extends ItemWorkspace {
  session: WebSession;
  /** The earliest deadline a form takes (today somewhere: domain/inputs.ts), the date inputs' `min`. */
  earliestDeadline: string;
  paging: HistoryPaging;
  notice: string | null;
  failure: FormFailure | null;
  timeline: TimelineModel;
  /** What "Edit item" offers, for those who may edit the item. */
  edit: { choices: ChecklistChoice[]; members: Member[]; vocabulary: Vocabulary; companies: CompanyView[] } | null;
  /** Where the item is on the project's plans (docs/design.md §19). */
  place: ItemPlaceModel;
}

interface LinkLike {
  kind: string;
  title: string;
  url: string;
}

/** The notice after each write of the item page (`?saved=`), in the page's language. */
export const ITEM_NOTICES: Record<string, MessageKey> = {
  status: 'item.saved.status',
  planning: 'item.saved.planning',
  comment: 'item.saved.comment',
  answer: 'item.saved.answer',
  photos: 'item.saved.photos',
  links: 'item.saved.links',
  'answer-photos': 'item.saved.answerPhotos',
  markup: 'item.saved.markup',
  photo: 'item.saved.photo',
  review: 'item.saved.review',
  verdict: 'item.saved.verdict',
  rework: 'item.saved.rework',
  created: 'item.saved.created',
  edit: 'item.saved.edit',
  place: 'item.saved.place',
  unplace: 'item.saved.unplace',
  dispute: 'item.saved.dispute',
  'resolve-dispute': 'item.saved.resolveDispute',
};

const tOf = (m: { session: WebSession }) => languageOf(m.session).t;

/** A link's kind (document, spreadsheet, …) in the page's language. */
const kindLabel = (t: Translate, kind: string) =>
  (LINK_KINDS as readonly string[]).includes(kind) ? t(`link.kind.${kind}` as MessageKey) : kind;

/** A link row's field as the summary names it: `link-1-url` is "Link 2 address". */
const linkFieldLabel = (t: Translate) => (field: string) => {
  const [, row = '0', part = ''] = /^link-(\d+)-(\w+)$/.exec(field) ?? [];
  const number = Number(row) + 1;
  return part === 'url'
    ? t('link.address', { number })
    : part === 'title'
      ? t('link.titleOf', { number })
      : `${t('link.number', { number })} ${part}`;
};

const linkList = (list: LinkLike[], t: Translate) =>
  list.length
    ? html`<ul class="links">${list.map((l) => html`<li>${safeLink(l.url, l.title)} <span class="muted">(${kindLabel(t, l.kind)})</span></li>`)}</ul>`
    : '';

/** The photos of the item (answerId null) or of an answer, with their markup and details controls (views/photos.ts). */
const photosOf = (m: ItemPageModel, list: PhotoLike[], mayMarkUp: boolean) =>
  photoList(
    {
      itemId: m.item.id,
      session: m.session,
      failure: m.failure,
      mayMarkUp,
      mayDescribeAny: m.rights['photo.describe'],
      writeForm: (action, body, options) => writeForm(m, action, body, options),
    },
    list,
  );

/** Whether the page offers "Mark up" on some photo: then it carries the markup view and its scripts. */
const marksUp = (m: ItemPageModel) =>
  (m.rights['item.materials'] && m.item.attachments.length > 0) ||
  m.item.answers.some((a) => a.attachments.length > 0 && m.answerImages.has(a.id));

/** A form that writes: CSRF token and idempotency key, posting to the item's action. */
function writeForm(
  m: ItemPageModel,
  action: string,
  body: SafeHtml,
  options: { multipart?: boolean; id?: string; enhance?: boolean } = {},
) {
  return html`<form method="post" action="${action}" ${options.id ? html`id="${options.id}"` : ''} ${options.multipart ? html`enctype="multipart/form-data"` : ''} ${options.enhance ? html`data-enhance` : ''}>
${csrfField(m.session)}${writeKeyField()}
${body}
</form>`;
}

const fileInput = (form: FormState, id: string, text: string, t: Translate, options: { capture?: boolean } = {}) =>
  photoPicker(form, id, text, { ...options, hint: t('item.photosHint') }, t);

function linkRows(form: FormState, prefix: string, current: LinkLike[], t: Translate) {
  const rows = [...current, ...Array.from({ length: EMPTY_LINK_ROWS }, () => ({ kind: 'document', title: '', url: '' }))];
  return rows.map((link, row) => {
    const id = `${prefix}-${row}`;
    const name = (part: string) => `link-${row}-${part}`;
    return html`<fieldset class="link-row"><legend>${t('link.number', { number: row + 1 })}</legend>
<div><label for="${id}-title">${t('link.title')}</label><input id="${id}-title" type="text" name="${name('title')}" maxlength="500" value="${form.value(name('title'), link.title)}" ${form.aria(name('title'), `${id}-title`)}>
${form.message(name('title'), `${id}-title`)}</div>
<div><label for="${id}-url">${t('link.url')}</label><input id="${id}-url" type="url" name="${name('url')}" value="${form.value(name('url'), link.url)}" ${form.aria(name('url'), `${id}-url`)}>
${form.message(name('url'), `${id}-url`)}</div>
<div><label for="${id}-kind">${t('link.kind')}</label><select id="${id}-kind" name="${name('kind')}">${LINK_KINDS.map(
      (k) => html`<option value="${k}" ${selected(form.value(name('kind'), link.kind) === k)}>${kindLabel(t, k)}</option>`,
    )}</select></div>
</fieldset>`;
  });
}

function statusForm(m: ItemPageModel, item: ItemCard) {
  const t = tOf(m);
  const form = new FormState('status', m.failure, t);
  const current = form.value('status', item.status);
  return writeForm(
    m,
    `/items/${item.id}/status`,
    html`${form.summary({ status: ['item-status-select', t('project.status')] })}<label for="item-status-select">${t('project.status')}</label>
<select id="item-status-select" name="status" ${form.aria('status', 'item-status-select')}>${ITEM_STATUSES.map(
      (s) => html`<option value="${s}" ${selected(current === s)}>${statusLabel(t, s)}</option>`,
    )}</select>
${form.message('status', 'item-status-select')}
<div class="actions"><button type="submit">${t('item.saveStatus')}</button></div>`,
    { id: 'status', enhance: true },
  );
}

function planningForm(m: ItemPageModel, item: ItemCard) {
  const t = tOf(m);
  const form = new FormState('planning', m.failure, t);
  const priority = form.value('priority', item.priority);
  return html`<details class="fold" ${form.failed ? html`open` : ''}><summary>${t('item.planning')}</summary>${writeForm(
    m,
    `/items/${item.id}/planning`,
    html`${form.summary({
      deadline: ['planning-deadline', t('project.deadline')],
      priority: ['planning-priority', t('project.priority')],
      requires_answer: ['planning-requires', t('itemForm.answerRequired')],
    })}
<label for="planning-deadline">${t('project.deadline')}</label>
<input id="planning-deadline" type="date" name="deadline" value="${form.value('deadline', item.deadline ?? '')}" ${form.aria('deadline', 'planning-deadline')}>
${form.message('deadline', 'planning-deadline')}
<label for="planning-priority">${t('project.priority')}</label>
<select id="planning-priority" name="priority">${PRIORITIES.map((p) => html`<option value="${p}" ${selected(priority === p)}>${priorityLabel(t, p)}</option>`)}</select>
<label class="inline" for="planning-requires"><input id="planning-requires" type="checkbox" name="requires_answer" value="1" aria-describedby="planning-requires-hint" ${checked(form.checked('requires_answer', item.requires_answer))}> ${t('itemForm.answerRequired')}</label>
<p class="hint" id="planning-requires-hint">${t('itemForm.answerRequiredHint')}</p>
<div class="actions"><button type="submit">${t('item.savePlanning')}</button></div>`,
    { id: 'planning' },
  )}</details>`;
}

function materials(m: ItemPageModel, item: ItemCard) {
  const t = tOf(m);
  const links = new FormState('links', m.failure, t);
  const photos = new FormState('photos', m.failure, t);
  const may = m.rights['item.materials'];
  return html`<section class="card" aria-labelledby="materials-title">
<h2 id="materials-title">${t('item.materials')}</h2>
${item.document_links.length ? linkList(item.document_links, t) : html`<p class="muted">${t('item.noLinks')}</p>`}
${
  may
    ? html`<details ${links.failed ? html`open` : ''}><summary>${t('item.editLinks')}</summary>
${writeForm(
  m,
  `/items/${item.id}/links`,
  html`${links.summary({ 'link-*': ['item-link-*', linkFieldLabel(t)] })}<p class="hint">${t('item.linksHint')}</p>
${linkRows(links, 'item-link', item.document_links, t)}
<div class="actions"><button type="submit">${t('item.saveLinks')}</button></div>`,
  { id: 'links' },
)}</details>`
    : ''
}
<h3>${t('photos.photos')}</h3>
${item.attachments.length ? photosOf(m, item.attachments, may) : html`<p class="muted">${t('item.noPhotos')}</p>`}
${
  may
    ? writeForm(
        m,
        `/items/${item.id}/photos`,
        html`${photos.summary({ 'attachments[]': ['item-photos', t('photos.photos')], stage: ['item-photos-stage', t('photos.stage')], caption: ['item-photos-caption', t('photos.caption')] })}${fileInput(photos, 'item-photos', t('photos.photos'), t, { capture: true })}
<div class="preview" data-preview-for="item-photos" aria-live="polite"></div>
<div class="actions"><button type="submit">${t('item.uploadPhotos')}</button></div>`,
        { multipart: true, id: 'photos' },
      )
    : ''
}
</section>`;
}

function reviewSection(m: ItemPageModel, item: ItemCard) {
  if (!m.rights['item.verdict'] && !m.rights['item.rework']) return '';
  const t = tOf(m);
  const verdict = new FormState('verdict', m.failure, t);
  const rework = new FormState('rework', m.failure, t);
  const currentVerdict = verdict.value('verdict', item.verdict ?? '');
  return html`<section class="card" aria-labelledby="review-title">
<h2 id="review-title">${t('item.review')}</h2>
${
  m.rights['item.verdict']
    ? writeForm(
        m,
        `/items/${item.id}/verdict`,
        html`${verdict.summary({ verdict: ['item-verdict-select', t('item.verdict')] })}<label for="item-verdict-select">${t('item.verdict')}</label>
<select id="item-verdict-select" name="verdict" ${verdict.aria('verdict', 'item-verdict-select')}><option value="" ${selected(currentVerdict === '')}>${t('item.noVerdict')}</option>
${VERDICTS.map((v) => html`<option value="${v}" ${selected(currentVerdict === v)}>${statusLabel(t, v)}</option>`)}</select>
${verdict.message('verdict', 'item-verdict-select')}
<div class="actions"><button type="submit">${t('item.saveVerdict')}</button></div>`,
        { id: 'verdict' },
      )
    : ''
}
${
  m.rights['item.rework']
    ? html`<h3>${t('item.rework')}</h3>${writeForm(
        m,
        `/items/${item.id}/rework`,
        html`${rework.summary({ reason: ['rework-reason', t('item.reason')], deadline: ['rework-deadline', t('item.reworkDeadline')] })}<label for="rework-reason">${t('item.reason')}</label>
<textarea id="rework-reason" name="reason" required maxlength="2000" ${rework.aria('reason', 'rework-reason')}>${rework.value('reason')}</textarea>
${rework.message('reason', 'rework-reason')}
<label for="rework-deadline">${t('item.reworkDeadline')}</label>
<input id="rework-deadline" type="date" name="deadline" required min="${m.earliestDeadline}" value="${rework.value('deadline')}" ${rework.aria('deadline', 'rework-deadline')}>
${rework.message('deadline', 'rework-deadline')}
<div class="actions"><button type="submit">${t('item.rework')}</button></div>`,
        { id: 'rework' },
      )}`
    : ''
}
</section>`;
}

function answerArticle(m: ItemPageModel, item: ItemCard, a: AnswerView) {
  const t = tOf(m);
  const review = new FormState(`review-${a.id}`, m.failure, t);
  const photos = new FormState(`answer-photos-${a.id}`, m.failure, t);
  return html`<article data-testid="answer" data-answer-id="${a.id}" aria-label="${t('item.answerBy', { name: a.author.name })}" id="answer-${a.id}">
<p><strong>${a.author.name}</strong> · ${time(a.created_at, '—', m.session.timeZone)} · <span data-testid="answer-status">${badge(a.status, '—', t)}</span></p>
<p class="text">${a.text}</p>
${linkList(a.document_links, t)}
${photosOf(m, a.attachments, m.answerImages.has(a.id))}
${review.summary({})}
${
  m.rights['answer.review']
    ? html`<div class="actions">${(['approved', 'rejected'] as const)
        .filter((decision) => decision !== a.status)
        .map((decision) =>
          writeForm(
            m,
            `/items/${item.id}/answers/${a.id}/review`,
            html`<input type="hidden" name="decision" value="${decision}"><input type="hidden" name="seen" value="${a.updated_at}">
<button type="submit" class="${decision === 'approved' ? 'small' : 'small danger'}">${decision === 'approved' ? t('item.approve') : t('item.reject')}</button>`,
          ),
        )}</div>`
    : ''
}
${
  m.answerImages.has(a.id)
    ? html`<details ${photos.failed ? html`open` : ''}><summary>${t('item.addPictures')}</summary>${writeForm(
        m,
        `/answers/${a.id}/photos`,
        html`${photos.summary({ 'attachments[]': [`answer-${a.id}-photos`, t('item.pictures')], stage: [`answer-${a.id}-photos-stage`, t('photos.stage')], caption: [`answer-${a.id}-photos-caption`, t('photos.caption')] })}${fileInput(photos, `answer-${a.id}-photos`, t('item.picturesForAnswer'), t, { capture: true })}
<div class="preview" data-preview-for="answer-${a.id}-photos" aria-live="polite"></div>
<div class="actions"><button type="submit" class="small">${t('item.uploadPictures')}</button></div>`,
        { multipart: true },
      )}</details>`
    : ''
}
</article>`;
}

function answerForm(m: ItemPageModel, item: ItemCard) {
  const t = tOf(m);
  const form = new FormState('answer', m.failure, t);
  // Unfolded whenever a link was sent with a refused answer, so its message (beside the field) is seen.
  const linksSent =
    form.failed &&
    Array.from({ length: EMPTY_LINK_ROWS }, (_, row) => form.value(`link-${row}-title`) + form.value(`link-${row}-url`)).some(
      (v) => v !== '',
    );
  return html`<h3>${t('item.addAnswerTitle')}</h3>${writeForm(
    m,
    `/items/${item.id}/answers`,
    html`${form.summary({
      text: ['answer-text', t('item.answer')],
      'attachments[]': ['answer-photos', t('item.pictures')],
      stage: ['answer-photos-stage', t('photos.stage')],
      caption: ['answer-photos-caption', t('photos.caption')],
      'link-*': ['answer-link-*', linkFieldLabel(t)],
    })}
<label for="answer-text">${t('item.answer')}</label>
<textarea id="answer-text" name="text" required maxlength="20000" ${form.aria('text', 'answer-text')}>${form.value('text')}</textarea>
${form.message('text', 'answer-text')}
<details ${linksSent ? html`open` : ''}><summary>${t('item.answerLinks')}</summary>${linkRows(form, 'answer-link', [], t)}</details>
${fileInput(form, 'answer-photos', t('item.picturesOptional'), t, { capture: true })}
<div class="preview" data-preview-for="answer-photos" aria-live="polite"></div>
<div class="actions"><button type="submit">${t('item.addAnswer')}</button></div>`,
    { multipart: true, id: 'answer' },
  )}`;
}

/**
 * Disputes (docs/design.md §20): "Dispute" for the item's executors while none is open; "Resolve dispute" for managers
 * while one is (keep the company or give the item to another, with a note).
 */
function disputeSection(m: ItemPageModel, item: ItemCard) {
  const t = tOf(m);
  if (item.disputed && m.rights['item.resolve_dispute']) {
    const form = new FormState('resolve-dispute', m.failure, t);
    const current = item.responsible_company?.id ?? null;
    const value = form.value('company', current === null ? '' : String(current));
    return html`<section class="card" aria-labelledby="resolve-title" id="resolve-dispute"><h2 id="resolve-title">${t('item.resolveDispute')}</h2>
${writeForm(
  m,
  `/items/${item.id}/resolve-dispute`,
  html`${form.summary({ company: ['resolve-company', t('project.company')], note: ['resolve-note', t('item.note')] })}
<label for="resolve-company">${t('project.company')}</label>
<select id="resolve-company" name="company" ${form.aria('company', 'resolve-company')}>${companyOptions(m.edit?.companies ?? [], value === '' ? null : Number(value), t('project.bulk.noCompany'))}</select>
${form.message('company', 'resolve-company')}
<label for="resolve-note">${t('item.note')}</label>
<textarea id="resolve-note" name="note" required maxlength="2000" ${form.aria('note', 'resolve-note')}>${form.value('note')}</textarea>
${form.message('note', 'resolve-note')}
<div class="actions"><button type="submit">${t('item.resolveDispute')}</button></div>`,
  { id: 'resolve-dispute-form' },
)}</section>`;
  }
  if (!item.disputed && m.rights['item.dispute']) {
    const form = new FormState('dispute', m.failure, t);
    return html`<details class="card" id="dispute" ${form.failed ? html`open` : ''}><summary>${t('item.dispute')}</summary>
${writeForm(
  m,
  `/items/${item.id}/dispute`,
  html`${form.summary({ reason: ['dispute-reason', t('item.reason')] })}
<p class="hint" id="dispute-hint">${t('item.disputeHint')}</p>
<label for="dispute-reason">${t('item.reason')}</label>
<textarea id="dispute-reason" name="reason" required maxlength="2000" aria-describedby="dispute-hint" ${form.aria('reason', 'dispute-reason')}>${form.value('reason')}</textarea>
${form.message('reason', 'dispute-reason')}
<div class="actions"><button type="submit">${t('item.disputeItem')}</button></div>`,
  { id: 'dispute-form' },
)}</details>`;
  }
  return '';
}

function commentForm(m: ItemPageModel, item: ItemCard) {
  const t = tOf(m);
  const form = new FormState('comment', m.failure, t);
  return writeForm(
    m,
    `/items/${item.id}/comments`,
    html`${form.summary({ text: ['comment-text', t('item.comment')] })}<label for="comment-text">${t('item.comment')}</label>
<textarea id="comment-text" name="text" required maxlength="20000" ${form.aria('text', 'comment-text')}>${form.value('text')}</textarea>
${form.message('text', 'comment-text')}
<div class="actions"><button type="submit">${t('item.addComment')}</button></div>`,
    { id: 'comment' },
  );
}

/**
 * The comments, one screenful: the newest COMMENTS_PER_PAGE (or those before `commentsBefore`), oldest first, with
 * links (no script needed) to the screenful before and back to the newest.
 */
function commentsSection(m: ItemPageModel, item: ItemCard) {
  const before = m.paging.commentsBefore;
  const eligible = before === null ? item.comments : item.comments.filter((c) => c.id < before);
  const shown = eligible.slice(-COMMENTS_PER_PAGE);
  const earlier = eligible.length > shown.length;
  const t = tOf(m);
  return html`<section class="card comments" aria-labelledby="comments-title" id="comments">
<h2 id="comments-title">${t('item.comments', { count: item.comments.length })}</h2>
${earlier ? html`<p class="pager"><a href="/items/${item.id}?comments_before=${shown[0]!.id}#comments" data-testid="comments-earlier">${t('item.earlierComments')}</a> <span class="muted">(${t('item.more', { count: eligible.length - shown.length })})</span></p>` : ''}
${
  shown.length
    ? shown.map(
        (c) =>
          html`<article data-testid="comment"><p><strong>${c.author.name}</strong> · ${time(c.created_at, '—', m.session.timeZone)}</p><p class="text">${c.text}</p></article>`,
      )
    : html`<p class="muted">${t('item.noComments')}</p>`
}
${before !== null ? html`<p class="pager"><a href="/items/${item.id}#comments" data-testid="comments-latest">${t('item.latestComments')}</a></p>` : ''}
${m.rights['comment.add'] ? commentForm(m, item) : ''}
</section>`;
}

/** Where a form is on the page: an answer's own forms (review, pictures) are in its article. */
const formAnchor = (form: string) =>
  form.replace(/^(?:review|answer-photos)-(\d+)$/, 'answer-$1').replace(/^(?:markup|photo)-(\d+)$/, 'photo-$1');

/** The item page: the card, and each control of the work that the policy lets this user use. */
export function itemPageView(m: ItemPageModel): string {
  const { item, project, rights } = m;
  const may = (action: ItemAction) => rights[action];
  const t = tOf(m);
  return page({
    title: item.text,
    session: m.session,
    path: '/projects',
    notice: m.notice,
    scripts: marksUp(m) ? [KONVA, MARKUP_SCRIPT] : [],
    error: m.failure ? html`${t('itemForm.nothingSaved')} <a href="#${formAnchor(m.failure.form)}">${t('item.goToForm')}</a>` : null,
    body: html`${crumbs(
      [
        { href: '/projects', label: t('nav.projects') },
        { href: `/projects/${project.id}`, label: project.name },
      ],
      t,
    )}
<h1>${item.text}</h1>
<section class="card" aria-label="${t('item.summary')}">
<dl class="facts">
<dt>${t('project.status')}</dt><dd data-testid="item-status">${badge(item.status, '—', t)}</dd>
<dt>${t('project.priority')}</dt><dd data-testid="item-priority">${priorityLabel(t, item.priority)}</dd>
<dt>${t('project.deadline')}</dt><dd data-testid="item-deadline">${item.deadline ?? '—'}</dd>
<dt>${t('itemForm.answerRequired')}</dt><dd>${item.requires_answer ? html`${t('item.yes')} <span class="muted">(${t('item.acceptedOnce')})</span>` : t('item.no')}</dd>
<dt>${t('project.participants')}</dt><dd>${item.participants.length ? item.participants.map((p, i) => html`${i ? ', ' : ''}${p.name}${p.role ? html` <span class="muted">(${roleLabel(t, p.role)})</span>` : ''}`) : '—'}</dd>
<dt>${t('project.verdict')}</dt><dd data-testid="item-verdict">${badge(item.verdict, '—', t)}</dd>
${item.category ? html`<dt>${t('project.category')}</dt><dd data-testid="item-category">${item.category}</dd>` : ''}
${Object.entries(item.fields).map(([name, value]) => html`<dt>${name}</dt><dd data-testid="item-field">${value}</dd>`)}
<dt>${t('project.company')}</dt><dd data-testid="item-company">${item.responsible_company?.name ?? '—'}</dd>
<dt>${t('project.ballInCourt')}</dt><dd data-testid="item-ball-in-court" data-value="${item.ball_in_court}">${ballLabel(t, item.ball_in_court, item.responsible_company)}</dd>
${item.disputed ? html`<dt>${t('item.disputed')}</dt><dd data-testid="item-disputed"><span class="text">${item.disputed.reason}</span> <span class="muted">— ${item.disputed.by?.name ?? '—'}, ${time(item.disputed.at, '—', m.session.timeZone)}</span></dd>` : ''}
${item.rework_reason ? html`<dt>${t('item.reworkFact')}</dt><dd data-testid="item-rework"><span class="text">${item.rework_reason}</span> <span class="muted">— ${t('item.due', { date: item.rework_deadline ?? '—' })}</span></dd>` : ''}
</dl>
${item.description ? html`<h2>${t('itemForm.description')}</h2><p class="text">${item.description}</p>` : ''}
</section>
${itemPlace(m.session, m.place, m.failure)}
${disputeSection(m, item)}
${m.edit ? editItemForm({ session: m.session, item, ...m.edit, failure: m.failure, writeForm: (action, body, options) => writeForm(m, action, body, options) }) : ''}
${
  may('item.status') || may('item.planning')
    ? html`<section class="card" aria-labelledby="work-title">
<h2 id="work-title">${t('item.work')}</h2>
${may('item.status') ? statusForm(m, item) : ''}
${may('item.planning') ? planningForm(m, item) : ''}
</section>`
    : ''
}
${materials(m, item)}
${beforeAfterSection([...item.attachments, ...item.answers.flatMap((a) => a.attachments)], t)}
${reviewSection(m, item)}
<section class="card answers" aria-labelledby="answers-title">
<h2 id="answers-title">${t('item.answers', { count: item.answers.length })}</h2>
${item.answers.length ? item.answers.map((a) => answerArticle(m, item, a)) : html`<p class="muted">${t('item.noAnswers')}</p>`}
${may('answer.add') ? answerForm(m, item) : ''}
</section>
${commentsSection(m, item)}
${timeline(m.timeline, m.session.timeZone, { page: m.paging.timelinePage, address: `/items/${item.id}` }, t)}
${marksUp(m) ? markupDialog(m.session) : ''}`,
  }).value;
}
