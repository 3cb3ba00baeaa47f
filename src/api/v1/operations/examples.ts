/**
 * Example values several operations' OpenAPI examples share. The ids are those of the test workspace
 * (test/helpers/workspace.ts), so a documented request doubles as the tests' sample request.
 */

export const AT = '2026-05-04T09:30:00.000Z';
export const CREATED = '2026-03-02T08:00:00.000Z';

export const card = {
  id: 1,
  name: 'Plant audit',
  description: 'Yearly safety and compliance audit of the main production plant.',
  deadline: '2026-12-31',
  verdict: null,
  archived: false,
  progress: { done: 2, total: 7, percent: 28 },
  counters: { sections: 2, checklists: 4, items: 7, pending: 3, in_progress: 1, done: 2, blocked: 1 },
  created_at: CREATED,
  updated_at: AT,
};

export const manager = { id: 2, name: 'Maria Manager' };
export const executor = { id: 3, name: 'Egor Executor' };

export const attachment = (id: number, owner: 'items' | 'answers', ownerId: number) => ({
  id,
  original_name: 'extinguisher-tag.jpg',
  mime_type: 'image/webp',
  path: `${owner}/${ownerId}/5b0e4a2c-8f7d-4a59-9b1e-2f4d7c9a1e30.webp`,
  url: `https://punchlist.example.com/api/${owner}/file.php?id=${id}`,
  size: 48213,
  width: 1280,
  height: 960,
  created_at: AT,
  annotates: null,
  stage: owner === 'items' ? 'defect' : 'fix',
  caption: owner === 'items' ? 'Tag missing on the extinguisher by the stairs' : null,
});

export const link = { id: 12, kind: 'document', title: 'Fire safety plan', url: 'https://example.com/docs/fire-safety-plan' };

export const answer = {
  id: 7002,
  text: 'All 24 extinguishers checked; the inspection act is linked.',
  status: 'pending',
  author: executor,
  document_links: [{ id: 13, kind: 'document', title: 'Inspection act', url: 'https://example.com/docs/act-2026-05' }],
  attachments: [],
  created_at: AT,
  updated_at: AT,
};

/** A plan of project 1 (the test workspace's plan 1), at its second version, with one pin. */
export const plan = {
  id: 1,
  project_id: 1,
  name: 'Ground floor',
  version: 2,
  width: 3507,
  height: 2480,
  versions: [
    { version: 1, width: 3507, height: 2480, created_at: CREATED },
    { version: 2, width: 3507, height: 2480, created_at: AT },
  ],
  file_url: 'https://punchlist.example.com/api/plans/file.php?id=1',
  tiles_url: 'https://punchlist.example.com/api/plans/tiles/1/2/sheet.dzi',
  pins: [{ item_id: 1000, x: 0.42, y: 0.31, status: 'in_progress' }],
  created_at: CREATED,
  updated_at: AT,
};
