import { READ_ONLY_SCOPES, SCOPES } from '../domain/scopes.js';
import { isCalendarDate } from '../domain/values.js';
import { invalidField } from '../i18n/reasons.js';
import { type Static, Type } from 'typebox';
import { Text } from '../http/write-inputs.js';
import { parseFields, textField } from './form.js';

/** Expiry choices (docs/design.md §4): days from now, a date (valid through the end of that day, UTC), or none. */
export const EXPIRY_CHOICES = [
  { value: '7d', label: '7 days', days: 7 },
  { value: '30d', label: '30 days', days: 30 },
  { value: '60d', label: '60 days', days: 60 },
  { value: '90d', label: '90 days', days: 90 },
  { value: '1y', label: '1 year', days: 365 },
  { value: 'date', label: 'On a date…', days: null },
  { value: 'never', label: 'No expiry', days: null },
] as const;
export const DEFAULT_EXPIRY = '30d';

export function expiryFrom(choice: string, date: string, now: Date): Date | null {
  const preset = EXPIRY_CHOICES.find((c) => c.value === choice);
  if (!preset) throw invalidField('expiry', 'reason.expiryChoice');
  if (preset.days !== null) return new Date(now.getTime() + preset.days * 86_400_000);
  if (choice === 'never') return null;
  if (!isCalendarDate(date)) throw invalidField('expiry date', 'reason.expiryDate');
  const end = new Date(`${date}T00:00:00.000Z`);
  end.setUTCDate(end.getUTCDate() + 1);
  if (end <= now) throw invalidField('expiry date', 'reason.todayOrLaterPlain');
  return end;
}

export interface TokenFormState extends Grant {
  name: string;
}

/**
 * "Projects" of the token form and of the OAuth consent (docs/design.md §18): `all` (every project the user can
 * see, now and later) or `chosen`, with the ticked project ids as posted.
 */
export interface ProjectChoice {
  projects: 'all' | 'chosen';
  projectIds: string[];
}

export const ALL_PROJECTS: ProjectChoice = { projects: 'all', projectIds: [] };

/**
 * The fields the token form and the OAuth consent share (no v1 twin), one schema for both: the scopes ticked, the
 * expiry and its date, the projects. Their rules are checked at the write (`expiryFrom`, `projectLimitOf`, the
 * tokens and OAuth services), so the form is shown again with what was sent.
 */
const GrantFields = {
  scopes: Type.Array(Text),
  expiry: Text,
  expiry_date: Text,
  projects: Type.Union([Type.Literal('all'), Type.Literal('chosen')]),
  project_ids: Type.Array(Text),
};
const GrantForm = Type.Object(GrantFields);
const TokenForm = Type.Object({ name: Text, ...GrantFields });

/** The shared fields as sent: no expiry is the default one, "Projects" anything but `chosen` is all of them. */
const grantFieldsOf = (form: URLSearchParams) => ({
  scopes: form.getAll('scopes'),
  expiry: form.get('expiry') ?? DEFAULT_EXPIRY,
  expiry_date: textField(form, 'expiry_date'),
  projects: form.get('projects') === 'chosen' ? 'chosen' : 'all',
  project_ids: form.getAll('project_ids'),
});

export interface Grant extends ProjectChoice {
  scopes: string[];
  expiry: string;
  date: string;
}

const grantFrom = ({ scopes, expiry, expiry_date, projects, project_ids }: Static<typeof GrantForm>): Grant => ({
  scopes,
  expiry,
  date: expiry_date,
  projects,
  projectIds: project_ids,
});

/** The OAuth consent's choices (docs/design.md §18). */
export const grantOf = (form: URLSearchParams): Grant => grantFrom(parseFields(GrantForm, grantFieldsOf(form)));

/** The token form: its name and the choices it shares with the consent. */
export function tokenFormOf(form: URLSearchParams): TokenFormState {
  const { name, ...grant } = parseFields(TokenForm, { name: textField(form, 'name'), ...grantFieldsOf(form) });
  return { name, ...grantFrom(grant) };
}

/** The limit a choice asks for: null for every project; the chosen ids (the service checks each one). */
export function projectLimitOf(choice: ProjectChoice): number[] | null {
  if (choice.projects === 'all') return null;
  if (choice.projectIds.length === 0) throw invalidField('projects', 'reason.tickProject');
  return choice.projectIds.map((value) => {
    if (!/^[1-9][0-9]{0,15}$/.test(value)) throw invalidField('projects', 'reason.offeredProject');
    return Number(value);
  });
}

/** The scope presets beside the scope checkboxes: a button each, that ticks exactly these. */
export const SCOPE_PRESETS = [
  { value: 'read', label: 'Read only', scopes: READ_ONLY_SCOPES },
  { value: 'all', label: 'Everything', scopes: SCOPES },
] as const;

export const EMPTY_TOKEN_FORM: TokenFormState = {
  name: '',
  expiry: DEFAULT_EXPIRY,
  date: '',
  scopes: [...READ_ONLY_SCOPES],
  ...ALL_PROJECTS,
};
