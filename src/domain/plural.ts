/**
 * A count with its noun ("1 item", "3 items"): the form chosen by the count's plural category (Intl.PluralRules),
 * never by a hand-made `n === 1`, since other languages have other categories (few, many…). English only for now:
 * a language added later brings its own forms per category, keyed by the same nouns.
 */
const FORMS = {
  answer: { one: 'answer', other: 'answers' },
  change: { one: 'change', other: 'changes' },
  checklist: { one: 'checklist', other: 'checklists' },
  comment: { one: 'comment', other: 'comments' },
  item: { one: 'item', other: 'items' },
  link: { one: 'link', other: 'links' },
  minute: { one: 'minute', other: 'minutes' },
  notification: { one: 'notification', other: 'notifications' },
  photo: { one: 'photo', other: 'photos' },
  picture: { one: 'picture', other: 'pictures' },
  section: { one: 'section', other: 'sections' },
} as const satisfies Record<string, { one: string; other: string }>;

export type Noun = keyof typeof FORMS;

const rules = new Intl.PluralRules('en');

/** The noun's form for `count` alone (for markup that shows the number apart). */
export function pluralForm(count: number, noun: Noun): string {
  const forms: Partial<Record<Intl.LDMLPluralRule, string>> & { other: string } = FORMS[noun];
  return forms[rules.select(count)] ?? forms.other;
}

/** `count` and its noun: "1 item", "0 items", "12 items". */
export function plural(count: number, noun: Noun): string {
  return `${count} ${pluralForm(count, noun)}`;
}
