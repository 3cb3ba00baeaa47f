import { message } from '../../i18n/i18n.js';
import type { MailMessage } from '../mail/mailer.js';
import type { EmailRow } from '../notifications/notifications.repository.js';
import type { CompanyPackMessage } from './company-packs.service.js';
import type { InvitationMessage, MemberAddedMessage } from './invitations.service.js';

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Plain text and HTML of a short message: paragraphs (escaped), then a link. */
function mail(to: string, subject: string, paragraphs: string[], link: { href: string; label: string }, after: string[] = []): MailMessage {
  const text = [...paragraphs, '', link.href, '', ...after, ''].join('\n');
  const html = `<!doctype html>
<html><body>
${paragraphs.map((p) => `<p>${escapeHtml(p).replace(/\n/g, '<br>')}</p>`).join('\n')}
<p><a href="${escapeHtml(link.href)}">${escapeHtml(link.label)}</a></p>
${after.map((p) => `<p style="font-size:small">${escapeHtml(p)}</p>`).join('\n')}
</body></html>`;
  return { to, subject, text, html, headers: {} };
}

/** An invitation's email: the link that lets the person set a password (docs/design.md §20). */
export function invitationMail(to: string, m: InvitationMessage): MailMessage {
  const values = { name: m.name, inviter: m.inviter, project: m.projectName, expires: m.expiresAt.slice(0, 16).replace('T', ' ') + ' UTC' };
  return mail(
    to,
    message(m.language, 'companyMail.invitationSubject', values),
    [message(m.language, 'companyMail.invitationText', values)],
    { href: m.link, label: message(m.language, 'companyMail.open') },
    [message(m.language, 'companyMail.invitationIgnore')],
  );
}

/** "You were added to a project": to a person invited who already had an account. */
export function memberAddedMail(to: string, m: MemberAddedMessage, baseUrl: string): MailMessage {
  const values = { inviter: m.inviter, project: m.projectName };
  return mail(to, message(m.language, 'companyMail.addedSubject', values), [message(m.language, 'companyMail.addedText', values)], {
    href: `${baseUrl}/projects/${m.projectId}`,
    label: message(m.language, 'companyMail.open'),
  });
}

/** A company pack's email: its PDF attached (made now, of what the recipient sees), and a link to the project. */
export function companyPackMail(to: string, m: CompanyPackMessage, pdf: Buffer, baseUrl: string): MailMessage {
  const values = { sender: m.sender, company: m.companyName, project: m.projectName };
  const file = message(m.language, 'companyMail.packFile', { company: m.companyName })
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9-]+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 80);
  return {
    ...mail(to, message(m.language, 'companyMail.packSubject', values), [message(m.language, 'companyMail.packText', values)], {
      href: `${baseUrl}/projects/${m.projectId}`,
      label: message(m.language, 'companyMail.open'),
    }),
    attachments: [{ filename: `${file || 'open-items'}.pdf`, content: pdf, contentType: 'application/pdf' }],
  };
}

type CompanyMessage = InvitationMessage | MemberAddedMessage | CompanyPackMessage;

/**
 * Renders the queued emails that are not notifications (migration 026) for the email sender: an invitation goes to
 * its address; the others to their user's address while the user is active (else nothing is sent).
 */
export function createCompanyMail(deps: {
  baseUrl: string;
  userOf: (id: number) => Promise<{ id: number; email: string; active: number; role: string } | undefined>;
  /** The PDF of a company's open items as `user` sees them; null when they no longer see the project. */
  packPdf: (user: { id: number; role: string }, m: CompanyPackMessage) => Promise<Buffer | null>;
}) {
  return async function renderMessage(email: EmailRow): Promise<{ mail: MailMessage; forget: boolean } | null> {
    const m = JSON.parse(email.message ?? '{}') as CompanyMessage;
    if (m.kind === 'invitation') return email.to_address ? { mail: invitationMail(email.to_address, m), forget: true } : null;
    const user = await deps.userOf(email.user_id);
    if (!user || user.active !== 1) return null;
    if (m.kind === 'member_added') return { mail: memberAddedMail(user.email, m, deps.baseUrl), forget: false };
    if (m.kind === 'company_pack') {
      const pdf = await deps.packPdf(user, m);
      return pdf ? { mail: companyPackMail(user.email, m, pdf, deps.baseUrl), forget: false } : null;
    }
    return null;
  };
}
