import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliLanguage } from '../../src/cli/language.js';
import { usage } from '../../src/cli/main.js';
import { importFixture } from '../../src/features/fixtures/import.service.js';
import { useCliFile } from '../helpers/cli.js';
import { buildWorkspace } from '../helpers/workspace.js';
import { parseCsvReport, pdfText } from '../reports/pdf-text.js';

/**
 * The CLI in the operator's language (issue 45, docs/cli.md "Language"): LC_ALL, LC_MESSAGES, LANG as POSIX
 * programs read them; help, the errors the CLI words itself and the PDF report (`--language`); JSON, CSV and exit
 * statuses unchanged.
 */
const { cli, run, spawned } = useCliFile({ context: true });
const RU = { LANG: 'ru_RU.UTF-8' };

// The standard workspace (after useCliFile's set-up, which runs first): the report's project 1.
beforeAll(() => importFixture(cli.ctx.db.kysely, cli.ctx.db.dialect, buildWorkspace().fixture, cli.ctx.clock));

describe('the operator’s language', { timeout: 180_000 }, () => {
  it('is the first of LC_ALL, LC_MESSAGES and LANG that is set; C, POSIX and languages we lack are English', () => {
    expect(cliLanguage({ LANG: 'ru_RU.UTF-8' })).toBe('ru');
    expect(cliLanguage({ LANG: 'de_AT.UTF-8' })).toBe('de');
    expect(cliLanguage({ LANG: 'ru' })).toBe('ru');
    expect(cliLanguage({ LANG: 'ru_RU.UTF-8', LC_ALL: 'C' })).toBe('en');
    expect(cliLanguage({ LANG: 'C', LC_MESSAGES: 'de_DE.UTF-8' })).toBe('de');
    expect(cliLanguage({ LANG: 'de_DE.UTF-8', LC_ALL: '' })).toBe('de');
    expect(cliLanguage({ LANG: 'POSIX' })).toBe('en');
    expect(cliLanguage({ LANG: 'fr_FR.UTF-8' })).toBe('en');
    expect(cliLanguage({ LANG: 'C.UTF-8' })).toBe('en');
    expect(cliLanguage({})).toBe('en');
  });

  it('speaks Russian with LANG=ru_RU.UTF-8 through bin/punchlist: help, every command’s line, usage mistakes', async () => {
    const help = await spawned.run(['--help'], RU);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Использование: punchlist <команда> \[параметры\]\n\nКоманды:\n/);
    expect(help.stdout).toContain('      создать API-токен; сам токен выводится один раз');
    expect(help.stdout).toContain('Код выхода: 0 при успехе');
    // Every command has its line in every language (an empty one would be a command cli.json lacks).
    for (const language of ['en', 'ru', 'de'] as const) expect(usage(language)).not.toMatch(/\n {6}\n/);
    const missing = await spawned.run(['tokens', 'list'], RU);
    expect([missing.code, missing.stderr]).toEqual([2, 'punchlist: не указан параметр --user (см. punchlist tokens list --help)\n']);
    const unknown = await run(['frobnicate'], RU);
    expect([unknown.code, unknown.stderr]).toEqual([2, 'punchlist: неизвестная команда "frobnicate" (см. punchlist --help)\n']);
    const option = await run(['tokens', 'list', '--nope'], RU);
    expect(option.stderr).toBe('punchlist: неизвестный параметр --nope (см. punchlist tokens list --help)\n');
    const group = await run(['tokens', '--help'], { LANG: 'de_DE.UTF-8' });
    expect(group.stdout).toMatch(/^Aufruf: punchlist tokens <create\|list\|revoke> \[Optionen\]/);
    expect(group.stdout).toContain('Die Optionen eines Unterbefehls: punchlist tokens <Unterbefehl> --help.');
    const number = await run(['report', '--project', 'abc'], RU);
    expect([number.code, number.stderr]).toEqual([2, 'punchlist: --project должен быть целым положительным числом, получено "abc"\n']);
    const reportHelp = await run(['report', '--help'], RU);
    expect(reportHelp.stdout).toMatch(/^Использование: punchlist report --project ID/);
    expect(reportHelp.stdout).toContain('--language L     язык PDF: en, ru, de');
    const notes = await run(['notifications', 'list', '--help'], RU);
    expect(notes.stdout).toContain('--json             вывести JSON-массив {id, kind, at, item_id, project_id, read_at, emailed_at, text}');
    const role = await run(['users', 'create', '--email', 'x@example.test', '--name', 'X', '--role', 'boss'], RU);
    expect([role.code, role.stderr]).toEqual([2, 'punchlist: --role должен быть одним из: admin, member, получено "boss"\n']);
    const created = await run(['users', 'create', '--email', 'foreman@example.test', '--name', 'Прораб'], RU);
    expect(created.stdout).toMatch(/^создан пользователь \d+: foreman@example\.test \(member\)\n$/);
    const both = await run(
      ['tokens', 'create', '--user', 'a@b.test', '--name', 'x', '--scopes', 'projects:read', '--no-expiry', '--expires-in', '1d'],
      RU,
    );
    expect(both.stderr).toBe('punchlist: --expires-in и --no-expiry исключают друг друга: выберите один\n');
    const bothEn = await run([
      'tokens',
      'create',
      '--user',
      'a@b.test',
      '--name',
      'x',
      '--scopes',
      'projects:read',
      '--no-expiry',
      '--expires-in',
      '1d',
    ]);
    expect(bothEn.stderr).toBe('punchlist: --expires-in and --no-expiry exclude each other: choose one\n');
    expect((await run(['tokens', 'revoke', '--help'], RU)).stdout).toMatch(
      /^Использование: punchlist tokens revoke ID\n\nОтзывает API-токен/,
    );
    for (const command of [
      'webhooks create',
      'webhooks list',
      'webhooks disable',
      'templates list',
      'templates export',
      'templates import',
      'audit',
      'mcp',
    ])
      expect((await run([...command.split(' '), '--help'], RU)).stdout, command).toMatch(/^Использование: punchlist /);
    expect((await run(['audit', '--help'], RU)).stdout).toContain('вывести JSON-массив {request_id, at, token_id');
    expect((await run(['migrate'], RU)).stdout).toBe('схема базы данных актуальна\n');
    expect((await run(['backup', '--help'], { LANG: 'de_DE.UTF-8' })).stdout).toMatch(
      /^Aufruf: punchlist backup DIR\n\nSchreibt eine konsistente Kopie/,
    );
    const json = await run(['users', 'create', '--email', 'json@example.test', '--name', 'J', '--json'], RU);
    expect(Object.keys(JSON.parse(json.stdout))).toEqual(['id', 'email', 'name', 'role']);
  });

  it('keeps English, word for word, without a language or with C', async () => {
    const plain = await run(['--help']);
    const c = await run(['--help'], { LANG: 'C', LC_ALL: 'C' });
    expect(plain.stdout).toBe(c.stdout);
    expect(plain.stdout).toMatch(/^Usage: punchlist <command> \[options\]\n\nCommands:\n {2}serve\n {6}apply migrations, then serve/);
    expect((await run(['tokens', 'list'])).stderr).toBe('punchlist: missing option --user (see punchlist tokens list --help)\n');
  });

  it('writes the PDF report in the operator’s language or --language’s, the CSV and JSON unchanged', async () => {
    const german = join(cli.dir, 'de.pdf');
    const de = await run(['report', '--project', '1', '--format', 'pdf', '--output', german], { LANG: 'de_DE.UTF-8' });
    expect([de.code, de.stderr]).toEqual([0, '']);
    const deText = await pdfText(readFileSync(german));
    expect(deText).toContain('Mängelliste');
    expect(deText).toContain('Seite 1');
    expect(deText).toContain('von einem Betreiber (punchlist report)');
    const russian = join(cli.dir, 'ru.pdf');
    const ru = await run(['report', '--project', '1', '--format', 'pdf', '--output', russian, '--language', 'ru'], { LANG: 'de_DE.UTF-8' });
    expect(ru.code, ru.stderr).toBe(0);
    const ruText = await pdfText(readFileSync(russian));
    expect(ruText).toContain('Перечень замечаний');
    expect(ruText).toContain('автор: оператор (punchlist report)');
    expect(ruText).not.toMatch(/\b(Status|Priority|Deadline|Page|Progress|Verdict|Participants)\b/);
    const bad = await run(['report', '--project', '1', '--language', 'xx'], RU);
    expect([bad.code, bad.stderr]).toEqual([2, 'punchlist: --language должен быть одним из: en, ru, de, получено "xx"\n']);
    const csvRu = await run(['report', '--project', '1'], RU);
    const csvEn = await run(['report', '--project', '1']);
    expect(parseCsvReport(csvRu.stdout).header).toEqual(parseCsvReport(csvEn.stdout).header);
    expect(parseCsvReport(csvRu.stdout).rows.map((r) => r.status)).toEqual(parseCsvReport(csvEn.stdout).rows.map((r) => r.status));
    const jsonRu = await run(['companies', 'list', '--json'], RU);
    expect(jsonRu.stdout).toBe((await run(['companies', 'list', '--json'])).stdout);
  });
});
