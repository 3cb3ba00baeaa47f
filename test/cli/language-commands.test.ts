import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliFile } from '../helpers/cli.js';
import { buildWorkspace } from '../helpers/workspace.js';

/**
 * The commands' own words in the operator's language (issue 45, docs/cli.md "Language"), with LANG=ru_RU.UTF-8:
 * errors and summaries of import, export, webhooks, templates, audit, mcp, backup; tables' column headers and their
 * words; companies list. JSON output and exit statuses are the same in every language; stored text (names, a
 * webhook's reason) shows as written.
 */
const { cli, run } = useCliFile({ context: true });
const RU = { LANG: 'ru_RU.UTF-8' };
const DE = { LC_ALL: 'de_DE.UTF-8' };

describe('the commands in Russian', { timeout: 180_000 }, () => {
  it('imports, lists and exports in Russian; the same data in JSON whatever the language', async () => {
    const none = await run(['companies', 'list'], RU);
    expect([none.code, none.stdout, none.stderr]).toEqual([0, 'компаний нет\n', '']);
    expect((await run(['companies', 'list', '--help'], RU)).stdout).toContain('Использование: punchlist companies list [--json]');
    expect((await run(['companies', 'list', '--help'], DE)).stdout).toContain('Listet die Firmen des Arbeitsbereichs');

    const missing = await run(['import', 'nowhere.json'], RU);
    expect([missing.code, missing.stderr]).toEqual([1, 'punchlist: не удалось прочитать nowhere.json: нет такого файла\n']);
    await writeFile(join(cli.dir, 'broken.json'), '{ nope');
    expect((await run(['import', 'broken.json'], RU)).stderr).toMatch(/^punchlist: broken\.json — некорректный JSON: /);
    await writeFile(join(cli.dir, 'workspace.json'), JSON.stringify(buildWorkspace().fixture));
    const imported = await run(['import', 'workspace.json'], RU);
    expect(imported.stderr).toBe('');
    expect(imported.stdout).toMatch(/^импортирован workspace\.json: users: \d+, projects: \d+, .*items: \d+/);

    const exported = await run(['export', '-'], RU);
    expect(exported.code).toBe(0);
    expect(exported.stderr).toMatch(/^выгружено в stdout: (companies: \d+, )?users: \d+, .*\n$/);
    // The English lines as they always were.
    expect((await run(['export', '-'])).stderr).toMatch(/^exported (\d+ companies, )?\d+ users, .* to stdout\n$/);

    const tokens = await run(['tokens', 'list', '--user', 'manager@punchlist.test'], RU);
    expect(tokens.stdout.split('\n')[0]).toMatch(
      /^ID\s+НАЗВАНИЕ\s+СОСТОЯНИЕ\s+СОЗДАН\s+ИСТЕКАЕТ\s+ИСПОЛЬЗОВАН\s+ОТКУДА\s+ОБЛАСТИ\s+ПРОЕКТЫ$/,
    );
    expect(tokens.stdout).toMatch(/\sдействует\s/);
    const noTokens = await run(['tokens', 'list', '--user', 'bystander@punchlist.test'], RU);
    expect(noTokens.stdout).toMatch(/^(у bystander@punchlist\.test нет токенов\n|ID\s+НАЗВАНИЕ)/);
    const notes = await run(['notifications', 'list', '--user', 'bystander@punchlist.test'], RU);
    expect(notes.stdout).toMatch(/^(у bystander@punchlist\.test нет уведомлений\n|ID\s+ВРЕМЯ\s+ВИД\s+ПУНКТ)/);
  });

  it('says webhooks’ refusals, table and summary in Russian; the operator’s stored reason as written', async () => {
    const events = await run(
      ['webhooks', 'create', '--user', 'manager@punchlist.test', '--url', 'https://example.test/', '--events', 'nope'],
      RU,
    );
    expect(events.code).toBe(2);
    expect(events.stderr).toMatch(/^punchlist: неизвестный тип события "nope" \(известные типы: item\.status_changed, /);
    const scheme = await run(['webhooks', 'create', '--user', 'manager@punchlist.test', '--url', 'ftp://example.test/'], RU);
    expect([scheme.code, scheme.stderr]).toEqual([1, 'punchlist: --url ftp://example.test/: нужен адрес http или https\n']);
    const loopback = await run(['webhooks', 'create', '--user', 'manager@punchlist.test', '--url', 'http://127.0.0.1:9/x'], RU);
    expect(loopback.stderr).toBe(
      'punchlist: --url http://127.0.0.1:9/x: указывает на 127.0.0.1 — локальный или частный адрес ' +
        '(разрешено, только если в окружении задано WEBHOOK_ALLOW_PRIVATE=1)\n',
    );
    const english = await run(['webhooks', 'create', '--user', 'manager@punchlist.test', '--url', 'http://127.0.0.1:9/x']);
    expect(english.stderr).toBe(
      'punchlist: --url http://127.0.0.1:9/x: resolves to 127.0.0.1, a loopback, private or link-local address ' +
        '(allowed only when the environment has WEBHOOK_ALLOW_PRIVATE=1)\n',
    );
    const created = await run(['webhooks', 'create', '--user', 'manager@punchlist.test', '--url', 'http://127.0.0.1:9/x', '--json'], {
      ...RU,
      WEBHOOK_ALLOW_PRIVATE: '1',
    });
    const { id } = JSON.parse(created.stdout) as { id: number };
    expect((await run(['webhooks', 'disable', String(id)], RU)).stdout).toBe(`вебхук ${id} отключён\n`);
    const table = (await run(['webhooks', 'list', '--user', 'manager@punchlist.test'], RU)).stdout;
    expect(table.split('\n')[0]).toMatch(/^ID\s+СОСТОЯНИЕ\s+СОЗДАН\s+ПРОЕКТ\s+СОБЫТИЯ\s+URL$/);
    expect(table).toMatch(/отключён \(disabled by an operator\)\s+\S+ \S+\s+все\s+все\s+http:\/\/127\.0\.0\.1:9\/x/);
  });

  it('says templates’, audit’s and mcp’s own errors in Russian, the service’s reasons too', async () => {
    expect((await run(['templates', 'export', '999'], RU)).stderr).toBe('punchlist: шаблона с номером 999 нет\n');
    await writeFile(join(cli.dir, 'template.json'), JSON.stringify({ name: 'Сдача квартиры', colour: 'red', sections: [] }));
    const refused = await run(['templates', 'import', 'template.json'], RU);
    expect(refused.stderr).toBe('punchlist: template.json отклонён, ничего не импортировано: colour: нет такого ключа в формате шаблона\n');
    await writeFile(
      join(cli.dir, 'template.json'),
      JSON.stringify({ name: 'Сдача квартиры', sections: [{ name: 'Кухня', checklists: [{ name: 'Мойка', items: [{ text: 'Кран' }] }] }] }),
    );
    expect((await run(['templates', 'import', 'template.json'], RU)).stdout).toMatch(/^импортирован шаблон \d+ из template\.json\n$/);
    expect((await run(['templates', 'list'], RU)).stdout).toMatch(/^ID\s+НАЗВАНИЕ\s+РАЗДЕЛЫ\s+ЧЕК-ЛИСТЫ\n\d+\s+Сдача квартиры\s+1\s+1\n$/);

    const both = await run(['audit', '--json', '--ndjson'], RU);
    expect([both.code, both.stderr]).toEqual([2, 'punchlist: --json и --ndjson исключают друг друга (см. punchlist audit --help)\n']);
    const audit = await run(['audit', '--limit', '1'], RU);
    expect(audit.stdout).toMatch(
      /^(записей журнала аудита нет\n|ВРЕМЯ\s+СТАТУС\s+МЕТОД\s+ПУТЬ\s+ОШИБКА\s+ТОКЕН\s+ПОЛЬЗОВАТЕЛЬ\s+МС\s+ОБЪЕКТ\s+IP\s+ID ЗАПРОСА\n)/,
    );

    const url = await run(['mcp', '--token', 'x', '--url', 'ftp://example.test'], RU);
    expect([url.code, url.stderr]).toEqual([1, 'punchlist: --url должен быть адресом http(s), получено "ftp://example.test"\n']);
    const noToken = await run(['mcp'], RU);
    expect(noToken.stderr).toContain('токен (или переменная окружения PUNCHLIST_TOKEN)');
  });

  it('ends a backup with its summary in Russian', async () => {
    const backup = await run(['backup', join(cli.dir, 'backup')], RU);
    expect(backup.code).toBe(0);
    expect(backup.stderr).toMatch(
      /\nbackup: готово за \d+,\d с: .*backup \(база данных \d+ байт, файлов \d+, \d+ байт; снимок на \S+\)\n$/,
    );
  });
});
