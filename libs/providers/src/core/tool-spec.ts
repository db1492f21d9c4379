import type { z } from 'zod';

/** Risk levels of the tool catalog; evidence tools are L0 (bounded, read-only, auto-executed). */
export type RiskLevel = 'L0' | 'L1' | 'L2' | 'L3' | 'L4';
export type AccessMode = 'read' | 'write';
export type Surface = 'evidence_agent' | 'provider_executor' | 'automation';
export type NetworkMode = 'restricted' | 'unrestricted';

export interface ToolLimits {
  /** Longest absolute window an operation may read, per operation. */
  maxWindowMs: Record<string, number>;
  /** Per-call timeout before any budget split. */
  timeoutMs: number;
  /** Largest serialised `details` a call may return. */
  maxOutputBytes: number;
  maxQueries?: number;
  concurrency?: number;
}

/**
 * A catalog entry: everything needed to list, validate, run and audit one tool. Packages are
 * independent identities: a spec has no `provider` field and cannot reach another connector.
 */
export interface ToolSpec<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  input: I;
  output: O;
  riskLevel: RiskLevel;
  accessMode: AccessMode;
  surfaces: readonly Surface[];
  networkMode: NetworkMode;
  limits: ToolLimits;
}

export interface AuditRecord {
  tool: string;
  callId: string;
  startedAt: string;
  durationMs: number;
  outcome: 'success' | 'failure';
  errorCode: string | null;
  /** Operations the call read (from its checked input); empty when the input was rejected first. */
  operations: string[];
  /** The target identifier the call was scoped to (cluster label value, `org/cluster`), never an address. */
  target: string | null;
  window: { from: string; to: string } | null;
  /** Size of the returned `text`, for output-bound monitoring. */
  outputBytes: number;
}

export type AuditSink = (record: AuditRecord) => void;
