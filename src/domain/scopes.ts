export const SCOPES = [
  'auth:me',
  'projects:read',
  'projects:search',
  'items:read',
  'items:status.write',
  'items:planning.write',
  'comments:write',
  'answers:write',
  'items:materials.write',
  'events:read',
] as const;

export type Scope = (typeof SCOPES)[number];

export const READ_ONLY_SCOPES: Scope[] = ['auth:me', 'projects:read', 'projects:search', 'items:read'];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
