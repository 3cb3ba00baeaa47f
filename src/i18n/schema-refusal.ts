import type { FieldReason } from '../shared/errors.js';
import type { MessageKey, MessageValues } from './i18n.js';

/**
 * A schema's own refusal, as TypeBox options: its reason's key, which v1 words in English (api/envelope.ts, the text
 * it always answered) and a web form in the reader's language (web/form.ts `parseFields`). Outside readers see none of
 * it (api/v1/schemas.ts strips it). Free of the translator: the client (src/client) loads the operations' schemas, and
 * no message file or formatter with them.
 */
export function schemaRefusal(key: MessageKey, values?: MessageValues): { errorReason: FieldReason } {
  return { errorReason: { key, ...(values ? { values } : {}) } };
}
