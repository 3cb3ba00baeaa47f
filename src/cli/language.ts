import { isLanguage, type Language, translator, type Translate } from '../i18n/i18n.js';
import type { CliIo } from './io.js';

/**
 * The operator's language (docs/cli.md, "Language"), as POSIX programs choose their messages' language: the first
 * of LC_ALL, LC_MESSAGES and LANG that is set decides; its language part (`ru_RU.UTF-8` → ru, `de` → de) when we
 * speak it, else English (C, POSIX, a language we do not speak). Never an error.
 */
export function cliLanguage(env: CliIo['env']): Language {
  const locale = [env.LC_ALL, env.LC_MESSAGES, env.LANG].find((value) => value !== undefined && value !== '') ?? '';
  const language = locale.split(/[_.@-]/)[0]!.toLowerCase();
  return isLanguage(language) ? language : 'en';
}

/** The translator of the operator's language. */
export function cliTranslator(io: Pick<CliIo, 'env'>): Translate {
  return translator(cliLanguage(io.env));
}
