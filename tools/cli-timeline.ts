import { z } from 'zod';

/** What `aoc timeline backfill` sends: at most 500 tickets, all watched ones unless keys are given. */
export const BackfillArgs = z.object({
  routerUrl: z.url().default('http://127.0.0.1:8080'),
  limit: z.coerce.number().int().min(1).max(500).default(500),
  ticketKeys: z.array(z.string().min(1)).max(500).default([]),
  /** An operator's API token (`aoc token create --role operator`); AOC_TOKEN when not given. */
  token: z.string().min(1, 'an operator token is required (--token or AOC_TOKEN)'),
});
export type BackfillArgs = z.input<typeof BackfillArgs>;

function values(args: readonly string[], name: string): string[] {
  return args.flatMap((a, i) => (a === name && args[i + 1] !== undefined ? [args[i + 1]] : []));
}

/** `--router URL --limit N --ticket KEY [--ticket KEY ...]` parsed; a bad value names its option. */
export function parseBackfillArgs(args: readonly string[], env: Record<string, string | undefined> = process.env): z.output<typeof BackfillArgs> {
  const token = values(args, '--token')[0] ?? env['AOC_TOKEN'] ?? '';
  const parsed = BackfillArgs.safeParse({ routerUrl: values(args, '--router')[0], limit: values(args, '--limit')[0], ticketKeys: values(args, '--ticket'), token });
  if (!parsed.success) {
    const flag: Record<string, string> = { routerUrl: '--router', limit: '--limit', ticketKeys: '--ticket', token: '--token' };
    throw new Error(parsed.error.issues.map((i) => `${flag[String(i.path[0])] ?? String(i.path[0])}: ${i.message}`).join('; '));
  }
  return parsed.data;
}

/** One collector pass on a running router (POST /v1/timelines/collect); returns its counts. */
export async function backfillTimelines(args: z.output<typeof BackfillArgs>): Promise<Record<string, unknown>> {
  const body = args.ticketKeys.length > 0 ? { limit: args.limit, ticketKeys: args.ticketKeys } : { limit: args.limit, all: true };
  const response = await fetch(`${args.routerUrl.replace(/\/$/, '')}/v1/timelines/collect`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${args.token}` },
    body: JSON.stringify(body),
  });
  const json = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (!response.ok) throw new Error(`router answered ${response.status}: ${String(json['code'] ?? '')} ${String(json['detail'] ?? json['message'] ?? '')}`.trim());
  return json;
}
