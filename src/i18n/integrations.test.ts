import { describe, expect, it } from 'vitest';
import { SCOPE_DESCRIPTIONS, SCOPES } from '../domain/scopes.js';
import { EXPIRY_CHOICES, SCOPE_PRESETS } from '../web/token-expiry.js';
import { message, type MessageKey } from './i18n.js';

/** The Profile and the consent page show scopes, expiries and presets through integrations.json: same English as the code's. */
describe('integrations messages', () => {
  it('say in English what SCOPE_DESCRIPTIONS (the OpenAPI document) and the expiry and preset labels say', () => {
    for (const scope of SCOPES) expect(message('en', `integrations.scope.${scope}` as MessageKey)).toBe(SCOPE_DESCRIPTIONS[scope]);
    for (const c of EXPIRY_CHOICES) expect(message('en', `integrations.expiry.${c.value}` as MessageKey)).toBe(c.label);
    for (const p of SCOPE_PRESETS) expect(message('en', `integrations.preset.${p.value}` as MessageKey)).toBe(p.label);
    expect(message('ru', 'integrations.scope.comments:write')).toBe('добавлять комментарии');
  });
});
