import { clip, MARGIN, PIN_RADIUS, type Printer, printable } from './report-pdf-printer.js';
import type { ReportPlan } from './report-rows.js';

/** The footer of every page: its number, the project, the date and who made the report ("Page N": no total). */
export function footer(p: Printer, pageNumber: number) {
  const { doc } = p;
  const keep = doc.page.margins.bottom;
  // Written inside the bottom margin: lifted for the footer, or PDFKit would start another page.
  doc.page.margins.bottom = 0;
  const made = p.t('report.made', { at: p.dateTime(p.heading.madeAt), name: p.madeBy });
  const text = p.t('report.page', { page: String(pageNumber), project: clip(p.projectName, 60), made });
  p.fontFor('body', text)
    .fontSize(8)
    .fillColor('#555555')
    .text(text, MARGIN, doc.page.height - MARGIN + 18, {
      width: p.width(),
      align: 'center',
      lineBreak: false,
    });
  doc.page.margins.bottom = keep;
  doc.fillColor('#000000');
  doc.x = MARGIN;
  doc.y = MARGIN;
}

/** The cover: the project, its progress and counters, who made the report and when. */
export function cover(p: Printer) {
  p.doc.addPage();
  p.doc.font('body').fontSize(11).fillColor('#555555').text(p.t('report.punchList')).fillColor('#000000').moveDown(0.5);
  p.fontFor('bold', p.projectName).fontSize(22).text(p.projectName).moveDown(0.5);
  const description = printable(clip(p.heading.project.description, 2000));
  if (description) p.fontFor('body', description).fontSize(11).text(description).moveDown();
  const { progress, counters } = p.heading.project;
  p.doc.font('body').fontSize(11);
  p.doc.text(p.t('report.deadline', { deadline: p.calendarDay(p.heading.project.deadline) }));
  p.doc.text(
    p.t('report.projectVerdict', {
      verdict: p.value('report.verdict', p.heading.project.verdict),
      archived: p.heading.project.archived ? 'yes' : 'no',
    }),
  );
  p.doc.text(p.t('report.progress', { percent: String(progress.percent), done: String(progress.done), total: progress.total }));
  const y = p.doc.y + 4;
  p.doc.rect(MARGIN, y, p.width(), 10).stroke('#888888');
  if (progress.percent > 0) p.doc.rect(MARGIN, y, (p.width() * progress.percent) / 100, 10).fill('#3a7d44');
  p.doc.fillColor('#000000');
  p.doc.x = MARGIN;
  p.doc.y = y + 20;
  const counts = (values: Record<string, number>) => Object.fromEntries(Object.entries(values).map(([k, v]) => [k, String(v)]));
  p.doc.text(p.t('report.counters', counts({ sections: counters.sections, checklists: counters.checklists, items: counters.items })));
  const { pending, in_progress, done, blocked } = counters;
  p.doc.text(p.t('report.statusCounters', counts({ pending, in_progress, done, blocked })));
  p.doc.moveDown();
  const filter = p.heading.filter.join(', ');
  const inReport = filter
    ? p.t('report.itemsInReportFiltered', { count: String(p.heading.items), filter })
    : p.t('report.itemsInReport', { count: String(p.heading.items) });
  p.fontFor('body', inReport).text(inReport);
  p.doc.font('body');
  p.doc.moveDown();
  const madeLine = p.t('report.madeCover', { at: p.dateTime(p.heading.madeAt), name: p.madeBy });
  p.fontFor('body', madeLine).text(madeLine);
}

/** A plan's page: its name, the sheet fitted below (a landscape page for a landscape sheet), the pins over it. */
export async function planPage(p: Printer, plan: ReportPlan) {
  const sheet = await plan.sheet();
  p.doc.addPage({ layout: sheet && sheet.width > sheet.height ? 'landscape' : 'portrait' });
  const title = p.t('report.plan', { name: printable(plan.name) });
  p.fontFor('bold', title).fontSize(14).text(title, MARGIN, MARGIN, { width: p.width() });
  const count = plan.pins.length;
  p.doc.font('body').fontSize(9).fillColor('#555555').text(p.t('report.planLead', { count }), {
    width: p.width(),
  });
  p.doc.fillColor('#000000');
  const top = p.doc.y + 8;
  if (!sheet) {
    p.doc.font('body').fontSize(11).text(p.t('report.unreadableSheet'), MARGIN, top, { width: p.width() });
    return;
  }
  const scale = Math.min(p.width() / sheet.width, (p.bottom() - top) / sheet.height);
  const w = sheet.width * scale;
  const h = sheet.height * scale;
  const left = MARGIN + (p.width() - w) / 2;
  p.doc.image(sheet.data, left, top, { width: w, height: h });
  p.doc.rect(left, top, w, h).lineWidth(0.5).stroke('#888888');
  // Numbers near the sheet's foot are written inside the bottom margin: lifted, or PDFKit would start another page.
  const keep = p.doc.page.margins.bottom;
  p.doc.page.margins.bottom = 0;
  p.doc.font('bold').fontSize(7);
  for (const pin of plan.pins) {
    const cx = left + pin.x * w;
    const cy = top + pin.y * h;
    p.doc.circle(cx, cy, PIN_RADIUS).lineWidth(1).fillAndStroke('#c62828', '#ffffff');
    p.doc.fillColor('#ffffff').text(String(pin.number), cx - PIN_RADIUS * 2, cy - 3.5, {
      width: PIN_RADIUS * 4,
      align: 'center',
      lineBreak: false,
    });
  }
  p.doc.page.margins.bottom = keep;
  p.doc.fillColor('#000000').lineWidth(1);
}
