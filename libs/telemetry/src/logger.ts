import { context, trace } from '@opentelemetry/api';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** Keys whose values are never written to a log line, whatever a caller passes. */
const REDACTED_KEYS = /pass(word)?|secret|token|authorization|api[-_]?key|credential|database_url|sql|dsn/i;

export function redactFields(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) out[k] = REDACTED_KEYS.test(k) ? '[redacted]' : v;
  return out;
}

/**
 * One JSON line per event on stderr (stdout stays free for CLI results), with the active trace
 * id so a log line can be found from a trace and back.
 */
export function createLogger(service: string, level: LogLevel = (process.env['LOG_LEVEL'] as LogLevel) ?? 'info', sink: (line: string) => void = (l) => process.stderr.write(l + '\n')): Logger {
  const min = ORDER[level] ?? ORDER.info;
  const write = (lvl: LogLevel, message: string, fields: Record<string, unknown> = {}) => {
    if (ORDER[lvl] < min) return;
    const span = trace.getSpan(context.active());
    sink(
      JSON.stringify({
        time: new Date().toISOString(),
        level: lvl,
        service,
        message,
        ...(span ? { traceId: span.spanContext().traceId } : {}),
        ...redactFields(fields),
      }),
    );
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
  };
}
