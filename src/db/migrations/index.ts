import type { Migration } from 'kysely';
import * as m001 from './001-initial.js';
import * as m002 from './002-search.js';
import * as m003 from './003-web.js';
import * as m004 from './004-rate-limits.js';
import * as m005 from './005-audit-duration-precision.js';
import * as m007 from './007-events.js';
import * as m008 from './008-webhooks.js';
import * as m009 from './009-oauth.js';
import * as m010 from './010-search-queue.js';
import * as m011 from './011-oauth-retention.js';
import * as m012 from './012-time-zones.js';
import * as m013 from './013-token-projects.js';
import * as m014 from './014-notifications.js';
import * as m015 from './015-cache-versions.js';
import * as m016 from './016-cache-versions-without-rowid.js';
import * as m017 from './017-review-indexes.js';
import * as m018 from './018-review-order-indexes.js';
import * as m019 from './019-plans.js';
import * as m020 from './020-companies.js';
import * as m021 from './021-categories-fields-templates.js';
import * as m022 from './022-photo-markup.js';
import * as m025 from './025-languages.js';
import * as m026 from './026-direct-emails.js';
import * as m027 from './027-escalation.js';
import * as m028 from './028-browser-language.js';

/** Every migration, in order. Frozen once landed: a change is a new numbered file. */
export const migrations: Record<string, Migration> = {
  '001-initial': m001,
  '002-search': m002,
  '003-web': m003,
  '004-rate-limits': m004,
  '005-audit-duration-precision': m005,
  '007-events': m007,
  '008-webhooks': m008,
  '009-oauth': m009,
  '010-search-queue': m010,
  '011-oauth-retention': m011,
  '012-time-zones': m012,
  '013-token-projects': m013,
  '014-notifications': m014,
  '015-cache-versions': m015,
  '016-cache-versions-without-rowid': m016,
  '017-review-indexes': m017,
  '018-review-order-indexes': m018,
  '019-plans': m019,
  '020-companies': m020,
  '021-categories-fields-templates': m021,
  '022-photo-markup': m022,
  '025-languages': m025,
  '026-direct-emails': m026,
  '027-escalation': m027,
  '028-browser-language': m028,
};
