import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'pino';

type Logger = FastifyBaseLogger & { isLevelEnabled?: (level: string) => boolean };

/**
 * A request's child logger, made on its first line at an enabled level. pino serialises (and redacts) a
 * child's bindings when it is made: ~10 % of the CPU of a light request like auth/me (profile,
 * docs/performance.md), spent at LOG_LEVEL=warn on requests that never log. The lines written are the
 * ones the eager child would have written. A class, not closures: this runs on every request.
 */
class LazyChildLogger {
  #child: Logger | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  get level(): string {
    return (this.#child ?? this.parent).level;
  }

  set level(level: string) {
    this.real().level = level;
  }

  fatal(...args: unknown[]) {
    this.write('fatal', args);
  }
  error(...args: unknown[]) {
    this.write('error', args);
  }
  warn(...args: unknown[]) {
    this.write('warn', args);
  }
  info(...args: unknown[]) {
    this.write('info', args);
  }
  debug(...args: unknown[]) {
    this.write('debug', args);
  }
  trace(...args: unknown[]) {
    this.write('trace', args);
  }
  silent() {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.real().child(bindings, options);
  }

  private real(): Logger {
    return (this.#child ??= this.parent.child(this.bindings, this.options) as Logger);
  }

  private write(level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace', args: unknown[]) {
    const current = this.#child ?? this.parent;
    if (current.isLevelEnabled && !current.isLevelEnabled(level)) return;
    (this.real()[level] as (...args: unknown[]) => void)(...args);
  }
}

/** Fastify's childLoggerFactory. */
export function lazyChildLogger(parent: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  // A route with a log level of its own: the child's level decides, so it is made now (no route has one today).
  if (options.level !== undefined) return parent.child(bindings, options);
  return new LazyChildLogger(parent, bindings, options) as unknown as FastifyBaseLogger;
}
