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

/** What each scope allows, in a few words: the Profile, the consent page and the OpenAPI OAuth 2 scheme show it. */
export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  'auth:me': 'check the connected user, the token’s scopes and validity',
  'projects:read': 'list projects, read project cards and trees',
  'projects:search': 'search inside a project',
  'items:read': 'read items: status, planning, comments, answers, participants, images',
  'items:status.write': 'change item status',
  'items:planning.write': 'change deadline, priority, requires_answer',
  'comments:write': 'add comments',
  'answers:write': 'add answers',
  'items:materials.write': 'attach images to items and answers, replace document links',
  'events:read': 'read the change feed: what changed in the projects you can see',
};

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
