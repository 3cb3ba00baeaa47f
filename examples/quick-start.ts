/**
 * The quick start of docs/integrators.md with the typed client. Run it from the repository root while
 * `npm start` serves the demo workspace:
 *
 *   PUNCHLIST_TOKEN=plk_... npx tsx examples/quick-start.ts
 *
 * It lives in the repository (type-checked and linted by `npm test`), so a copy of it never breaks the build.
 */
import { createPunchlistClient, PunchlistApiError } from '../src/client/index.js';

const token = process.env.PUNCHLIST_TOKEN;
if (!token) throw new Error('Set PUNCHLIST_TOKEN to the token printed by npm start');
const punchlist = createPunchlistClient({ baseUrl: process.env.PUNCHLIST_URL ?? 'http://127.0.0.1:8080', token });

const me = await punchlist.me();
console.log(`acting as ${me.user.name} with ${me.scopes.join(', ')}`);

const { hits } = await punchlist.searchProject(1, { q: 'switchboard', entity_type: 'item' });
const itemId = hits[0]?.item_id;
if (!itemId) throw new Error('no item matches "switchboard" in project 1');

const { item } = await punchlist.getItem(itemId);
console.log(`item ${item.id}: ${item.text} (${item.status})`);
console.log(await punchlist.setItemStatus(itemId, item.status === 'done' ? 'in_progress' : 'done'));
console.log(await punchlist.addComment(itemId, 'Closed from the TypeScript client.'));

try {
  await punchlist.getItem(999_999);
} catch (err) {
  if (!(err instanceof PunchlistApiError)) throw err;
  console.log(`as expected: ${err.status} ${err.code}, request_id ${err.requestId}`);
}
