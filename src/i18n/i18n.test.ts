import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { describe, expect, it } from 'vitest';
import { catalogs, LANGUAGES, message, resolveLanguage } from './i18n.js';

/** The arguments a message uses (`{name}`, plurals' `{count, plural, …}`, and those inside the plural's branches). */
function argumentsOf(source: string): string[] {
  const found = new Set<string>();
  const walk = (elements: MessageFormatElement[]) => {
    for (const element of elements) {
      if (element.type === TYPE.argument || element.type === TYPE.number || element.type === TYPE.date) found.add(element.value);
      if (element.type === TYPE.plural || element.type === TYPE.select) {
        found.add(element.value);
        for (const option of Object.values(element.options)) walk(option.value);
      }
    }
  };
  walk(parse(source, { ignoreTag: true }));
  return [...found].sort();
}

describe('the message catalogues (docs/design.md §23)', () => {
  const all = catalogs();

  it('has every English key in every language, and no key English lacks', () => {
    const english = Object.keys(all.en).sort();
    for (const language of LANGUAGES) {
      const keys = Object.keys(all[language]).sort();
      expect(
        english.filter((k) => !keys.includes(k)),
        `missing in ${language}`,
      ).toEqual([]);
      expect(
        keys.filter((k) => !english.includes(k)),
        `unknown in ${language}`,
      ).toEqual([]);
    }
  });

  it('keeps every placeholder of the English message in each translation, and each parses as ICU', () => {
    const lost: string[] = [];
    for (const [key, source] of Object.entries(all.en)) {
      const wanted = argumentsOf(source);
      for (const language of LANGUAGES) {
        const translated = all[language][key];
        if (translated !== undefined && argumentsOf(translated).join() !== wanted.join()) lost.push(`${language} ${key}`);
      }
    }
    expect(lost).toEqual([]);
  });

  it("writes plurals by each language's rules (CLDR, through Intl)", () => {
    const lead = (language: 'en' | 'ru' | 'de', count: number) => message(language, 'dashboard.projectLead', { count });
    expect(lead('en', 1)).toMatch(/^1 item you can see/);
    expect(lead('en', 2)).toMatch(/^2 items you can see/);
    expect(lead('ru', 1)).toContain('виден 1 пункт.');
    expect(lead('ru', 3)).toContain('видны 3 пункта.');
    expect(lead('ru', 5)).toContain('видно 5 пунктов.');
    expect(lead('ru', 21)).toContain('виден 21 пункт.');
    expect(lead('de', 1)).toMatch(/^1 Punkt /);
    expect(lead('de', 1234)).toMatch(/^1\.234 Punkte /);
    expect(lead('ru', 1234)).toContain('1\u00a0234');
  });

  it('never reads user content as a message: braces and ICU syntax in a value show as typed', () => {
    const typed = "{count, plural, one {x} other {y}} '{' <b>";
    expect(message('ru', 'profile.language.help', { language: typed })).toContain(typed);
  });
});

describe('resolveLanguage: the choice, else Accept-Language, else English; never an error', () => {
  it.each([
    [null, undefined, 'en'],
    ['ru', 'de', 'ru'],
    ['xx', 'de-AT,de;q=0.9,en;q=0.5', 'de'],
    [null, 'fr-CH, fr;q=0.9, ru;q=0.8, en;q=0.7', 'ru'],
    [null, 'en;q=0.5, ru', 'ru'],
    [null, 'ru;q=0, de;q=0.1', 'de'],
    [null, 'xx, yy-ZZ', 'en'],
    [null, ';;;,q=abc, ru;q=zz, *', 'ru'],
    [null, 'RU-ru', 'ru'],
    [null, '*', 'en'],
  ] as const)('chosen %s, Accept-Language %s → %s', (chosen, header, expected) => {
    expect(resolveLanguage(chosen, header)).toBe(expected);
  });
});
