import { Type } from 'typebox';
import { AnswerInput, CommentInput, LinksReplacement, PlanningChange, StatusChange, Text } from '../../http/write-inputs.js';
import { companyOf, documentLinksOf, fractionOf, idsOf, parseFields, parseId, sentField, textField, vocabularyOf } from '../form.js';

/**
 * The item page's forms, each parsed once (web/form.ts `parseFields`): those with a v1 twin with its schema
 * (http/write-inputs.ts), the others with their own below. What a schema cannot say (trimming, lengths, dates, the
 * item's rules) the service checks, for v1 and the web alike.
 */

const StatusForm = Type.Object(StatusChange);
const PlanningForm = Type.Object(PlanningChange);
const CommentForm = Type.Object(CommentInput);
const LinksForm = Type.Object(LinksReplacement);
const AnswerForm = Type.Object(AnswerInput);

/** Forms without a v1 twin. */
const DisputeForm = Type.Object({ reason: Text });
const ResolveForm = Type.Object({ note: Text });
const ReworkForm = Type.Object({ reason: Text, deadline: Text });
const VerdictForm = Type.Object({ verdict: Text });
const EditForm = Type.Object({ text: Type.Optional(Text), description: Type.Optional(Text) });
const ReviewForm = Type.Object({ decision: Text, seen: Type.Optional(Text) });
const PlaceForm = Type.Object({ plan_id: Text, x: Text, y: Text });
const PhotoForm = Type.Object({ stage: Text, caption: Text });

export const statusOf = (form: URLSearchParams) => parseFields(StatusForm, { status: sentField(form, 'status') }).status;

/** The planning form sends all three fields: an empty deadline clears it, an unticked box is false. */
export const planningOf = (form: URLSearchParams) => ({
  ...parseFields(PlanningForm, {
    deadline: textField(form, 'deadline'),
    priority: sentField(form, 'priority'),
    requires_answer: form.has('requires_answer'),
  }),
  fromForm: true,
});

export const commentOf = (form: URLSearchParams) => parseFields(CommentForm, { text: sentField(form, 'text') });

/** The links form's numbered rows as v1's `document_links` (a refused row named by its row: web/form.ts). */
export const linksOf = (form: URLSearchParams) =>
  parseFields(LinksForm, { document_links: documentLinksOf((name) => form.get(name)) }).document_links;

/** The answer form's text fields (its photos travel beside them). */
export const answerOf = (fields: Record<string, string>) =>
  parseFields(AnswerForm, { text: fields.text, document_links: documentLinksOf((name) => fields[name]) });

export const disputeOf = (form: URLSearchParams) => parseFields(DisputeForm, { reason: sentField(form, 'reason') });

export const resolutionOf = (form: URLSearchParams) => ({
  ...parseFields(ResolveForm, { note: textField(form, 'note') }),
  companyId: companyOf(form),
});

export const reworkOf = (form: URLSearchParams) =>
  parseFields(ReworkForm, { reason: sentField(form, 'reason'), deadline: textField(form, 'deadline') });

export const verdictOf = (form: URLSearchParams) => parseFields(VerdictForm, { verdict: textField(form, 'verdict') }).verdict;

export const reviewOf = (form: URLSearchParams) =>
  parseFields(ReviewForm, { decision: sentField(form, 'decision'), seen: sentField(form, 'seen') });

/**
 * The item's edit form: only the controls the form had change something (participants: `participants_sent`; the
 * category and fields: `vocabulary_sent`); a checklist or company that is no id is 0, which the service refuses.
 */
export const itemEditOf = (form: URLSearchParams) => ({
  ...parseFields(EditForm, { text: sentField(form, 'text'), description: sentField(form, 'description') }),
  participantIds: form.has('participants_sent') ? idsOf(form, 'participants') : undefined,
  checklistId: form.has('checklist') ? (parseId(form.get('checklist')) ?? 0) : undefined,
  vocabulary: vocabularyOf(form),
  companyId: companyOf(form),
});

/** A place on a plan, tapped or typed: a plan that is no id is 0 and a coordinate no number NaN, which the service refuses. */
export function placeOf(form: URLSearchParams) {
  const fields = parseFields(PlaceForm, { plan_id: textField(form, 'plan_id'), x: textField(form, 'x'), y: textField(form, 'y') });
  return { planId: parseId(fields.plan_id) ?? 0, x: fractionOf(fields.x), y: fractionOf(fields.y) };
}

/** A photo's stage and caption, both sent: an absent stage is none, an absent caption clears it (`photoDetailsOf`). */
export const photoDescriptionOf = (form: URLSearchParams) =>
  parseFields(PhotoForm, { stage: form.get('stage') ?? 'none', caption: textField(form, 'caption') });
