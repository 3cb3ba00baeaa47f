import { Type } from 'typebox';
import { ITEM_STATUSES, LINK_KINDS, MAX_LINKS, PRIORITIES } from '../domain/values.js';
import { schemaRefusal } from '../i18n/schema-refusal.js';

/**
 * The input shapes of the writes v1 and the web forms share (docs/decisions.md, "One parse per form"): a v1
 * operation's fields are these plus its ids; the web form that mirrors it parses its fields with the same
 * schema (web/form.ts `parseFields`), so both refuse the same input with the same field names. Here, not in
 * api/v1/, because the web may not import the API's insides and both may import http/.
 *
 * The schema checks types and enums (422 before any lookup); trimming, lengths in characters, URLs and dates
 * are checked by domain/inputs.ts, also before any lookup, so the check order of docs/design.md §4 holds.
 */
export const Text = Type.String(schemaRefusal('reason.string'));

export const ItemStatus = Type.Enum([...ITEM_STATUSES], schemaRefusal('reason.mustBeOneOf', { values: ITEM_STATUSES.join(', ') }));
export const Priority = Type.Enum([...PRIORITIES], schemaRefusal('reason.mustBeOneOf', { values: PRIORITIES.join(', ') }));

export const DocumentLinkInput = Type.Object(
  {
    kind: Type.Optional(Type.Enum([...LINK_KINDS], { description: 'What the link points to (default `document`)' })),
    title: Type.String({ ...schemaRefusal('reason.string'), description: 'The link title, 1–500 characters' }),
    url: Type.String({ ...schemaRefusal('reason.string'), description: 'An absolute http(s) URL' }),
  },
  { additionalProperties: false, ...schemaRefusal('reason.linkObject') },
);

export const DocumentLinksInput = Type.Array(DocumentLinkInput, {
  maxItems: MAX_LINKS,
  ...schemaRefusal('reason.linksArray', { max: MAX_LINKS }),
});

/** An item's new status (v1 `setItemStatus`, the item page's status form). */
export const StatusChange = { status: { ...ItemStatus, description: 'The new status' } };

/** An item's planning fields, each optional (v1 `setItemPlanning`, the item page's planning form). */
export const PlanningChange = {
  deadline: Type.Optional(
    Type.Unsafe<string | null>({
      type: ['string', 'null'],
      ...schemaRefusal('reason.dateOrNull'),
      description: '`YYYY-MM-DD`; `null` (preferred) or `""` clears the deadline',
    }),
  ),
  priority: Type.Optional({ ...Priority, description: 'The new priority' }),
  requires_answer: Type.Optional(Type.Boolean({ ...schemaRefusal('reason.boolean'), description: 'Whether the item needs an answer' })),
};

/** A comment (v1 `addComment`, the item page's comment form). */
export const CommentInput = { text: { ...Text, description: 'The comment, 1–20 000 characters (stored trimmed)' } };

/** An item's whole list of document links (v1 `replaceItemLinks`, the item page's links form). */
export const LinksReplacement = { document_links: { ...DocumentLinksInput, description: 'The new list (replaces the old one)' } };

/** An answer's text and links (v1 `addAnswer`; the item page's answer form adds photos). */
export const AnswerInput = {
  text: { ...Text, description: 'The answer, 1–20 000 characters (stored trimmed)' },
  document_links: Type.Optional({ ...DocumentLinksInput, description: 'Up to 100 links' }),
};
