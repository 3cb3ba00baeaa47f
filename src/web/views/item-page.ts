import type { ItemAction } from '../../domain/policy.js';
import { itemPlace, type ItemPlaceModel } from './item-place.js';
import { ITEM_STATUSES, LINK_KINDS, PRIORITIES, VERDICTS } from '../../domain/values.js';
import type { AnswerView, ItemCard } from '../../features/items/item-views.js';
import type { ItemWorkspace } from '../../features/items/items.service.js';
import type { WebSession } from '../../features/sessions/sessions.service.js';
import { EMPTY_LINK_ROWS } from '../form.js';
import { html, type SafeHtml } from '../html.js';
import { badge, crumbs, csrfField, page, safeLink, time, writeKeyField } from '../layout.js';
import type { FormFailure } from '../web-write.js';
import { checked, FormState, selected } from './forms.js';
import { ANSWER_REQUIRED_HINT, type ChecklistChoice, editItemForm, type Member, photoPicker } from './item-form.js';
import { timeline, type TimelineModel } from './timeline.js';
import type { Vocabulary } from '../../features/vocabulary/vocabulary.service.js';
import type { CompanyView } from '../../features/companies/companies.service.js';
import { ballInCourtLabel } from '../../domain/ball-in-court.js';
import { companyOptions } from './admin-companies.js';
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

export const ITEM_NOTICES: Record<string, string> = {
  status: 'The status was saved.',
  planning: 'The planning was saved.',
  comment: 'Your comment was added.',
  answer: 'Your answer was added. It awaits review.',
  photos: 'The photos were added.',
  links: 'The document links were saved.',
  'answer-photos': 'The photos were added to the answer.',
  markup: 'The marked-up photo was saved.',
  photo: 'The photo’s stage and caption were saved.',
  review: 'The answer review was saved.',
  verdict: 'The verdict was saved.',
  rework: 'The item was returned to rework.',
  created: 'The item was created.',
  edit: 'The item was saved.',
  place: 'The item was placed on the plan.',
  unplace: 'The item was removed from its plan.',
  dispute: 'The item is disputed: the managers will review it.',
  'resolve-dispute': 'The dispute was resolved.',
};

const label = (value: string) => value.replace(/_/g, ' ');
/** A link row's field as the summary names it: `link-1-url` is "Link 2 address". */
const linkFieldLabel = (field: string) => {
  const [, row = '0', part = ''] = /^link-(\d+)-(\w+)$/.exec(field) ?? [];
  return `Link ${Number(row) + 1} ${part === 'url' ? 'address' : part}`;
};

const linkList = (list: LinkLike[]) =>
  list.length
    ? html`<ul class="links">${list.map((l) => html`<li>${safeLink(l.url, l.title)} <span class="muted">(${l.kind})</span></li>`)}</ul>`
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

const fileInput = (form: FormState, id: string, text: string, options: { capture?: boolean } = {}) =>
  photoPicker(form, id, text, { ...options, hint: 'PNG, JPEG, GIF or WebP; up to 10 images of 20 MiB each. They are stored as WebP.' });

function linkRows(form: FormState, prefix: string, current: LinkLike[]) {
  const rows = [...current, ...Array.from({ length: EMPTY_LINK_ROWS }, () => ({ kind: 'document', title: '', url: '' }))];
  return rows.map((link, row) => {
    const id = `${prefix}-${row}`;
    const name = (part: string) => `link-${row}-${part}`;
    return html`<fieldset class="link-row"><legend>Link ${row + 1}</legend>
<div><label for="${id}-title">Title</label><input id="${id}-title" type="text" name="${name('title')}" maxlength="500" value="${form.value(name('title'), link.title)}" ${form.aria(name('title'), `${id}-title`)}>
${form.message(name('title'), `${id}-title`)}</div>
<div><label for="${id}-url">Address (https://…)</label><input id="${id}-url" type="url" name="${name('url')}" value="${form.value(name('url'), link.url)}" ${form.aria(name('url'), `${id}-url`)}>
${form.message(name('url'), `${id}-url`)}</div>
<div><label for="${id}-kind">Kind</label><select id="${id}-kind" name="${name('kind')}">${LINK_KINDS.map(
      (k) => html`<option value="${k}" ${selected(form.value(name('kind'), link.kind) === k)}>${k}</option>`,
    )}</select></div>
</fieldset>`;
  });
}

function statusForm(m: ItemPageModel, item: ItemCard) {
  const form = new FormState('status', m.failure);
  const current = form.value('status', item.status);
  return writeForm(
    m,
    `/items/${item.id}/status`,
    html`${form.summary({ status: ['item-status-select', 'Status'] })}<label for="item-status-select">Status</label>
<select id="item-status-select" name="status" ${form.aria('status', 'item-status-select')}>${ITEM_STATUSES.map(
      (s) => html`<option value="${s}" ${selected(current === s)}>${label(s)}</option>`,
    )}</select>
${form.message('status', 'item-status-select')}
<div class="actions"><button type="submit">Save status</button></div>`,
    { id: 'status', enhance: true },
  );
}

function planningForm(m: ItemPageModel, item: ItemCard) {
  const form = new FormState('planning', m.failure);
  const priority = form.value('priority', item.priority);
  return html`<details class="fold" ${form.failed ? html`open` : ''}><summary>Planning</summary>${writeForm(
    m,
    `/items/${item.id}/planning`,
    html`${form.summary({
      deadline: ['planning-deadline', 'Deadline'],
      priority: ['planning-priority', 'Priority'],
      requires_answer: ['planning-requires', 'Answer required'],
    })}
<label for="planning-deadline">Deadline</label>
<input id="planning-deadline" type="date" name="deadline" value="${form.value('deadline', item.deadline ?? '')}" ${form.aria('deadline', 'planning-deadline')}>
${form.message('deadline', 'planning-deadline')}
<label for="planning-priority">Priority</label>
<select id="planning-priority" name="priority">${PRIORITIES.map((p) => html`<option value="${p}" ${selected(priority === p)}>${p}</option>`)}</select>
<label class="inline" for="planning-requires"><input id="planning-requires" type="checkbox" name="requires_answer" value="1" aria-describedby="planning-requires-hint" ${checked(form.checked('requires_answer', item.requires_answer))}> Answer required</label>
<p class="hint" id="planning-requires-hint">${ANSWER_REQUIRED_HINT}</p>
<div class="actions"><button type="submit">Save planning</button></div>`,
    { id: 'planning' },
  )}</details>`;
}

function materials(m: ItemPageModel, item: ItemCard) {
  const links = new FormState('links', m.failure);
  const photos = new FormState('photos', m.failure);
  const may = m.rights['item.materials'];
  return html`<section class="card" aria-labelledby="materials-title">
<h2 id="materials-title">Documents and photos</h2>
${item.document_links.length ? linkList(item.document_links) : html`<p class="muted">No document links.</p>`}
${
  may
    ? html`<details ${links.failed ? html`open` : ''}><summary>Edit document links</summary>
${writeForm(
  m,
  `/items/${item.id}/links`,
  html`${links.summary({ 'link-*': ['item-link-*', linkFieldLabel] })}<p class="hint">Empty a row to remove its link. Saving replaces the whole list.</p>
${linkRows(links, 'item-link', item.document_links)}
<div class="actions"><button type="submit">Save links</button></div>`,
  { id: 'links' },
)}</details>`
    : ''
}
<h3>Photos</h3>
${item.attachments.length ? photosOf(m, item.attachments, may) : html`<p class="muted">No photos yet.</p>`}
${
  may
    ? writeForm(
        m,
        `/items/${item.id}/photos`,
        html`${photos.summary({ 'attachments[]': ['item-photos', 'Photos'], stage: ['item-photos-stage', 'Stage'], caption: ['item-photos-caption', 'Caption'] })}${fileInput(photos, 'item-photos', 'Photos', { capture: true })}
<div class="preview" data-preview-for="item-photos" aria-live="polite"></div>
<div class="actions"><button type="submit">Upload photos</button></div>`,
        { multipart: true, id: 'photos' },
      )
    : ''
}
</section>`;
}

function reviewSection(m: ItemPageModel, item: ItemCard) {
  if (!m.rights['item.verdict'] && !m.rights['item.rework']) return '';
  const verdict = new FormState('verdict', m.failure);
  const rework = new FormState('rework', m.failure);
  const currentVerdict = verdict.value('verdict', item.verdict ?? '');
  return html`<section class="card" aria-labelledby="review-title">
<h2 id="review-title">Review</h2>
${
  m.rights['item.verdict']
    ? writeForm(
        m,
        `/items/${item.id}/verdict`,
        html`${verdict.summary({ verdict: ['item-verdict-select', 'Item verdict'] })}<label for="item-verdict-select">Item verdict</label>
<select id="item-verdict-select" name="verdict" ${verdict.aria('verdict', 'item-verdict-select')}><option value="" ${selected(currentVerdict === '')}>No verdict</option>
${VERDICTS.map((v) => html`<option value="${v}" ${selected(currentVerdict === v)}>${v}</option>`)}</select>
${verdict.message('verdict', 'item-verdict-select')}
<div class="actions"><button type="submit">Save verdict</button></div>`,
        { id: 'verdict' },
      )
    : ''
}
${
  m.rights['item.rework']
    ? html`<h3>Return to rework</h3>${writeForm(
        m,
        `/items/${item.id}/rework`,
        html`${rework.summary({ reason: ['rework-reason', 'Reason'], deadline: ['rework-deadline', 'Rework deadline'] })}<label for="rework-reason">Reason</label>
<textarea id="rework-reason" name="reason" required maxlength="2000" ${rework.aria('reason', 'rework-reason')}>${rework.value('reason')}</textarea>
${rework.message('reason', 'rework-reason')}
<label for="rework-deadline">Rework deadline</label>
<input id="rework-deadline" type="date" name="deadline" required min="${m.earliestDeadline}" value="${rework.value('deadline')}" ${rework.aria('deadline', 'rework-deadline')}>
${rework.message('deadline', 'rework-deadline')}
<div class="actions"><button type="submit">Return to rework</button></div>`,
        { id: 'rework' },
      )}`
    : ''
}
</section>`;
}

function answerArticle(m: ItemPageModel, item: ItemCard, a: AnswerView) {
  const review = new FormState(`review-${a.id}`, m.failure);
  const photos = new FormState(`answer-photos-${a.id}`, m.failure);
  return html`<article data-testid="answer" data-answer-id="${a.id}" aria-label="${`Answer by ${a.author.name}`}" id="answer-${a.id}">
<p><strong>${a.author.name}</strong> · ${time(a.created_at, '—', m.session.timeZone)} · <span data-testid="answer-status">${badge(a.status)}</span></p>
<p class="text">${a.text}</p>
${linkList(a.document_links)}
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
<button type="submit" class="${decision === 'approved' ? 'small' : 'small danger'}">${decision === 'approved' ? 'Approve' : 'Reject'}</button>`,
          ),
        )}</div>`
    : ''
}
${
  m.answerImages.has(a.id)
    ? html`<details ${photos.failed ? html`open` : ''}><summary>Add pictures to this answer</summary>${writeForm(
        m,
        `/answers/${a.id}/photos`,
        html`${photos.summary({ 'attachments[]': [`answer-${a.id}-photos`, 'Pictures'], stage: [`answer-${a.id}-photos-stage`, 'Stage'], caption: [`answer-${a.id}-photos-caption`, 'Caption'] })}${fileInput(photos, `answer-${a.id}-photos`, 'Pictures for this answer', { capture: true })}
<div class="preview" data-preview-for="answer-${a.id}-photos" aria-live="polite"></div>
<div class="actions"><button type="submit" class="small">Upload pictures</button></div>`,
        { multipart: true },
      )}</details>`
    : ''
}
</article>`;
}

function answerForm(m: ItemPageModel, item: ItemCard) {
  const form = new FormState('answer', m.failure);
  // Unfolded whenever a link was sent with a refused answer, so its message (beside the field) is seen.
  const linksSent =
    form.failed &&
    Array.from({ length: EMPTY_LINK_ROWS }, (_, row) => form.value(`link-${row}-title`) + form.value(`link-${row}-url`)).some(
      (v) => v !== '',
    );
  return html`<h3>Add an answer</h3>${writeForm(
    m,
    `/items/${item.id}/answers`,
    html`${form.summary({
      text: ['answer-text', 'Answer'],
      'attachments[]': ['answer-photos', 'Pictures'],
      stage: ['answer-photos-stage', 'Stage'],
      caption: ['answer-photos-caption', 'Caption'],
      'link-*': ['answer-link-*', linkFieldLabel],
    })}
<label for="answer-text">Answer</label>
<textarea id="answer-text" name="text" required maxlength="20000" ${form.aria('text', 'answer-text')}>${form.value('text')}</textarea>
${form.message('text', 'answer-text')}
<details ${linksSent ? html`open` : ''}><summary>Document links for the answer</summary>${linkRows(form, 'answer-link', [])}</details>
${fileInput(form, 'answer-photos', 'Pictures (optional)', { capture: true })}
<div class="preview" data-preview-for="answer-photos" aria-live="polite"></div>
<div class="actions"><button type="submit">Add answer</button></div>`,
    { multipart: true, id: 'answer' },
  )}`;
}

/**
 * Disputes (docs/design.md §20): "Dispute" for the item's executors while none is open; "Resolve dispute" for managers
 * while one is (keep the company or give the item to another, with a note).
 */
function disputeSection(m: ItemPageModel, item: ItemCard) {
  if (item.disputed && m.rights['item.resolve_dispute']) {
    const form = new FormState('resolve-dispute', m.failure);
    const current = item.responsible_company?.id ?? null;
    const value = form.value('company', current === null ? '' : String(current));
    return html`<section class="card" aria-labelledby="resolve-title" id="resolve-dispute"><h2 id="resolve-title">Resolve dispute</h2>
${writeForm(
  m,
  `/items/${item.id}/resolve-dispute`,
  html`${form.summary({ company: ['resolve-company', 'Company'], note: ['resolve-note', 'Note'] })}
<label for="resolve-company">Company</label>
<select id="resolve-company" name="company" ${form.aria('company', 'resolve-company')}>${companyOptions(m.edit?.companies ?? [], value === '' ? null : Number(value))}</select>
${form.message('company', 'resolve-company')}
<label for="resolve-note">Note</label>
<textarea id="resolve-note" name="note" required maxlength="2000" ${form.aria('note', 'resolve-note')}>${form.value('note')}</textarea>
${form.message('note', 'resolve-note')}
<div class="actions"><button type="submit">Resolve dispute</button></div>`,
  { id: 'resolve-dispute-form' },
)}</section>`;
  }
  if (!item.disputed && m.rights['item.dispute']) {
    const form = new FormState('dispute', m.failure);
    return html`<details class="card" id="dispute" ${form.failed ? html`open` : ''}><summary>Dispute</summary>
${writeForm(
  m,
  `/items/${item.id}/dispute`,
  html`${form.summary({ reason: ['dispute-reason', 'Reason'] })}
<p class="hint" id="dispute-hint">Not your company's item, or not a defect? Say why: the managers review it.</p>
<label for="dispute-reason">Reason</label>
<textarea id="dispute-reason" name="reason" required maxlength="2000" aria-describedby="dispute-hint" ${form.aria('reason', 'dispute-reason')}>${form.value('reason')}</textarea>
${form.message('reason', 'dispute-reason')}
<div class="actions"><button type="submit">Dispute item</button></div>`,
  { id: 'dispute-form' },
)}</details>`;
  }
  return '';
}

function commentForm(m: ItemPageModel, item: ItemCard) {
  const form = new FormState('comment', m.failure);
  return writeForm(
    m,
    `/items/${item.id}/comments`,
    html`${form.summary({ text: ['comment-text', 'Comment'] })}<label for="comment-text">Comment</label>
<textarea id="comment-text" name="text" required maxlength="20000" ${form.aria('text', 'comment-text')}>${form.value('text')}</textarea>
${form.message('text', 'comment-text')}
<div class="actions"><button type="submit">Add comment</button></div>`,
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
  return html`<section class="card comments" aria-labelledby="comments-title" id="comments">
<h2 id="comments-title">Comments (${item.comments.length})</h2>
${earlier ? html`<p class="pager"><a href="/items/${item.id}?comments_before=${shown[0]!.id}#comments" data-testid="comments-earlier">Show earlier comments</a> <span class="muted">(${eligible.length - shown.length} more)</span></p>` : ''}
${
  shown.length
    ? shown.map(
        (c) =>
          html`<article data-testid="comment"><p><strong>${c.author.name}</strong> · ${time(c.created_at, '—', m.session.timeZone)}</p><p class="text">${c.text}</p></article>`,
      )
    : html`<p class="muted">No comments yet.</p>`
}
${before !== null ? html`<p class="pager"><a href="/items/${item.id}#comments" data-testid="comments-latest">Show the latest comments</a></p>` : ''}
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
  return page({
    title: item.text,
    session: m.session,
    path: '/projects',
    notice: m.notice,
    scripts: marksUp(m) ? [KONVA, MARKUP_SCRIPT] : [],
    error: m.failure ? html`Nothing was saved: please check the form. <a href="#${formAnchor(m.failure.form)}">Go to the form</a>` : null,
    body: html`${crumbs([
      { href: '/projects', label: 'Projects' },
      { href: `/projects/${project.id}`, label: project.name },
    ])}
<h1>${item.text}</h1>
<section class="card" aria-label="Item summary">
<dl class="facts">
<dt>Status</dt><dd data-testid="item-status">${badge(item.status)}</dd>
<dt>Priority</dt><dd data-testid="item-priority">${item.priority}</dd>
<dt>Deadline</dt><dd data-testid="item-deadline">${item.deadline ?? '—'}</dd>
<dt>Answer required</dt><dd>${item.requires_answer ? html`yes <span class="muted">(accepted only once an answer is approved)</span>` : 'no'}</dd>
<dt>Participants</dt><dd>${item.participants.length ? item.participants.map((p, i) => html`${i ? ', ' : ''}${p.name}${p.role ? html` <span class="muted">(${p.role})</span>` : ''}`) : '—'}</dd>
<dt>Verdict</dt><dd data-testid="item-verdict">${badge(item.verdict)}</dd>
${item.category ? html`<dt>Category</dt><dd data-testid="item-category">${item.category}</dd>` : ''}
${Object.entries(item.fields).map(([name, value]) => html`<dt>${name}</dt><dd data-testid="item-field">${value}</dd>`)}
<dt>Company</dt><dd data-testid="item-company">${item.responsible_company?.name ?? '—'}</dd>
<dt>Ball in court</dt><dd data-testid="item-ball-in-court" data-value="${item.ball_in_court}">${ballInCourtLabel(item.ball_in_court, item.responsible_company)}</dd>
${item.disputed ? html`<dt>Disputed</dt><dd data-testid="item-disputed"><span class="text">${item.disputed.reason}</span> <span class="muted">— ${item.disputed.by?.name ?? '—'}, ${time(item.disputed.at, '—', m.session.timeZone)}</span></dd>` : ''}
${item.rework_reason ? html`<dt>Rework</dt><dd data-testid="item-rework"><span class="text">${item.rework_reason}</span> <span class="muted">— due ${item.rework_deadline ?? '—'}</span></dd>` : ''}
</dl>
${item.description ? html`<h2>Description</h2><p class="text">${item.description}</p>` : ''}
</section>
${itemPlace(m.session, m.place, m.failure)}
${disputeSection(m, item)}
${m.edit ? editItemForm({ session: m.session, item, ...m.edit, failure: m.failure, writeForm: (action, body, options) => writeForm(m, action, body, options) }) : ''}
${
  may('item.status') || may('item.planning')
    ? html`<section class="card" aria-labelledby="work-title">
<h2 id="work-title">Work</h2>
${may('item.status') ? statusForm(m, item) : ''}
${may('item.planning') ? planningForm(m, item) : ''}
</section>`
    : ''
}
${materials(m, item)}
${beforeAfterSection([...item.attachments, ...item.answers.flatMap((a) => a.attachments)])}
${reviewSection(m, item)}
<section class="card answers" aria-labelledby="answers-title">
<h2 id="answers-title">Answers (${item.answers.length})</h2>
${item.answers.length ? item.answers.map((a) => answerArticle(m, item, a)) : html`<p class="muted">No answers yet.</p>`}
${may('answer.add') ? answerForm(m, item) : ''}
</section>
${commentsSection(m, item)}
${timeline(m.timeline, m.session.timeZone, { page: m.paging.timelinePage, address: `/items/${item.id}` })}
${marksUp(m) ? markupDialog(m.session) : ''}`,
  }).value;
}
