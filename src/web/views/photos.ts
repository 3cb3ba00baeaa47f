import { beforeAndAfter } from '../../features/items/index.js';
import type { WebSession } from '../../features/sessions/sessions.service.js';
import { html, type SafeHtml } from '../html.js';
import { csrfField, languageOf, writeKeyField } from '../layout.js';
import type { Translate } from '../../i18n/i18n.js';
import type { FormFailure } from '../web-write.js';
import { FormState } from './forms.js';
import { photoDetailsFields } from './item-form.js';

/** A photo as the item page shows it (docs/design.md §22). */
export interface PhotoLike {
  id: number;
  original_name: string;
  url: string;
  width: number;
  height: number;
  annotates: number | null;
  stage: string | null;
  caption: string | null;
  uploaded_by?: number | null;
}

export interface PhotoListModel {
  itemId: number;
  session: WebSession;
  failure: FormFailure | null;
  /** May add a photo where these are (the item's, or the answer's): "Mark up" saves one there. */
  mayMarkUp: boolean;
  /** A manager (or admin) changes any photo's stage and caption; an uploader their own. */
  mayDescribeAny: boolean;
  writeForm: (action: string, body: SafeHtml, options?: { multipart?: boolean; id?: string }) => SafeHtml;
}

/** "Defect", "Fix", or nothing for a photo of no stage. */
export const stageName = (stage: string | null, t: Translate) =>
  stage === 'defect' ? t('photos.stage.defect') : stage === 'fix' ? t('photos.stage.fix') : stage;

/** The words under a photo: its stage, whether it is marked up, its caption. */
function photoCaption(p: PhotoLike, t: Translate): SafeHtml {
  const stage = stageName(p.stage, t);
  return html`<figcaption>${stage ? html`<span class="stage stage-${p.stage}">${stage}</span>` : ''}${
    p.annotates !== null ? html` <span class="muted">${t('photos.markedUp')}</span>` : ''
  }${p.caption ? html` <span class="caption" data-testid="photo-caption">${p.caption}</span>` : ''}</figcaption>`;
}

const altOf = (p: PhotoLike, t: Translate) =>
  p.caption ?? (p.annotates !== null ? `${p.original_name} (${t('photos.markedUp')})` : p.original_name);

function photoFigure(p: PhotoLike, t: Translate): SafeHtml {
  return html`<figure><a href="${p.url}" target="_blank" rel="noopener"><img src="${p.url}" alt="${altOf(p, t)}" width="${p.width}" height="${p.height}" loading="lazy" data-attachment-id="${p.id}"><span class="sr-only"> (${t('photos.fullSize')})</span></a>
${photoCaption(p, t)}</figure>`;
}

/**
 * The photos of the item or of one answer, the marked-up ones first, each with "Mark up" (the markup view opens on
 * it: static/markup.js) and, for who may, its stage and caption to change.
 */
export function photoList(m: PhotoListModel, list: readonly PhotoLike[]): SafeHtml {
  if (!list.length) return html``;
  const { t } = languageOf(m.session);
  return html`<ul class="images photos">${list.map((p) => {
    const describe = new FormState(`photo-${p.id}`, m.failure, t);
    const markup = new FormState(`markup-${p.id}`, m.failure, t);
    const mayDescribe = m.mayDescribeAny || (p.uploaded_by != null && p.uploaded_by === m.session.user.id);
    return html`<li id="photo-${p.id}" data-testid="photo" data-photo-id="${p.id}" data-stage="${p.stage ?? ''}">${photoFigure(p, t)}
${markup.summary({ 'attachments[]': [`photo-${p.id}`, t('photos.markedUpPicture')], caption: [`photo-${p.id}`, t('photos.caption')] })}
${
  m.mayMarkUp
    ? html`<button type="button" class="small secondary" data-markup="${p.id}" data-markup-src="${p.url}" data-markup-action="/items/${m.itemId}/markup/${p.id}" data-markup-caption="${p.caption ?? ''}" aria-describedby="photo-${p.id}-name">${t('photos.markUp')}</button><span class="sr-only" id="photo-${p.id}-name">${altOf(p, t)}</span>`
    : ''
}
${
  mayDescribe
    ? html`<details ${describe.failed ? html`open` : ''}><summary>${t('photos.stageAndCaption')}</summary>${m.writeForm(
        `/items/${m.itemId}/photos/${p.id}`,
        html`${describe.summary({ stage: [`photo-${p.id}-stage`, t('photos.stage')], caption: [`photo-${p.id}-caption`, t('photos.caption')] })}${photoDetailsFields(
          describe,
          `photo-${p.id}`,
          t,
          { stage: p.stage, caption: p.caption },
        )}
<div class="actions"><button type="submit" class="small">${t('photos.saveStageAndCaption')}</button></div>`,
      )}</details>`
    : ''
}</li>`;
  })}</ul>`;
}

/** The defect photos beside the fix photos, with their captions (docs/design.md §22); nothing when there are none. */
export function beforeAfterSection(photos: readonly PhotoLike[], t: Translate): SafeHtml {
  const { defect, fix } = beforeAndAfter(photos);
  if (!defect.length && !fix.length) return html``;
  const column = (testId: string, title: string, list: PhotoLike[]) =>
    html`<div class="stage-column" data-testid="${testId}"><h3>${title}</h3>${
      list.length
        ? html`<ul class="stage-photos">${list.map((p) => html`<li>${photoFigure(p, t)}</li>`)}</ul>`
        : html`<p class="muted">${t('photos.noneYet')}</p>`
    }</div>`;
  return html`<section class="card before-after" aria-labelledby="before-after-title" data-testid="before-after">
<h2 id="before-after-title">${t('photos.defectAndFix')}</h2>
<div class="side-by-side">${column('defect-photos', t('photos.stage.defect'), defect)}${column('fix-photos', t('photos.stage.fix'), fix)}</div>
</section>`;
}

/**
 * The markup view (docs/design.md §22), one per page, opened by a photo's "Mark up": the photo on a drawing surface,
 * the tools, and the form that sends the drawn picture (static/markup.js fills in its file, address and key).
 */
export function markupDialog(session: WebSession): SafeHtml {
  const { t } = languageOf(session);
  const tool = (name: 'arrow' | 'rectangle' | 'ellipse' | 'freehand' | 'text', pressed = false) =>
    html`<button type="button" class="small secondary" data-tool="${name}" aria-pressed="${pressed ? 'true' : 'false'}">${t(`markup.tool.${name}`)}</button>`;
  return html`<dialog class="markup" id="markup-view" aria-labelledby="markup-title">
<h2 id="markup-title">${t('markup.title')}</h2>
<div class="markup-tools" role="toolbar" aria-label="${t('markup.tools')}">
${tool('arrow', true)}${tool('rectangle')}${tool('ellipse')}${tool('freehand')}${tool('text')}
<label class="inline" for="markup-colour">${t('markup.colour')} <input id="markup-colour" type="color" value="#e11d21"></label>
<button type="button" class="small secondary" data-markup-undo>${t('markup.undo')}</button>
</div>
<div class="markup-canvas" data-testid="markup-canvas" role="img" aria-label="${t('markup.canvas')}"></div>
<p class="hint" id="markup-hint">${t('markup.hint')}</p>
<form method="post" action="" enctype="multipart/form-data" data-markup-form>
${csrfField(session)}${writeKeyField()}
<input type="file" name="attachments[]" accept="image/*" hidden aria-hidden="true" tabindex="-1">
<label for="markup-caption">${t('photos.caption')}</label>
<input id="markup-caption" type="text" name="caption" maxlength="200">
<div class="actions"><button type="button" data-markup-save>${t('markup.save')}</button> <button type="button" class="secondary" data-markup-close>${t('itemForm.cancel')}</button></div>
</form>
</dialog>`;
}
