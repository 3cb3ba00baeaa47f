import type { Generated, Insertable, Selectable } from 'kysely';

/**
 * Row types of every table. Timestamps are ISO 8601 UTC strings, dates are `YYYY-MM-DD`,
 * booleans are 0/1 integers and id lists are JSON text, so that SQLite and PostgreSQL
 * store the same values.
 */
export interface UsersTable {
  id: Generated<number>;
  email: string;
  name: string;
  role: string;
  password_hash: string | null;
  active: number;
  /** IANA time zone name (migration 012); null: not chosen. */
  time_zone: string | null;
  /** The interface's language (src/i18n, migration 025); null: the browser's. */
  language: string | null;
  /** The language the browser asked for at the last sign-in (migration 028): the written word's while `language` is null. */
  browser_language: string | null;
  /** The person's company (migration 020); null: none. */
  company_id: number | null;
  created_at: string;
  updated_at: string;
}

export interface ProjectsTable {
  id: Generated<number>;
  name: string;
  description: string;
  deadline: string | null;
  verdict: string | null;
  archived: number;
  created_at: string;
  updated_at: string;
}

export interface ProjectMembersTable {
  project_id: number;
  user_id: number;
  role: string;
  /** JSON array of section ids, or null for no limit of that kind. */
  section_ids: string | null;
  /** JSON array of checklist ids, or null for no limit of that kind. */
  checklist_ids: string | null;
  /** 1: the member sees only the items whose responsible company is their own (migration 020). */
  company_items_only: Generated<number>;
  created_at: string;
}

export interface SectionsTable {
  id: Generated<number>;
  project_id: number;
  name: string;
  position: number;
  created_at: string;
  updated_at: string;
}

export interface ChecklistsTable {
  id: Generated<number>;
  project_id: number;
  section_id: number;
  name: string;
  position: number;
  created_at: string;
  updated_at: string;
}

export interface ItemsTable {
  id: Generated<number>;
  project_id: number;
  section_id: number;
  checklist_id: number;
  text: string;
  description: string;
  status: string;
  priority: string;
  deadline: string | null;
  requires_answer: number;
  verdict: string | null;
  rework_reason: string | null;
  rework_deadline: string | null;
  position: number;
  /** The item's place (migration 019): on at most one plan, at fractions 0–1 of its sheet from the top left. */
  plan_id: number | null;
  plan_x: number | null;
  plan_y: number | null;
  /** The company that holds the item (migration 020); null: none. */
  responsible_company_id: number | null;
  /** An open dispute (docs/design.md §20): its reason, who raised it and when; all null when none. */
  dispute_reason: string | null;
  dispute_by: number | null;
  dispute_at: string | null;
  /** The item's category (migration 021), one of its project's; null: none. */
  category_id: number | null;
  created_at: string;
  updated_at: string;
}

/** A project's category (docs/design.md §21): a name its items may carry. */
export interface CategoriesTable {
  id: Generated<number>;
  project_id: number;
  name: string;
  position: number;
  created_at: string;
  updated_at: string;
}

/** A project's custom field (docs/design.md §21); retired (`retired_at`), never deleted. `options`: a JSON list. */
export interface CustomFieldsTable {
  id: Generated<number>;
  project_id: number;
  name: string;
  kind: string;
  options: string;
  required: number;
  position: number;
  retired_at: string | null;
  created_at: string;
  updated_at: string;
}

/** An item's value of a field, typed: exactly one of the columns holds it, the one of the field's kind. */
export interface ItemFieldValuesTable {
  item_id: number;
  field_id: number;
  project_id: number;
  text_value: string | null;
  number_value: number | null;
  date_value: string | null;
  option_value: string | null;
}

/** A saved project shape (docs/design.md §21): `body` is the template's JSON document (docs/cli.md). */
export interface TemplatesTable {
  id: Generated<number>;
  name: string;
  body: string;
  created_by: number | null;
  created_at: string;
  updated_at: string;
}

/** A project's escalation ladder (docs/design.md §21, migration 027): no row, off. */
export interface ProjectEscalationsTable {
  project_id: number;
  every_days: number;
  managers_after_days: number;
  updated_at: string;
}

/** One step of the ladder told to one person (migration 027): the key makes each step once. */
export interface EscalationStepsTable {
  item_id: number;
  deadline: string;
  /** The day of being overdue (in the person's time zone) the step falls on. */
  step: number;
  user_id: number;
  project_id: number;
  at: string;
}

/** A project's drawing (docs/design.md §19); `current_version` is the one everybody sees. */
export interface PlansTable {
  id: Generated<number>;
  project_id: number;
  name: string;
  current_version: number;
  position: number;
  created_by: number | null;
  created_at: string;
  updated_at: string;
}

/** One version of a plan: its sheet as rendered, and where its tiles are (`blob_prefix`). */
export interface PlanVersionsTable {
  id: Generated<number>;
  plan_id: number;
  version: number;
  width: number;
  height: number;
  /** `pdf`, `png`, `jpeg` or `webp`. */
  source_kind: string;
  source_name: string;
  /** The PDF page it was made from (1-based); null for an image. */
  source_page: number | null;
  tile_size: number;
  tile_overlap: number;
  /** Deep Zoom levels: 0 (1×1 px) to levels − 1 (full size). */
  levels: number;
  blob_prefix: string;
  created_by: number | null;
  created_at: string;
}

/** An upload while it renders, then what it became (or why it failed). */
export interface PlanUploadsTable {
  id: Generated<number>;
  project_id: number;
  /** Set for a new version of this plan; null for new plans. */
  plan_id: number | null;
  name: string;
  source_kind: string;
  /** `processing`, `done` or `failed`. */
  status: string;
  pages_total: number;
  pages_done: number;
  error: string | null;
  /** JSON array of the plans it made (or the plan it versioned), once done. */
  plan_ids: string | null;
  created_by: number;
  created_at: string;
  /** Moved by every page done: a `processing` upload not moved for long is one whose node stopped. */
  updated_at: string;
}

/** A company of the workspace (docs/design.md §20): never deleted; `retired` hides it from pickers. */
export interface CompaniesTable {
  id: Generated<number>;
  name: string;
  trade: string;
  retired: Generated<number>;
  created_at: string;
  updated_at: string;
}

/** An invitation to a project: a single-use link, stored as the SHA-256 of its secret. */
export interface InvitationsTable {
  id: Generated<number>;
  token_hash: string;
  project_id: number;
  email: string;
  name: string;
  company_id: number | null;
  /** `executor` or `observer`. */
  role: string;
  company_items_only: number;
  invited_by: number;
  /** The account it made or joined, once used. */
  user_id: number | null;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

/** A company pack sent to a person: one row per project, company, person and send (never twice). */
export interface CompanyPackSendsTable {
  id: Generated<number>;
  project_id: number;
  company_id: number;
  user_id: number;
  send_key: string;
  created_at: string;
}

export interface ItemParticipantsTable {
  item_id: number;
  user_id: number;
}

export interface ItemHistoryTable {
  id: Generated<number>;
  item_id: number;
  /** `created`, `status_changed`, `returned_to_rework`, `verdict_set` */
  kind: string;
  from_status: string | null;
  to_status: string | null;
  user_id: number | null;
  note: string | null;
  at: string;
}

export interface CommentsTable {
  id: Generated<number>;
  item_id: number;
  author_id: number;
  text: string;
  created_at: string;
}

export interface AnswersTable {
  id: Generated<number>;
  item_id: number;
  author_id: number;
  text: string;
  status: string;
  created_at: string;
  updated_at: string;
}

/** Every change of an answer's review status: a review in the web, or a reset by new attachments. */
export interface AnswerReviewsTable {
  id: Generated<number>;
  answer_id: number;
  from_status: string;
  to_status: string;
  /** `review` or `attachments_added` */
  reason: string;
  user_id: number | null;
  at: string;
}

/** Links of an item (answer_id null) or of an answer (item_id is the answer's item). */
export interface DocumentLinksTable {
  id: Generated<number>;
  item_id: number;
  answer_id: number | null;
  kind: string;
  title: string;
  url: string;
  position: number;
  created_at: string;
}

/** Images of an item (answer_id null) or of an answer (item_id is the answer's item). */
export interface AttachmentsTable {
  id: Generated<number>;
  item_id: number;
  answer_id: number | null;
  original_name: string;
  mime_type: string;
  path: string;
  size: number;
  width: number;
  height: number;
  uploaded_by: number | null;
  created_at: string;
  /** The attachment this marked-up picture was drawn on (docs/design.md §22); null for a photo as taken. */
  annotates: number | null;
  /** `defect`, `fix` or null. */
  stage: string | null;
  /** Plain text, ≤ 200 characters; null for none. */
  caption: string | null;
  /** The markup view's key of a "Save markup", unique per uploader: the same drawing is stored once. */
  markup_key: string | null;
}

export interface ApiTokensTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  token_hash: string;
  /** JSON array of scope names */
  scopes: string;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  last_used_ip: string | null;
  /** JSON array of project ids the token is limited to; null: every project of its user (migration 013) */
  project_ids: string | null;
}

export interface AuditLogTable {
  id: Generated<number>;
  request_id: string;
  at: string;
  token_id: number | null;
  user_id: number | null;
  method: string;
  path: string;
  query: string;
  status: number;
  error_code: string | null;
  ip: string | null;
  user_agent: string | null;
  duration_ms: number;
  entity_type: string | null;
  entity_id: number | null;
  client_request_id: string | null;
}

/** The audit record's fields, in the order of docs/design.md §7 (what `bin/punchlist audit` shows). */
export const AUDIT_RECORD_FIELDS = [
  'request_id',
  'at',
  'token_id',
  'user_id',
  'method',
  'path',
  'query',
  'status',
  'error_code',
  'ip',
  'user_agent',
  'duration_ms',
  'entity_type',
  'entity_id',
] as const satisfies readonly (keyof AuditLogTable)[];

/**
 * Every column of audit_log but the id, in one order: the fields, then the client's request id stored beside
 * them. The one list the audit writes, reads, export and import go by.
 */
export const AUDIT_RECORD_COLUMNS = [...AUDIT_RECORD_FIELDS, 'client_request_id'] as const satisfies readonly (keyof AuditLogTable)[];

// A column added to AuditLogTable and not to the list above fails the build here.
type UnlistedAuditColumn = Exclude<keyof AuditLogTable, 'id' | (typeof AUDIT_RECORD_COLUMNS)[number]>;
const _everyAuditColumnListed: [UnlistedAuditColumn] extends [never] ? true : UnlistedAuditColumn = true;
void _everyAuditColumnListed;

export interface EventsTable {
  id: Generated<number>;
  type: string;
  at: string;
  project_id: number;
  section_id: number | null;
  checklist_id: number | null;
  item_id: number | null;
  actor_id: number | null;
  token_id: number | null;
  /** JSON: what changed. */
  data: string;
}

export interface WebhookEndpointsTable {
  id: Generated<number>;
  user_id: number;
  url: string;
  /** JSON list of event types; null: every type. */
  event_types: string | null;
  project_id: number | null;
  secret: string;
  state: 'active' | 'disabled';
  disabled_reason: string | null;
  /** The last event id this endpoint is done with (delivered, skipped or given up). */
  cursor: number;
  /** Failed attempts at the event after the cursor. */
  attempts: Generated<number>;
  failing_since: string | null;
  next_attempt_at: string | null;
  lease_until: string | null;
  created_at: string;
}

export interface WebhookDeliveriesTable {
  id: Generated<number>;
  endpoint_id: number;
  event_id: number;
  attempt: number;
  redelivery: Generated<number>;
  status: 'succeeded' | 'failed';
  response_code: number | null;
  error: string | null;
  duration_ms: number;
  at: string;
}

export interface IdempotencyKeysTable {
  token_id: number;
  key: string;
  method: string;
  path: string;
  request_hash: string;
  /** null while the first request is still running */
  status: number | null;
  response_body: string | null;
  request_id: string;
  created_at: string;
  expires_at: string;
}

export interface WebSessionsTable {
  /** SHA-256 of the session cookie value */
  id: string;
  user_id: number;
  csrf_token: string;
  created_at: string;
  expires_at: string;
}

export interface RateLimitCountersTable {
  key: string;
  /** Start of the fixed window, in ms since the epoch. */
  window_start: number;
  count: number;
}

/** A client registered at /oauth/register (RFC 7591): public, so no secret. */
export interface OAuthClientsTable {
  /** The client_id: random, URL-safe. */
  id: string;
  client_name: string;
  /** JSON array of the registered redirect URIs. */
  redirect_uris: string;
  /** The scope the client registered with (space-separated), the default of its authorization requests. */
  scope: string | null;
  client_uri: string | null;
  software_id: string | null;
  software_version: string | null;
  created_at: string;
}

/** A user's consent to one client: scopes, expiry; `token_id` is the API token that carries its access. */
export interface OAuthGrantsTable {
  id: Generated<number>;
  client_id: string;
  user_id: number;
  /** JSON array of scope names */
  scopes: string;
  token_id: number | null;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  /** `user`, `client`, `refresh_token_reused`, `code_reused`, `token_revoked` */
  revoked_reason: string | null;
  /** JSON array of project ids the grant's token is limited to; null: every project (migration 013) */
  project_ids: string | null;
}

export interface OAuthCodesTable {
  id: Generated<number>;
  /** SHA-256 of the code */
  code_hash: string;
  grant_id: number;
  redirect_uri: string;
  /** BASE64URL(SHA-256(code_verifier)) (PKCE S256) */
  code_challenge: string;
  resource: string | null;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface OAuthRefreshTokensTable {
  id: Generated<number>;
  /** SHA-256 of the refresh token */
  token_hash: string;
  grant_id: number;
  created_at: string;
  expires_at: string | null;
  /** Set when it was exchanged: a second use ends the grant. */
  used_at: string | null;
}

/** One thing a person is told (docs/design.md §15, migration 014). */
export interface NotificationsTable {
  id: Generated<number>;
  user_id: number;
  /** A stable kind name (features/notifications/notification-kinds.ts). */
  kind: string;
  /** Unique per user: `event:<id>`, `deadline_tomorrow:<item>:<date>`, `token_7d:<token>`, … */
  key: string;
  event_id: number | null;
  project_id: number | null;
  item_id: number | null;
  token_id: number | null;
  /** One line for people (web list, email body, CLI). */
  text: string;
  /** What it is about: the item's text, the token's name, … (email subject). */
  subject: string;
  /** `email`, `digest` or `web`: how it goes out, decided when it is made. */
  delivery: string;
  email_id: number | null;
  at: string;
  read_at: string | null;
  emailed_at: string | null;
}

/** The durable email queue: one row per message (one notification, or a day's digest). */
export interface NotificationEmailsTable {
  id: Generated<number>;
  user_id: number;
  key: string;
  /** `waiting`, `sent`, `refused` (permanent 5xx), `given_up` (24 h of failures), `skipped` (nothing left to tell). */
  state: string;
  to_address: string | null;
  attempts: Generated<number>;
  next_attempt_at: string;
  lease_until: string | null;
  last_error: string | null;
  created_at: string;
  finished_at: string | null;
  /** Migration 026: what to send when it is not notifications (JSON `{"kind": …}`; features/mail/direct-messages.ts). */
  message: string | null;
}

export interface NotificationPreferencesTable {
  user_id: number;
  kind: string;
  /** `email`, `digest` or `web`. */
  mode: string;
}

/** A consumer of the event outbox that one node runs at a time: its cursor and its lease. */
export interface OutboxConsumersTable {
  name: string;
  cursor: number;
  holder: string | null;
  lease_until: string | null;
}

/** Versions of what the response caches hold, bumped by triggers (migration 015). */
export interface CacheVersionsTable {
  scope: 'item' | 'project' | 'tree' | 'users';
  id: number;
  version: number;
}

export interface Database {
  users: UsersTable;
  projects: ProjectsTable;
  project_members: ProjectMembersTable;
  sections: SectionsTable;
  checklists: ChecklistsTable;
  items: ItemsTable;
  item_participants: ItemParticipantsTable;
  item_history: ItemHistoryTable;
  comments: CommentsTable;
  answers: AnswersTable;
  answer_reviews: AnswerReviewsTable;
  document_links: DocumentLinksTable;
  attachments: AttachmentsTable;
  api_tokens: ApiTokensTable;
  audit_log: AuditLogTable;
  idempotency_keys: IdempotencyKeysTable;
  web_sessions: WebSessionsTable;
  rate_limit_counters: RateLimitCountersTable;
  events: EventsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  oauth_clients: OAuthClientsTable;
  oauth_grants: OAuthGrantsTable;
  oauth_codes: OAuthCodesTable;
  oauth_refresh_tokens: OAuthRefreshTokensTable;
  notifications: NotificationsTable;
  notification_emails: NotificationEmailsTable;
  notification_preferences: NotificationPreferencesTable;
  outbox_consumers: OutboxConsumersTable;
  cache_versions: CacheVersionsTable;
  plans: PlansTable;
  plan_versions: PlanVersionsTable;
  plan_uploads: PlanUploadsTable;
  categories: CategoriesTable;
  custom_fields: CustomFieldsTable;
  item_field_values: ItemFieldValuesTable;
  templates: TemplatesTable;
  project_escalations: ProjectEscalationsTable;
  escalation_steps: EscalationStepsTable;
  companies: CompaniesTable;
  invitations: InvitationsTable;
  company_pack_sends: CompanyPackSendsTable;
}

export type User = Selectable<UsersTable>;
export type Project = Selectable<ProjectsTable>;
export type Item = Selectable<ItemsTable>;
export type NewAuditRecord = Insertable<AuditLogTable>;
