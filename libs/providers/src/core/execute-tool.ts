import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { HttpCallRecord } from '../connectors/http-client';
import { ProviderError } from './provider-error';
import { redactText, sanitizeValue } from './sanitize';
import { checkWindow, type AbsoluteWindow } from './time-window';
import { failure, success, type ToolResult } from './tool-result';
import type { AuditRecord, AuditSink, ToolSpec } from './tool-spec';

export interface ToolRunContext {
  signal: AbortSignal;
  /** Epoch ms after which the call must give up. */
  deadline: number;
  callId: string;
  /** Execution records (HTTP attempts, 5xx episodes) for the executor; never part of the result. */
  record(queryId: string, record: HttpCallRecord): void;
}

/** A package's implementation of one tool; `run` only ever sees input that passed every check. */
export interface ToolImplementation<S extends ToolSpec> {
  spec: S;
  /** Credentials and other values that must never appear in a result. */
  secrets(): readonly string[];
  /** Rejects targets the package does not serve (exact allowlists, inventories). */
  checkTarget(input: z.infer<S['input']>): void;
  /** The windows the call would read, by operation, checked against the spec's ceilings. */
  windows(input: z.infer<S['input']>): { operation: string; window: AbsoluteWindow }[];
  run(input: z.infer<S['input']>, ctx: ToolRunContext): Promise<unknown>;
}

export interface ExecuteOptions {
  audit?: AuditSink;
  now?: Date;
  onHttpRecord?: (queryId: string, record: HttpCallRecord) => void;
}

/** What the audit keeps of a checked input: its operations, target identifier and overall window. */
function scopeOf(input: unknown, windows: { operation: string; window: AbsoluteWindow }[]): Pick<AuditRecord, 'operations' | 'target' | 'window'> {
  const fields = (input ?? {}) as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' && v.length > 0 ? v.slice(0, 128) : null);
  const target = text(fields['target']) ?? (text(fields['org_id']) && text(fields['cluster_id']) ? `${text(fields['org_id'])}/${text(fields['cluster_id'])}` : text(fields['cluster']));
  const from = windows.map((w) => Date.parse(w.window.from));
  const to = windows.map((w) => Date.parse(w.window.to));
  return {
    operations: [...new Set(windows.map((w) => w.operation))],
    target,
    window: windows.length > 0 ? { from: new Date(Math.min(...from)).toISOString(), to: new Date(Math.max(...to)).toISOString() } : null,
  };
}

function describeZodIssues(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  return issues
    .slice(0, 5)
    .map((i) => `${i.path.map(String).join('.') || '(input)'}: ${i.message}`)
    .join('; ');
}

/**
 * The single execution path. Before any network use it re-checks the input schema, the access
 * mode and risk, the target and every window; it runs under a timeout, sanitises and re-validates
 * the output, bounds its size, and writes one audit record whatever happens.
 */
export async function executeTool<S extends ToolSpec>(impl: ToolImplementation<S>, rawInput: unknown, options: ExecuteOptions = {}): Promise<ToolResult<z.infer<S['output']>>> {
  const { spec } = impl;
  const callId = randomUUID();
  const started = Date.now();
  let scope: Pick<AuditRecord, 'operations' | 'target' | 'window'> = { operations: [], target: null, window: null };
  const finish = (result: ToolResult<z.infer<S['output']>>) => {
    options.audit?.({
      tool: spec.name,
      callId,
      startedAt: new Date(started).toISOString(),
      durationMs: Date.now() - started,
      outcome: result.ok ? 'success' : 'failure',
      errorCode: result.ok ? null : result.details.error_code,
      outputBytes: Buffer.byteLength(result.text, 'utf8'),
      ...scope,
    });
    return result;
  };
  try {
    if (spec.accessMode !== 'read' || spec.riskLevel !== 'L0') {
      throw new ProviderError('PROVIDER.INPUT_INVALID', `${spec.name} is ${spec.riskLevel}/${spec.accessMode}; only L0 read tools run automatically`);
    }
    const parsed = spec.input.safeParse(rawInput);
    if (!parsed.success) throw new ProviderError('PROVIDER.INPUT_INVALID', describeZodIssues(parsed.error.issues));
    const input = parsed.data as z.infer<S['input']>;
    try {
      scope = scopeOf(input, impl.windows(input));
    } catch {
      // The window checks below report a bad window with its own code.
    }
    impl.checkTarget(input);
    for (const { operation, window } of impl.windows(input)) {
      const max = spec.limits.maxWindowMs[operation];
      if (max === undefined) throw new ProviderError('PROVIDER.INPUT_INVALID', `operation ${operation} is not offered by ${spec.name}`);
      checkWindow(window, max, options.now);
    }
    const controller = new AbortController();
    const deadline = Date.now() + spec.limits.timeoutMs;
    const timer = setTimeout(() => controller.abort(new ProviderError('PROVIDER.TIMEOUT', `${spec.name} exceeded ${spec.limits.timeoutMs} ms`)), spec.limits.timeoutMs);
    let raw: unknown;
    try {
      raw = await impl.run(input, { signal: controller.signal, deadline, callId, record: (queryId, record) => options.onHttpRecord?.(queryId, record) });
    } finally {
      clearTimeout(timer);
    }
    const sanitized = sanitizeValue(raw, { secrets: impl.secrets() });
    const checked = spec.output.safeParse(sanitized);
    if (!checked.success) throw new ProviderError('PROVIDER.RESPONSE_INVALID', `result does not match ${spec.name} output: ${describeZodIssues(checked.error.issues)}`);
    const result = success(checked.data as z.infer<S['output']>);
    if (Buffer.byteLength(result.text, 'utf8') > spec.limits.maxOutputBytes) {
      throw new ProviderError('PROVIDER.OUTPUT_TOO_LARGE', `result of ${Buffer.byteLength(result.text, 'utf8')} bytes exceeds ${spec.limits.maxOutputBytes}`);
    }
    return finish(result);
  } catch (error) {
    const secrets = impl.secrets();
    if (error instanceof ProviderError) return finish(failure(error.code, redactText(error.detail, { secrets })));
    return finish(failure('PROVIDER.INTERNAL', redactText(error instanceof Error ? error.message : String(error), { secrets })));
  }
}
