import { Type } from 'typebox';
import { ProjectIdArgument } from './tool-inputs.js';
import { defineOperation, type FileResponse, readErrors } from '../define-operation.js';
import { QueryId } from '../schemas.js';
import { DownloadedFile, READ, strict } from './shared.js';

const NO_FILTER = { status: null, mine: false, overdue: false, q: null, participant: null, sort: 'tree' as const };

export const getProjectReport = defineOperation({
  method: 'GET',
  path: '/projects/report.php',
  scope: 'projects:read',
  tag: 'projects',
  body: 'none',
  status: 200,
  summary: "A project's punch list as a CSV or PDF file (not an envelope)",
  description:
    'The items of the project that the user can see, streamed as a file (`Content-Disposition: attachment`; errors ' +
    'are answered in the envelope before the first byte). `format=csv` (default): UTF-8 with BOM, one row per item, ' +
    'columns `item_id, section, checklist, text, status, priority, deadline, participants, answers, ' +
    'last_answer_status, verdict, url, plan, plan_x, plan_y`; values as v1 writes them, empty for none; participants ' +
    'joined by `; `; `plan` is the name of the plan the item is placed on, `plan_x`/`plan_y` its place as fractions ' +
    'of the sheet from its top left (empty when not placed); a cell ' +
    "starting with `=`, `+`, `-`, `@`, tab or CR is prefixed with `'` (no spreadsheet formulas). `format=pdf`: A4, a " +
    'cover with the progress and counters, a page per plan with items on it (the sheet, each item a pin numbered as in ' +
    'the list), then the numbered items by section and checklist with their plan, last answer, review, verdict and ' +
    'photo thumbnails. Another `format` → 422.',
  query: strict({
    id: QueryId('The project id'),
    format: Type.Optional(Type.Enum(['csv', 'pdf'], { description: '`csv` (default) or `pdf`' })),
  }),
  data: DownloadedFile,
  file: { mediaTypes: ['text/csv', 'application/pdf'] },
  audit: { entity: 'project', field: 'id' },
  errors: readErrors('not_found', 'validation_error'),
  examples: {
    query: { id: '1', format: 'csv' },
    data: {
      filename: 'punchlist-project-1-2026-05-04.csv',
      content_type: 'text/csv; charset=utf-8',
      encoding: 'utf-8',
      content:
        'item_id,section,checklist,text,status,priority,deadline,participants,answers,last_answer_status,verdict,url,' +
        'plan,plan_x,plan_y\r\n' +
        '1000,Safety,Fire protection,Extinguishers checked and tagged,in_progress,high,2026-05-15,Eve Executor,1,approved,,' +
        'https://punchlist.example/items/1000,Floor 3,0.25,0.5\r\n',
    },
  },
  handler: async ({ user, query }, { reports }): Promise<FileResponse> => {
    const report = await reports.openReport(user, Number(query.id), {
      format: query.format ?? 'csv',
      filter: NO_FILTER,
      madeBy: user.name,
    });
    return { filename: report.filename, contentType: report.contentType, stream: report.stream };
  },
  client: { positional: ['id', 'format'] },
  mcp: {
    tool: 'get_project_report',
    title: "Get a project's punch list as CSV",
    hints: READ,
    description:
      'Returns the punch list of a project as CSV text (one row per item the user can see: item_id, section, checklist, ' +
      'text, status, priority, deadline, participants, answers, last_answer_status, verdict, url, plan, plan_x, plan_y: ' +
      'the plan the item is placed on and where, as fractions of the sheet). Use it to hand a ' +
      'whole list over (a CRM, a spreadsheet); to browse, prefer get_project_tree.',
    rename: { id: ProjectIdArgument },
    fixed: { format: 'csv' },
    text: (data) => data.content,
  },
});
