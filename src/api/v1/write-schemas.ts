import { Type } from 'typebox';
import { LINK_KINDS, MAX_LINKS } from '../../domain/values.js';

/**
 * Request shapes shared by v1 writes. The schema checks types and enums (422 before any lookup);
 * trimming, lengths in characters, URLs and dates are checked by domain/inputs.ts, also before
 * any lookup, so the check order of docs/design.md §4 holds either way.
 */
export const Text = Type.String({ errorMessage: 'must be a string' });

export const DocumentLinkInput = Type.Object(
  {
    kind: Type.Optional(Type.Enum([...LINK_KINDS], { description: 'What the link points to (default `document`)' })),
    title: Type.String({ errorMessage: 'must be a string', description: 'The link title, 1–500 characters' }),
    url: Type.String({ errorMessage: 'must be a string', description: 'An absolute http(s) URL' }),
  },
  { additionalProperties: false, errorMessage: 'must be a link object {kind, title, url}' },
);

export const DocumentLinksInput = Type.Array(DocumentLinkInput, {
  maxItems: MAX_LINKS,
  errorMessage: `must be an array of at most ${MAX_LINKS} links`,
});
